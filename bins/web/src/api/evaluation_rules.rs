//! Evaluation rules (`/api/public/v2/evaluation-rules…`): thin handlers over `evaluation::rules`,
//! plus Loupe's runs of a rule over a time range (`…/{id}/runs`, docs/evaluators.md).

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use bytes::Bytes;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use evaluation::evaluators::Deleted;
use evaluation::page::{self, CursorPage};
use evaluation::rules::{self, RuleBody};
use evaluation::runs::{self, RunBody};

use super::evaluators::{EvalError, PublicApiError, authorized, json};
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(fetch, update, remove))
        .routes(routes!(start_run))
        .routes(routes!(get_run))
}

#[utoipa::path(
    post, path = "/api/public/v2/evaluation-rules", operation_id = "evaluationRules_create",
    tag = "evaluation-rules", security(("basicAuth" = [])), request_body(content = Object),
    responses(
        (status = 200, body = RuleBody), (status = 400, body = PublicApiError),
        (status = 401, body = PublicApiError), (status = 404, body = PublicApiError)
    )
)]
async fn create(
    State(state): State<AppState>,
    auth: Result<ProjectAuth, ApiError>,
    body: Bytes,
) -> Result<Json<RuleBody>, EvalError> {
    let auth = authorized(auth)?;
    let body = json(&body)?;
    let mode = state.config.migration.write_mode;
    Ok(Json(
        rules::create(&state.stores.postgres, &auth.project.id, auth.user_id.as_deref(), &body, mode).await?,
    ))
}

#[utoipa::path(
    get, path = "/api/public/v2/evaluation-rules", operation_id = "evaluationRules_list",
    tag = "evaluation-rules", security(("basicAuth" = [])),
    params(("limit" = Option<i64>, Query), ("cursor" = Option<String>, Query)),
    responses((status = 200, body = CursorPage<RuleBody>), (status = 400, body = PublicApiError), (status = 401, body = PublicApiError))
)]
async fn list(
    State(state): State<AppState>,
    auth: Result<ProjectAuth, ApiError>,
    RawQuery(query): RawQuery,
) -> Result<Json<CursorPage<RuleBody>>, EvalError> {
    let auth = authorized(auth)?;
    let query = page::parse_query(query.as_deref())?;
    let mode = state.config.migration.write_mode;
    Ok(Json(rules::list(&state.stores.postgres, &auth.project.id, &query, mode).await?))
}

#[utoipa::path(
    get, path = "/api/public/v2/evaluation-rules/{evaluationRuleId}", operation_id = "evaluationRules_get",
    tag = "evaluation-rules", security(("basicAuth" = [])),
    params(("evaluationRuleId" = String, Path)),
    responses((status = 200, body = RuleBody), (status = 401, body = PublicApiError), (status = 404, body = PublicApiError))
)]
async fn fetch(
    State(state): State<AppState>,
    auth: Result<ProjectAuth, ApiError>,
    Path(id): Path<String>,
) -> Result<Json<RuleBody>, EvalError> {
    let auth = authorized(auth)?;
    Ok(Json(
        rules::get(&state.stores.postgres, &auth.project.id, &id, state.config.migration.write_mode).await?,
    ))
}

#[utoipa::path(
    patch, path = "/api/public/v2/evaluation-rules/{evaluationRuleId}", operation_id = "evaluationRules_update",
    tag = "evaluation-rules", security(("basicAuth" = [])),
    params(("evaluationRuleId" = String, Path)), request_body(content = Object),
    responses(
        (status = 200, body = RuleBody), (status = 400, body = PublicApiError),
        (status = 401, body = PublicApiError), (status = 404, body = PublicApiError)
    )
)]
async fn update(
    State(state): State<AppState>,
    auth: Result<ProjectAuth, ApiError>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<RuleBody>, EvalError> {
    let auth = authorized(auth)?;
    let body = json(&body)?;
    let mode = state.config.migration.write_mode;
    Ok(Json(rules::update(&state.stores.postgres, &auth.project.id, &id, &body, mode).await?))
}

#[utoipa::path(
    delete, path = "/api/public/v2/evaluation-rules/{evaluationRuleId}", operation_id = "evaluationRules_delete",
    tag = "evaluation-rules", security(("basicAuth" = [])),
    params(("evaluationRuleId" = String, Path)),
    responses((status = 200, body = Deleted), (status = 401, body = PublicApiError), (status = 404, body = PublicApiError))
)]
async fn remove(
    State(state): State<AppState>,
    auth: Result<ProjectAuth, ApiError>,
    Path(id): Path<String>,
) -> Result<Json<Deleted>, EvalError> {
    let auth = authorized(auth)?;
    Ok(Json(rules::delete(&state.stores.postgres, &auth.project.id, &id).await?))
}

#[utoipa::path(
    post, path = "/api/public/v2/evaluation-rules/{evaluationRuleId}/runs", operation_id = "evaluationRules_startRun",
    tag = "evaluation-rules", security(("basicAuth" = [])),
    params(("evaluationRuleId" = String, Path)), request_body(content = Object),
    responses(
        (status = 200, body = RunBody), (status = 400, body = PublicApiError),
        (status = 401, body = PublicApiError), (status = 404, body = PublicApiError)
    )
)]
async fn start_run(
    State(state): State<AppState>,
    auth: Result<ProjectAuth, ApiError>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<RunBody>, EvalError> {
    let auth = authorized(auth)?;
    let body = json(&body)?;
    Ok(Json(runs::create(&state.stores.postgres, &auth.project.id, &id, &body).await?))
}

#[utoipa::path(
    get, path = "/api/public/v2/evaluation-rules/{evaluationRuleId}/runs/{runId}", operation_id = "evaluationRules_getRun",
    tag = "evaluation-rules", security(("basicAuth" = [])),
    params(("evaluationRuleId" = String, Path), ("runId" = String, Path)),
    responses((status = 200, body = RunBody), (status = 401, body = PublicApiError), (status = 404, body = PublicApiError))
)]
async fn get_run(
    State(state): State<AppState>,
    auth: Result<ProjectAuth, ApiError>,
    Path((id, run)): Path<(String, String)>,
) -> Result<Json<RunBody>, EvalError> {
    let auth = authorized(auth)?;
    Ok(Json(runs::get(&state.stores.postgres, &auth.project.id, &id, &run).await?))
}
