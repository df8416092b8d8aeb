//! The trace panel of the UI, under `/api/ui/projects/{projectId}/…` (docs/identity.md, "The UI's
//! JSON API"): a trace's whole tree, one observation's detail with bounded previews of its large
//! values and a value in full, and a person's own scores and comments (create, edit, delete).
//! Reading needs access to the project; writing `ProjectWrite`, and changing a score or comment
//! being its author (403 otherwise). Scores go through the ingestion service as the SDKs' do, so
//! score configs apply and the worker stores them; their author is the signed-in person.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::http::header::{CONTENT_TYPE, HeaderValue};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use domain::identity::Action;
use ingestion::service::IngestionService;
use reads::trace_view::detail::{self, Field, FullValue, ObservationDetail};
use reads::trace_view::tree::{self, TraceTree};
use reads::trace_view::{Model, scores as stored_scores};
use resources::comments::{self, Comment, Owned};
use resources::identity::people;

use super::body::JsonBody;
use super::openapi::ErrorBody;
use super::query::params;
use crate::error::ApiError;
use crate::session::UserSession;
use crate::state::AppState;

/// A score's comment is at most this long (as a comment's content).
const MAX_SCORE_COMMENT_CHARS: usize = comments::MAX_CONTENT_CHARS;

pub fn routes() -> OpenApiRouter<AppState> {
    let reads = OpenApiRouter::new()
        .routes(routes!(trace_tree))
        .routes(routes!(observation_detail))
        .routes(routes!(observation_value));
    super::compress::large_json(reads)
        .routes(routes!(score_create))
        .routes(routes!(score_update, score_delete))
        .routes(routes!(comment_update, comment_delete))
}

/// The model a read of this request uses (`model=v3|v4`), checked against the write mode.
fn model(state: &AppState, query: &reads::Params) -> Result<Model, ApiError> {
    let migration = &state.config.migration;
    Ok(Model::chosen(query.get("model"), migration.write_mode, migration.allow_preview_opt_in)?)
}

/// Every observation of the trace, columnar (no input, output or metadata; no cap).
#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/traces/{traceId}/tree", tag = "ui", security(("sessionCookie" = [])),
    params(
        ("projectId" = String, Path), ("traceId" = String, Path),
        ("model" = Option<String>, Query, description = "`v3` or `v4`; by default the write mode's own")
    ),
    responses(
        (status = 200, body = TraceTree), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn trace_tree(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, trace_id)): Path<(String, String)>,
    RawQuery(query): RawQuery,
) -> Result<Json<TraceTree>, ApiError> {
    people::on_project(&state.stores.postgres, &session.user.id, &project_id).await?;
    let model = model(&state, &params(query))?;
    Ok(Json(tree::tree(&state.stores.clickhouse, &project_id, &trace_id, model).await?))
}

/// One observation: everything but its large values, which are previews (`previewChars`, default
/// 65 536, at most 1 048 576 characters; each metadata value a quarter of that), and its scores.
#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/traces/{traceId}/observations/{observationId}", tag = "ui",
    security(("sessionCookie" = [])),
    params(
        ("projectId" = String, Path), ("traceId" = String, Path), ("observationId" = String, Path),
        ("model" = Option<String>, Query, description = "`v3` or `v4`"),
        ("previewChars" = Option<i64>, Query, description = "1 to 1 048 576; 65 536 by default")
    ),
    responses(
        (status = 200, body = ObservationDetail), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn observation_detail(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, trace_id, observation_id)): Path<(String, String, String)>,
    RawQuery(query): RawQuery,
) -> Result<Json<ObservationDetail>, ApiError> {
    people::on_project(&state.stores.postgres, &session.user.id, &project_id).await?;
    let query = params(query);
    let model = model(&state, &query)?;
    let max = detail::MAX_PREVIEW_CHARS as i64;
    let chars = query.int("previewChars", detail::DEFAULT_PREVIEW_CHARS as i64, 1, max)?;
    let chars = usize::try_from(chars).unwrap_or(detail::DEFAULT_PREVIEW_CHARS);
    let clickhouse = &state.stores.clickhouse;
    Ok(Json(detail::detail(clickhouse, &project_id, &trace_id, &observation_id, model, chars).await?))
}

