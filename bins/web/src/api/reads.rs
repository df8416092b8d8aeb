//! The read APIs: thin handlers over the `reads` crate. The v4 reads answer when the preview
//! opt-in is on; the legacy reads while the v3 tables are written (404 in `events_only`). Score
//! deletion lives here too, as the second method of the score read's path.

use axum::Json;
use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::routing::get;
use serde_json::{Map, Value};

use reads::{Params, gate};

use super::query::params;

use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

type Reply = Result<Json<Value>, ApiError>;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/public/v2/observations", get(observations_v2))
        .route("/api/public/v3/scores", get(scores_v3))
        .route("/api/public/v2/metrics", get(metrics_v2))
        .route("/api/public/experiments", get(experiments))
        .route("/api/public/experiment-items", get(experiment_items))
        .route("/api/public/traces", get(traces))
        .route("/api/public/traces/{traceId}", get(trace))
        .route("/api/public/observations", get(observations))
        .route("/api/public/observations/{id}", get(observation))
        .route("/api/public/spans", get(spans))
        .route("/api/public/generations", get(generations))
        .route("/api/public/sessions", get(sessions))
        .route("/api/public/sessions/{id}", get(session))
        .route("/api/public/scores", get(scores_v1))
        .route("/api/public/scores/{id}", get(score_v1).delete(delete_score))
        .route("/api/public/v2/scores", get(scores_v2))
        .route("/api/public/v2/scores/{id}", get(score_v2))
        .route("/api/public/metrics", get(metrics_v1))
        .route("/api/public/metrics/daily", get(metrics_daily))
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

    /// Observations as they are answered: with the prices of the model each was priced with (the
    /// rows carry its id; the prices are in PostgreSQL), and the media they reference.
    async fn observations_body(&self, headers: &HeaderMap, mut body: Value) -> Reply {
        let ids = reads::model_prices::model_ids(&mut body);
        let prices = storage::models::prices_by_id(&self.state.stores.postgres, &self.project, &ids).await?;
        reads::model_prices::attach(&mut body, &prices);
        self.attach_media(headers, reads::render::rows_mut(&mut body)).await?;
        Ok(Json(body))
    }

    /// `mediaReferences` for the media an input, output or metadata references, with download
    /// URLs for this caller.
    async fn attach_media(
        &self,
        headers: &HeaderMap,
        objects: Vec<&mut Map<String, Value>>,
    ) -> Result<(), ApiError> {
        let fields = resources::media::OBSERVATION_FIELDS;
        super::media::attach_references(&self.state, headers, &self.project, objects, fields).await
    }
}

async fn observations_v2(
    State(s): State<AppState>,
    a: ProjectAuth,
    h: HeaderMap,
    RawQuery(q): RawQuery,
) -> Reply {
    let r = Read::v4(s, a, q, "v2 observations API")?;
    r.observations_body(&h, reads::observations::list(r.clickhouse(), &r.project, &r.params).await?).await
}

async fn scores_v3(State(s): State<AppState>, a: ProjectAuth, RawQuery(q): RawQuery) -> Reply {
    let r = Read::v4(s, a, q, "v3 scores API")?;
    Ok(Json(reads::scores::v3::list(r.clickhouse(), &r.project, &r.params).await?))
}

async fn metrics_v2(State(s): State<AppState>, a: ProjectAuth, RawQuery(q): RawQuery) -> Reply {
    let r = Read::v4(s, a, q, "v2 metrics API")?;
    Ok(Json(reads::metrics::run(r.clickhouse(), &r.project, &r.params, reads::metrics::Version::V2).await?))
}

async fn experiments(State(s): State<AppState>, a: ProjectAuth, RawQuery(q): RawQuery) -> Reply {
    let r = Read::v4(s, a, q, "experiments API")?;
    Ok(Json(reads::experiments::list(r.clickhouse(), &r.project, &r.params).await?))
}

async fn experiment_items(State(s): State<AppState>, a: ProjectAuth, RawQuery(q): RawQuery) -> Reply {
    let r = Read::v4(s, a, q, "experiment items API")?;
    Ok(Json(reads::experiments::items(r.clickhouse(), &r.project, &r.params).await?))
}

async fn traces(State(s): State<AppState>, a: ProjectAuth, RawQuery(q): RawQuery) -> Reply {
    let r = Read::legacy(s, a, q)?;
    Ok(Json(reads::legacy::traces::list(r.clickhouse(), &r.project, &r.params).await?))
}

async fn trace(State(s): State<AppState>, a: ProjectAuth, h: HeaderMap, Path(id): Path<String>) -> Reply {
    let r = Read::legacy(s, a, None)?;
    let mut trace = reads::legacy::traces::get(r.clickhouse(), &r.project, &id).await?;
    // The trace and its observations reference media alike.
    let mut observations = trace.get_mut("observations").map(Value::take).unwrap_or_default();
    let mut objects = reads::render::rows_mut(&mut trace);
    objects.extend(reads::render::objects_mut(&mut observations));
    r.attach_media(&h, objects).await?;
    trace["observations"] = observations;
    Ok(Json(trace))
}

