//! The read APIs: thin handlers over the `reads` crate. The v4 reads answer when the preview
//! opt-in is on; the legacy reads while the v3 tables are written (404 in `events_only`). Score
//! deletion lives here too, as the second method of the score read's path.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use reads::experiments::{Experiment, ExperimentItem};
use reads::legacy::daily::Day;
use reads::legacy::observations::ObservationView;
use reads::legacy::sessions::{Session, SessionWithTraces};
use reads::legacy::traces::{TraceSummary, TraceWithDetails};
use reads::metrics::MetricsBody;
use reads::model_prices::Priced;
use reads::observations::ObservationV2;
use reads::render::MediaFields;
use reads::scores::legacy::{Score, Version as ScoreVersion};
use reads::scores::v3::ScoreV3;
use reads::{CursorPage, Paged, Params, gate};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::openapi::ErrorBody;
use super::query::params;
use super::read_params::{
    DailyMetricsQuery, ExperimentItemsQuery, ExperimentsQuery, MetricsQuery, ObservationsQuery,
    ObservationsV2Query, PageQuery, ScoresQuery, ScoresV3Query, SessionsQuery, TracesQuery,
};
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

type Reply<T> = Result<Json<T>, ApiError>;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(observations_v2))
        .routes(routes!(scores_v3))
        .routes(routes!(metrics_v2))
        .routes(routes!(experiments))
        .routes(routes!(experiment_items))
        .routes(routes!(traces))
        .routes(routes!(trace))
        .routes(routes!(observations))
        .routes(routes!(observation))
        .routes(routes!(spans))
        .routes(routes!(generations))
        .routes(routes!(sessions))
        .routes(routes!(session))
        .routes(routes!(scores_v1))
        .routes(routes!(score_v1, delete_score))
        .routes(routes!(scores_v2))
        .routes(routes!(score_v2))
        .routes(routes!(metrics_v1))
        .routes(routes!(metrics_daily))
}

/// What every read handler needs: the engine, the caller's project and the parsed query string.
struct Read {
    state: AppState,
    project: String,
    params: Params,
}

impl Read {
    fn v4(state: AppState, auth: ProjectAuth, query: Option<String>, what: &str) -> Result<Self, ApiError> {
        gate::v4(state.config.migration.allow_preview_opt_in, what)?;
        Ok(Self { state, project: auth.project.id, params: params(query) })
    }

    fn legacy(state: AppState, auth: ProjectAuth, query: Option<String>) -> Result<Self, ApiError> {
        gate::legacy(state.config.migration.write_mode)?;
        Ok(Self { state, project: auth.project.id, params: params(query) })
    }

    fn clickhouse(&self) -> &storage::clickhouse::ClickHouse {
        &self.state.stores.clickhouse
    }

    /// Completes observations as they are answered: the prices of the model each was priced with
    /// (the rows carry its id; the prices are in PostgreSQL), and the media they reference.
    async fn add_prices_and_media<T: Priced + MediaFields>(
        &self,
        headers: &HeaderMap,
        mut rows: Vec<&mut T>,
    ) -> Result<(), ApiError> {
        let ids = reads::model_prices::model_ids(rows.iter().map(|row| &**row));
        let prices = storage::models::prices_by_id(&self.state.stores.postgres, &self.project, &ids).await?;
        reads::model_prices::attach(rows.iter_mut().map(|row| &mut **row), &prices);
        self.attach_media(headers, rows).await
    }

    /// `mediaReferences` for the media an input, output or metadata references, with download
    /// URLs for this caller.
    async fn attach_media<T: MediaFields + ?Sized>(
        &self,
        headers: &HeaderMap,
        objects: Vec<&mut T>,
    ) -> Result<(), ApiError> {
        let fields = resources::media::OBSERVATION_FIELDS;
        super::media::attach_references(&self.state, headers, &self.project, objects, fields).await
    }
}

#[utoipa::path(
    get, path = "/api/public/v2/observations", tag = "observations", security(("basicAuth" = [])),
    params(ObservationsV2Query),
    responses(
        (status = 200, body = CursorPage<ObservationV2>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody, description = "Preview reads are off")
    )
)]
async fn observations_v2(
    State(s): State<AppState>,
    a: ProjectAuth,
    h: HeaderMap,
    RawQuery(q): RawQuery,
) -> Reply<CursorPage<ObservationV2>> {
    let r = Read::v4(s, a, q, "v2 observations API")?;
    let mut page = reads::observations::list(r.clickhouse(), &r.project, &r.params).await?;
    r.add_prices_and_media(&h, page.data.iter_mut().collect()).await?;
    Ok(Json(page))
}

