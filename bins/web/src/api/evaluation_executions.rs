//! A rule's executions (`GET /api/public/v2/evaluation-rules/{id}/executions`, Loupe's): a thin
//! handler over `evaluation::executions`, read by the Evaluators page (docs/evaluators.md).

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use evaluation::executions::{self, ExecutionBody};
use evaluation::page::{self, CursorPage};

use super::evaluators::{EvalError, PublicApiError, authorized};
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list))
}

#[utoipa::path(
    get, path = "/api/public/v2/evaluation-rules/{evaluationRuleId}/executions",
    operation_id = "evaluationRules_listExecutions", tag = "evaluation-rules", security(("basicAuth" = [])),
    params(
        ("evaluationRuleId" = String, Path), ("limit" = Option<i64>, Query), ("cursor" = Option<String>, Query),
        ("status" = Option<String>, Query, description = "pending, running, completed, error or cancelled")
    ),
    responses(
        (status = 200, body = CursorPage<ExecutionBody>), (status = 400, body = PublicApiError),
        (status = 401, body = PublicApiError), (status = 404, body = PublicApiError)
    )
)]
async fn list(
    State(state): State<AppState>,
    auth: Result<ProjectAuth, ApiError>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<CursorPage<ExecutionBody>>, EvalError> {
    let auth = authorized(auth)?;
    let page = page::parse_query(query.as_deref())?;
    let status = executions::parse_status(query.as_deref())?;
    let db = &state.stores.postgres;
    Ok(Json(executions::list(db, &auth.project.id, &id, status.as_deref(), &page).await?))
}