/// One large value whole: the stored text of `input` or `output` (`text/plain`, JSON or not, as
/// stored), or the `metadata` object (`application/json`).
#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/traces/{traceId}/observations/{observationId}/value", tag = "ui",
    security(("sessionCookie" = [])),
    params(
        ("projectId" = String, Path), ("traceId" = String, Path), ("observationId" = String, Path),
        ("field" = String, Query, description = "`input`, `output` or `metadata`"),
        ("model" = Option<String>, Query, description = "`v3` or `v4`")
    ),
    responses(
        (status = 200, content_type = "text/plain", body = String), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn observation_value(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, trace_id, observation_id)): Path<(String, String, String)>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    people::on_project(&state.stores.postgres, &session.user.id, &project_id).await?;
    let query = params(query);
    let model = model(&state, &query)?;
    let field = Field::parse(query.get("field").unwrap_or_default())?;
    let clickhouse = &state.stores.clickhouse;
    let value = detail::full_value(clickhouse, &project_id, &trace_id, &observation_id, model, field).await?;
    let (content_type, body) = match value {
        FullValue::Text(text) => ("text/plain; charset=utf-8", Bytes::from(text)),
        FullValue::Metadata(object) => {
            let json = serde_json::to_vec(&object).map_err(|e| ApiError::internal(e.to_string()))?;
            ("application/json", Bytes::from(json))
        }
    };
    Ok(([(CONTENT_TYPE, HeaderValue::from_static(content_type))], body).into_response())
}

/// A score from the detail panel: of a config of the project (its name and data type are the
/// config's), on the trace (its root) or on one observation.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct NewScore {
    trace_id: String,
    /// Absent: a score of the trace, shown on its root observation.
    observation_id: Option<String>,
    config_id: String,
    /// A number (NUMERIC within the config's range; BOOLEAN 0 or 1), or a category label.
    #[schema(value_type = Object)]
    value: Value,
    /// At most 5 000 characters.
    comment: Option<String>,
    /// The trace's environment; `default` when absent.
    environment: Option<String>,
}

/// A change to a person's own score: its value, and its comment (`null` or absent clears it).
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ScoreChange {
    #[schema(value_type = Object)]
    value: Value,
    comment: Option<String>,
}

#[derive(Serialize, ToSchema)]
struct ScoreId {
    id: String,
}

fn checked_comment(comment: Option<String>) -> Result<Option<String>, ApiError> {
    let comment = comment.filter(|c| !c.trim().is_empty());
    if comment.as_ref().is_some_and(|c| c.chars().count() > MAX_SCORE_COMMENT_CHARS) {
        return Err(ApiError::bad_request(format!(
            "comment must be at most {MAX_SCORE_COMMENT_CHARS} characters"
        )));
    }
    Ok(comment)
}

/// Sends one score through the ingestion service as `session`'s person: configs checked, stored by
/// the worker like any other score.
async fn ingest_score(
    state: &AppState,
    project_id: &str,
    user_id: &str,
    score: Map<String, Value>,
) -> Result<(), ApiError> {
    let sender = IngestionService::person_sender(project_id, user_id);
    let body = serde_json::to_vec(&score).map_err(|e| ApiError::internal(e.to_string()))?;
    state.ingestion.scores(&sender, Bytes::from(body)).await?;
    Ok(())
}

/// Adds a score (201 with its id). The worker stores it moments later; the detail shows it then.
#[utoipa::path(
    post, path = "/api/ui/projects/{projectId}/scores", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path)), request_body = NewScore,
    responses(
        (status = 201, body = ScoreId), (status = 400, body = ErrorBody, description = "The value breaks the config"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No such project, or no such score config"),
        (status = 503, body = ErrorBody)
    )
)]
async fn score_create(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    JsonBody(new): JsonBody<NewScore>,
) -> Result<(StatusCode, Json<ScoreId>), ApiError> {
    people::on_project(&state.stores.postgres, &session.user.id, &project_id)
        .await?
        .require(Action::ProjectWrite)?;
    let comment = checked_comment(new.comment)?;
    let id = uuid::Uuid::new_v4().to_string();
    let mut score = Map::new();
    score.insert("id".into(), json!(id));
    // The config renames the score to its own name when it is fitted (`domain::score_config::fit`).
    score.insert("name".into(), json!(new.config_id));
    score.insert("traceId".into(), json!(new.trace_id));
    if let Some(observation) = new.observation_id.filter(|o| !o.is_empty()) {
        score.insert("observationId".into(), json!(observation));
    }
    score.insert("configId".into(), json!(new.config_id));
    score.insert("value".into(), new.value);
    score.insert("source".into(), json!("ANNOTATION"));
    if let Some(comment) = comment {
        score.insert("comment".into(), json!(comment));
    }
    if let Some(environment) = new.environment.filter(|e| !e.is_empty()) {
        score.insert("environment".into(), json!(environment));
    }
    ingest_score(&state, &project_id, &session.user.id, score).await?;
    Ok((StatusCode::CREATED, Json(ScoreId { id })))
}