#[utoipa::path(
    get, path = "/api/public/v3/scores", tag = "scores", security(("basicAuth" = [])), params(ScoresV3Query),
    responses(
        (status = 200, body = CursorPage<ScoreV3>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody, description = "Preview reads are off")
    )
)]
async fn scores_v3(
    State(s): State<AppState>,
    a: ProjectAuth,
    RawQuery(q): RawQuery,
) -> Reply<CursorPage<ScoreV3>> {
    let r = Read::v4(s, a, q, "v3 scores API")?;
    Ok(Json(reads::scores::v3::list(r.clickhouse(), &r.project, &r.params).await?))
}

#[utoipa::path(
    get, path = "/api/public/v2/metrics", tag = "metrics", security(("basicAuth" = [])), params(MetricsQuery),
    responses(
        (status = 200, body = MetricsBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "Preview reads are off")
    )
)]
async fn metrics_v2(State(s): State<AppState>, a: ProjectAuth, RawQuery(q): RawQuery) -> Reply<MetricsBody> {
    let r = Read::v4(s, a, q, "v2 metrics API")?;
    Ok(Json(reads::metrics::run(r.clickhouse(), &r.project, &r.params, reads::metrics::Version::V2).await?))
}

#[utoipa::path(
    get, path = "/api/public/experiments", tag = "experiments", security(("basicAuth" = [])),
    params(ExperimentsQuery),
    responses(
        (status = 200, body = CursorPage<Experiment>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody, description = "Preview reads are off")
    )
)]
async fn experiments(
    State(s): State<AppState>,
    a: ProjectAuth,
    RawQuery(q): RawQuery,
) -> Reply<CursorPage<Experiment>> {
    let r = Read::v4(s, a, q, "experiments API")?;
    Ok(Json(reads::experiments::list(r.clickhouse(), &r.project, &r.params).await?))
}

#[utoipa::path(
    get, path = "/api/public/experiment-items", tag = "experiments", security(("basicAuth" = [])),
    params(ExperimentItemsQuery),
    responses(
        (status = 200, body = CursorPage<ExperimentItem>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody, description = "Preview reads are off")
    )
)]
async fn experiment_items(
    State(s): State<AppState>,
    a: ProjectAuth,
    RawQuery(q): RawQuery,
) -> Reply<CursorPage<ExperimentItem>> {
    let r = Read::v4(s, a, q, "experiment items API")?;
    Ok(Json(reads::experiments::items(r.clickhouse(), &r.project, &r.params).await?))
}

#[utoipa::path(
    get, path = "/api/public/traces", tag = "traces", security(("basicAuth" = [])),
    params(PageQuery, TracesQuery),
    responses(
        (status = 200, body = Paged<TraceSummary>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody, description = "No v3 tables in `events_only`")
    )
)]
async fn traces(
    State(s): State<AppState>,
    a: ProjectAuth,
    RawQuery(q): RawQuery,
) -> Reply<Paged<TraceSummary>> {
    let r = Read::legacy(s, a, q)?;
    Ok(Json(reads::legacy::traces::list(r.clickhouse(), &r.project, &r.params).await?))
}

#[utoipa::path(
    get, path = "/api/public/traces/{traceId}", tag = "traces", security(("basicAuth" = [])),
    params(("traceId" = String, Path)),
    responses(
        (status = 200, body = TraceWithDetails), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn trace(
    State(s): State<AppState>,
    a: ProjectAuth,
    h: HeaderMap,
    Path(id): Path<String>,
) -> Reply<TraceWithDetails> {
    let r = Read::legacy(s, a, None)?;
    let mut trace = reads::legacy::traces::get(r.clickhouse(), &r.project, &id).await?;
    // The trace and its observations reference media alike.
    let mut observations = std::mem::take(&mut trace.observations);
    let mut objects: Vec<&mut (dyn MediaFields + Send)> = vec![&mut trace];
    objects.extend(observations.iter_mut().map(|o| o as &mut (dyn MediaFields + Send)));
    r.attach_media(&h, objects).await?;
    trace.observations = observations;
    Ok(Json(trace))
}

#[utoipa::path(
    get, path = "/api/public/observations", tag = "observations", security(("basicAuth" = [])),
    params(PageQuery, ObservationsQuery),
    responses(
        (status = 200, body = Paged<ObservationView>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody, description = "No v3 tables in `events_only`")
    )
)]
async fn observations(
    State(s): State<AppState>,
    a: ProjectAuth,
    h: HeaderMap,
    RawQuery(q): RawQuery,
) -> Reply<Paged<ObservationView>> {
    let r = Read::legacy(s, a, q)?;
    observation_list(r, &h, None).await
}

