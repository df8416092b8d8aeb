//! `DELETE /api/public/traces/{traceId}` and `DELETE /api/public/traces` (`{"traceIds": [...]}`).
//!
//! The deletion is done before the answer, not queued: a 200 means no read returns the traces any
//! more, and a failure is a 503 the client retries (deleting is idempotent). Spans acknowledged
//! before the deletion but still in the ingestion queue are dropped by the worker (its
//! `process::deleted`); spans accepted after it are new data and are stored.

use axum::extract::{Path, State};
use axum::routing::delete;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use super::body::JsonBody;
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

/// The most trace ids one request may delete, as upstream.
const MAX_TRACE_IDS: usize = 1000;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/public/traces", delete(delete_many))
        .route("/api/public/traces/{id}", delete(delete_one))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TraceIds {
    trace_ids: Vec<String>,
}

async fn delete_one(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    delete_now(&state, &auth, &[id]).await?;
    Ok(Json(json!({"message": "Trace deleted successfully"})))
}

async fn delete_many(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(body): JsonBody<TraceIds>,
) -> Result<Json<Value>, ApiError> {
    let count = body.trace_ids.len();
    if !(1..=MAX_TRACE_IDS).contains(&count) {
        return Err(ApiError::bad_request(format!(
            "traceIds must hold between 1 and {MAX_TRACE_IDS} ids; it holds {count}"
        )));
    }
    if body.trace_ids.iter().any(String::is_empty) {
        return Err(ApiError::bad_request("traceIds must not contain an empty id"));
    }
    delete_now(&state, &auth, &body.trace_ids).await?;
    Ok(Json(json!({"message": "Traces deleted successfully"})))
}

async fn delete_now(state: &AppState, auth: &ProjectAuth, trace_ids: &[String]) -> Result<(), ApiError> {
    // First the mark, so that a payload acknowledged before this moment and still queued is
    // dropped by the worker instead of bringing the trace back after the DELETE below.
    let now = chrono::Utc::now().timestamp_micros();
    state.stores.ingestion_queue().mark_deleted(&auth.project.id, trace_ids, now).await?;
    storage::clickhouse::delete_traces(&state.stores.clickhouse, &auth.project.id, trace_ids).await?;
    tracing::info!(project = %auth.project.id, traces = trace_ids.len(), "traces deleted");
    Ok(())
}
