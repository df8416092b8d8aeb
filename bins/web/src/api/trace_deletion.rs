//! `DELETE /api/public/traces/{traceId}` and `DELETE /api/public/traces` (`{"traceIds": [...]}`),
//! over `ingestion::deletion`: a 200 means no read returns the traces any more.

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::body::JsonBody;
use super::openapi::ErrorBody;
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(delete_many)).routes(routes!(delete_one))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TraceIds {
    /// 1 to 100,000 trace ids (upstream: 1000), each at most 800 characters.
    trace_ids: Vec<String>,
}

#[derive(Serialize, ToSchema)]
struct Deleted {
    message: &'static str,
}

#[utoipa::path(
    delete, path = "/api/public/traces/{traceId}", tag = "traces", security(("basicAuth" = [])),
    params(("traceId" = String, Path)),
    responses((status = 200, body = Deleted), (status = 401, body = ErrorBody), (status = 503, body = ErrorBody))
)]
async fn delete_one(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
) -> Result<Json<Deleted>, ApiError> {
    delete(&state, &auth, &[id]).await?;
    Ok(Json(Deleted { message: "Trace deleted successfully" }))
}

#[utoipa::path(
    delete, path = "/api/public/traces", tag = "traces", security(("basicAuth" = [])), request_body = TraceIds,
    responses(
        (status = 200, body = Deleted), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 503, body = ErrorBody)
    )
)]
async fn delete_many(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(body): JsonBody<TraceIds>,
) -> Result<Json<Deleted>, ApiError> {
    delete(&state, &auth, &body.trace_ids).await?;
    Ok(Json(Deleted { message: "Traces deleted successfully" }))
}

async fn delete(state: &AppState, auth: &ProjectAuth, trace_ids: &[String]) -> Result<(), ApiError> {
    let (queue, clickhouse) = (state.stores.ingestion_queue(), &state.stores.clickhouse);
    Ok(ingestion::deletion::delete_traces(&queue, clickhouse, &auth.project.id, trace_ids).await?)
}