#[utoipa::path(
    get, path = "/api/public/observations/{observationId}", tag = "observations", security(("basicAuth" = [])),
    params(("observationId" = String, Path)),
    responses(
        (status = 200, body = ObservationView), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn observation(
    State(s): State<AppState>,
    a: ProjectAuth,
    h: HeaderMap,
    Path(id): Path<String>,
) -> Reply<ObservationView> {
    let r = Read::legacy(s, a, None)?;
    let mut observation = reads::legacy::observations::get(r.clickhouse(), &r.project, &id).await?;
    r.add_prices_and_media(&h, vec![&mut observation]).await?;
    Ok(Json(observation))
}

#[utoipa::path(
    get, path = "/api/public/spans", tag = "observations", security(("basicAuth" = [])),
    params(PageQuery, ObservationsQuery),
    responses(
        (status = 200, body = Paged<ObservationView>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody, description = "No v3 tables in `events_only`")
    )
)]
async fn spans(
    State(s): State<AppState>,
    a: ProjectAuth,
    h: HeaderMap,
    RawQuery(q): RawQuery,
) -> Reply<Paged<ObservationView>> {
    let r = Read::legacy(s, a, q)?;
    observation_list(r, &h, Some("SPAN")).await
}

#[utoipa::path(
    get, path = "/api/public/generations", tag = "observations", security(("basicAuth" = [])),
    params(PageQuery, ObservationsQuery),
    responses(
        (status = 200, body = Paged<ObservationView>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody, description = "No v3 tables in `events_only`")
    )
)]
async fn generations(
    State(s): State<AppState>,
    a: ProjectAuth,
    h: HeaderMap,
    RawQuery(q): RawQuery,
) -> Reply<Paged<ObservationView>> {
    let r = Read::legacy(s, a, q)?;
    observation_list(r, &h, Some("GENERATION")).await
}

/// A legacy observation list, of one type or of all.
async fn observation_list(r: Read, h: &HeaderMap, kind: Option<&str>) -> Reply<Paged<ObservationView>> {
    let mut page = reads::legacy::observations::list(r.clickhouse(), &r.project, &r.params, kind).await?;
    r.add_prices_and_media(h, page.data.iter_mut().collect()).await?;
    Ok(Json(page))
}

#[utoipa::path(
    get, path = "/api/public/sessions", tag = "sessions", security(("basicAuth" = [])),
    params(PageQuery, SessionsQuery),
    responses(
        (status = 200, body = Paged<Session>), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No v3 tables in `events_only`")
    )
)]
async fn sessions(State(s): State<AppState>, a: ProjectAuth, RawQuery(q): RawQuery) -> Reply<Paged<Session>> {
    let r = Read::legacy(s, a, q)?;
    Ok(Json(reads::legacy::sessions::list(r.clickhouse(), &r.project, &r.params).await?))
}

#[utoipa::path(
    get, path = "/api/public/sessions/{sessionId}", tag = "sessions", security(("basicAuth" = [])),
    params(("sessionId" = String, Path)),
    responses(
        (status = 200, body = SessionWithTraces), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn session(
    State(s): State<AppState>,
    a: ProjectAuth,
    Path(id): Path<String>,
) -> Reply<SessionWithTraces> {
    let r = Read::legacy(s, a, None)?;
    Ok(Json(reads::legacy::sessions::get(r.clickhouse(), &r.project, &id).await?))
}

#[utoipa::path(
    get, path = "/api/public/scores", tag = "scores", security(("basicAuth" = [])), params(PageQuery, ScoresQuery),
    responses(
        (status = 200, body = Paged<Score>, description = "v1 scores: each belongs to a trace"),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No v3 tables in `events_only`")
    )
)]
async fn scores_v1(State(s): State<AppState>, a: ProjectAuth, RawQuery(q): RawQuery) -> Reply<Paged<Score>> {
    let r = Read::legacy(s, a, q)?;
    Ok(Json(reads::scores::legacy::list(r.clickhouse(), &r.project, &r.params, ScoreVersion::V1).await?))
}