/// The stored score `score_id` when `user_id` wrote it: 404 when there is none, 403 when it is
/// someone else's (or an API client's).
async fn own_score(
    state: &AppState,
    project_id: &str,
    score_id: &str,
    user_id: &str,
) -> Result<stored_scores::StoredScore, ApiError> {
    let score = stored_scores::stored(&state.stores.clickhouse, project_id, score_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Score not found within authorized project"))?;
    if score.author_user_id.as_deref() != Some(user_id) {
        return Err(ApiError::forbidden("Only the author of a score can change it"));
    }
    Ok(score)
}

/// Changes the value or comment of the person's own score; its name, subject, config and time stay.
#[utoipa::path(
    put, path = "/api/ui/projects/{projectId}/scores/{scoreId}", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path), ("scoreId" = String, Path)), request_body = ScoreChange,
    responses(
        (status = 200, body = ScoreId), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "A VIEWER, or not the score's author"),
        (status = 404, body = ErrorBody), (status = 503, body = ErrorBody)
    )
)]
async fn score_update(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, score_id)): Path<(String, String)>,
    JsonBody(change): JsonBody<ScoreChange>,
) -> Result<Json<ScoreId>, ApiError> {
    people::on_project(&state.stores.postgres, &session.user.id, &project_id)
        .await?
        .require(Action::ProjectWrite)?;
    let comment = checked_comment(change.comment)?;
    let stored = own_score(&state, &project_id, &score_id, &session.user.id).await?;
    let mut score = Map::new();
    score.insert("id".into(), json!(stored.id));
    score.insert("name".into(), json!(stored.name));
    for (key, value) in [
        ("traceId", stored.trace_id),
        ("observationId", stored.observation_id),
        ("sessionId", stored.session_id),
        ("datasetRunId", stored.dataset_run_id),
        ("configId", stored.config_id),
        ("comment", comment),
    ] {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            score.insert(key.into(), json!(value));
        }
    }
    score.insert("dataType".into(), json!(stored.data_type));
    score.insert("value".into(), change.value);
    score.insert("source".into(), json!(stored.source));
    score.insert("environment".into(), json!(stored.environment));
    score.insert("timestamp".into(), json!(stored.timestamp));
    if stored.metadata.as_object().is_some_and(|m| !m.is_empty()) {
        score.insert("metadata".into(), stored.metadata);
    }
    ingest_score(&state, &project_id, &session.user.id, score).await?;
    Ok(Json(ScoreId { id: score_id }))
}

/// Deletes the person's own score.
#[utoipa::path(
    delete, path = "/api/ui/projects/{projectId}/scores/{scoreId}", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path), ("scoreId" = String, Path)),
    responses(
        (status = 204), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "A VIEWER, or not the score's author"),
        (status = 404, body = ErrorBody), (status = 503, body = ErrorBody)
    )
)]
async fn score_delete(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, score_id)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    people::on_project(&state.stores.postgres, &session.user.id, &project_id)
        .await?
        .require(Action::ProjectWrite)?;
    own_score(&state, &project_id, &score_id, &session.user.id).await?;
    // One millisecond on: an edit accepted in this same millisecond and still queued must not win
    // the tie (versions are the acceptance time, in milliseconds), or it would bring the score back.
    let now = chrono::Utc::now().timestamp_millis() + 1;
    if !storage::clickhouse::v3::delete_score(&state.stores.clickhouse, &project_id, &score_id, now).await? {
        return Err(ApiError::not_found("Score not found within authorized project"));
    }
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct CommentChange {
    /// At most 5 000 characters.
    content: String,
}

fn owned<T>(outcome: Owned<T>) -> Result<T, ApiError> {
    match outcome {
        Owned::Done(value) => Ok(value),
        Owned::NotFound => Err(ApiError::not_found("Comment not found within authorized project")),
        Owned::NotTheAuthor => Err(ApiError::forbidden("Only the author of a comment can change it")),
    }
}

/// Replaces the text of the person's own comment.
#[utoipa::path(
    put, path = "/api/ui/projects/{projectId}/comments/{commentId}", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path), ("commentId" = String, Path)), request_body = CommentChange,
    responses(
        (status = 200, body = Comment), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "A VIEWER, or not the comment's author"),
        (status = 404, body = ErrorBody)
    )
)]
async fn comment_update(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, comment_id)): Path<(String, String)>,
    JsonBody(change): JsonBody<CommentChange>,
) -> Result<Json<Comment>, ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?.require(Action::ProjectWrite)?;
    let outcome =
        comments::update_own(pool, &project_id, &comment_id, &session.user.id, &change.content).await?;
    Ok(Json(owned(outcome)?))
}

/// Deletes the person's own comment.
#[utoipa::path(
    delete, path = "/api/ui/projects/{projectId}/comments/{commentId}", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path), ("commentId" = String, Path)),
    responses(
        (status = 204), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "A VIEWER, or not the comment's author"),
        (status = 404, body = ErrorBody)
    )
)]
async fn comment_delete(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, comment_id)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?.require(Action::ProjectWrite)?;
    owned(comments::delete_own(pool, &project_id, &comment_id, &session.user.id).await?)?;
    Ok(StatusCode::NO_CONTENT)
}