async fn observations(
    State(s): State<AppState>,
    a: ProjectAuth,
    h: HeaderMap,
    RawQuery(q): RawQuery,
) -> Reply {
    let r = Read::legacy(s, a, q)?;
    let body = reads::legacy::observations::list(r.clickhouse(), &r.project, &r.params, None).await?;
    r.observations_body(&h, body).await
}

async fn observation(
    State(s): State<AppState>,
    a: ProjectAuth,
    h: HeaderMap,
    Path(id): Path<String>,
) -> Reply {
    let r = Read::legacy(s, a, None)?;
    r.observations_body(&h, reads::legacy::observations::get(r.clickhouse(), &r.project, &id).await?).await
}

async fn spans(State(s): State<AppState>, a: ProjectAuth, h: HeaderMap, RawQuery(q): RawQuery) -> Reply {
    let r = Read::legacy(s, a, q)?;
    let body = reads::legacy::observations::list(r.clickhouse(), &r.project, &r.params, Some("SPAN")).await?;
    r.observations_body(&h, body).await
}

async fn generations(
    State(s): State<AppState>,
    a: ProjectAuth,
    h: HeaderMap,
    RawQuery(q): RawQuery,
) -> Reply {
    let r = Read::legacy(s, a, q)?;
    let kind = Some("GENERATION");
    let body = reads::legacy::observations::list(r.clickhouse(), &r.project, &r.params, kind).await?;
    r.observations_body(&h, body).await
}

async fn sessions(State(s): State<AppState>, a: ProjectAuth, RawQuery(q): RawQuery) -> Reply {
    let r = Read::legacy(s, a, q)?;
    Ok(Json(reads::legacy::sessions::list(r.clickhouse(), &r.project, &r.params).await?))
}

async fn session(State(s): State<AppState>, a: ProjectAuth, Path(id): Path<String>) -> Reply {
    let r = Read::legacy(s, a, None)?;
    Ok(Json(reads::legacy::sessions::get(r.clickhouse(), &r.project, &id).await?))
}

async fn scores_v1(State(s): State<AppState>, a: ProjectAuth, RawQuery(q): RawQuery) -> Reply {
    let r = Read::legacy(s, a, q)?;
    let version = reads::scores::legacy::Version::V1;
    Ok(Json(reads::scores::legacy::list(r.clickhouse(), &r.project, &r.params, version).await?))
}

async fn score_v1(State(s): State<AppState>, a: ProjectAuth, Path(id): Path<String>) -> Reply {
    let r = Read::legacy(s, a, None)?;
    let version = reads::scores::legacy::Version::V1;
    Ok(Json(reads::scores::legacy::get(r.clickhouse(), &r.project, &id, version).await?))
}

/// Scores are deleted in every write mode: they live in `scores` whichever model traces use.
async fn delete_score(State(s): State<AppState>, a: ProjectAuth, Path(id): Path<String>) -> Reply {
    let now = chrono::Utc::now().timestamp_millis();
    if !storage::clickhouse::legacy::delete_score(&s.stores.clickhouse, &a.project.id, &id, now).await? {
        return Err(ApiError::not_found(format!("Score {id} not found within authorized project")));
    }
    Ok(Json(serde_json::json!({"message": "Score deletion queued successfully"})))
}

async fn scores_v2(State(s): State<AppState>, a: ProjectAuth, RawQuery(q): RawQuery) -> Reply {
    let r = Read::legacy(s, a, q)?;
    let version = reads::scores::legacy::Version::V2;
    Ok(Json(reads::scores::legacy::list(r.clickhouse(), &r.project, &r.params, version).await?))
}

async fn score_v2(State(s): State<AppState>, a: ProjectAuth, Path(id): Path<String>) -> Reply {
    let r = Read::legacy(s, a, None)?;
    let version = reads::scores::legacy::Version::V2;
    Ok(Json(reads::scores::legacy::get(r.clickhouse(), &r.project, &id, version).await?))
}

async fn metrics_v1(State(s): State<AppState>, a: ProjectAuth, RawQuery(q): RawQuery) -> Reply {
    let r = Read::legacy(s, a, q)?;
    Ok(Json(reads::metrics::run(r.clickhouse(), &r.project, &r.params, reads::metrics::Version::V1).await?))
}

async fn metrics_daily(State(s): State<AppState>, a: ProjectAuth, RawQuery(q): RawQuery) -> Reply {
    let r = Read::legacy(s, a, q)?;
    Ok(Json(reads::legacy::daily::list(r.clickhouse(), &r.project, &r.params).await?))
}