#[utoipa::path(
    get, path = "/api/public/scores/{scoreId}", tag = "scores", security(("basicAuth" = [])),
    params(("scoreId" = String, Path)),
    responses((status = 200, body = Score), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn score_v1(State(s): State<AppState>, a: ProjectAuth, Path(id): Path<String>) -> Reply<Score> {
    let r = Read::legacy(s, a, None)?;
    Ok(Json(reads::scores::legacy::get(r.clickhouse(), &r.project, &id, ScoreVersion::V1).await?))
}

#[derive(Serialize, ToSchema)]
struct ScoreDeleted {
    message: &'static str,
}

/// Scores are deleted in every write mode: they live in `scores` whichever model traces use.
#[utoipa::path(
    delete, path = "/api/public/scores/{scoreId}", tag = "scores", security(("basicAuth" = [])),
    params(("scoreId" = String, Path)),
    responses(
        (status = 200, body = ScoreDeleted), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 503, body = ErrorBody)
    )
)]
async fn delete_score(
    State(s): State<AppState>,
    a: ProjectAuth,
    Path(id): Path<String>,
) -> Reply<ScoreDeleted> {
    let now = chrono::Utc::now().timestamp_millis();
    if !storage::clickhouse::v3::delete_score(&s.stores.clickhouse, &a.project.id, &id, now).await? {
        return Err(ApiError::not_found(format!("Score {id} not found within authorized project")));
    }
    Ok(Json(ScoreDeleted { message: "Score deletion queued successfully" }))
}

#[utoipa::path(
    get, path = "/api/public/v2/scores", tag = "scores", security(("basicAuth" = [])), params(PageQuery, ScoresQuery),
    responses(
        (status = 200, body = Paged<Score>), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No v3 tables in `events_only`")
    )
)]
async fn scores_v2(State(s): State<AppState>, a: ProjectAuth, RawQuery(q): RawQuery) -> Reply<Paged<Score>> {
    let r = Read::legacy(s, a, q)?;
    Ok(Json(reads::scores::legacy::list(r.clickhouse(), &r.project, &r.params, ScoreVersion::V2).await?))
}

#[utoipa::path(
    get, path = "/api/public/v2/scores/{scoreId}", tag = "scores", security(("basicAuth" = [])),
    params(("scoreId" = String, Path)),
    responses((status = 200, body = Score), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn score_v2(State(s): State<AppState>, a: ProjectAuth, Path(id): Path<String>) -> Reply<Score> {
    let r = Read::legacy(s, a, None)?;
    Ok(Json(reads::scores::legacy::get(r.clickhouse(), &r.project, &id, ScoreVersion::V2).await?))
}

#[utoipa::path(
    get, path = "/api/public/metrics", tag = "metrics", security(("basicAuth" = [])), params(MetricsQuery),
    responses(
        (status = 200, body = MetricsBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No v3 tables in `events_only`")
    )
)]
async fn metrics_v1(State(s): State<AppState>, a: ProjectAuth, RawQuery(q): RawQuery) -> Reply<MetricsBody> {
    let r = Read::legacy(s, a, q)?;
    Ok(Json(reads::metrics::run(r.clickhouse(), &r.project, &r.params, reads::metrics::Version::V1).await?))
}

#[utoipa::path(
    get, path = "/api/public/metrics/daily", tag = "metrics", security(("basicAuth" = [])),
    params(PageQuery, DailyMetricsQuery),
    responses(
        (status = 200, body = Paged<Day>), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No v3 tables in `events_only`")
    )
)]
async fn metrics_daily(
    State(s): State<AppState>,
    a: ProjectAuth,
    RawQuery(q): RawQuery,
) -> Reply<Paged<Day>> {
    let r = Read::legacy(s, a, q)?;
    Ok(Json(reads::legacy::daily::list(r.clickhouse(), &r.project, &r.params).await?))
}
