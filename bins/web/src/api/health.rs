//! `GET /api/public/health` and `/api/public/ready`: unauthenticated, for load balancers.

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new().route("/api/public/health", get(health)).route("/api/public/ready", get(ready))
}

const VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HealthParams {
    #[serde(default)]
    fail_if_database_unavailable: bool,
}

async fn health(
    State(state): State<AppState>,
    Query(params): Query<HealthParams>,
) -> (StatusCode, Json<Value>) {
    if params.fail_if_database_unavailable
        && let Err(error) = storage::postgres::check(&state.stores.postgres).await
    {
        tracing::warn!(%error, "health check: database unavailable");
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({ "status": "Database not available", "version": VERSION })),
        );
    }
    (StatusCode::OK, Json(json!({ "status": "OK", "version": VERSION })))
}

async fn ready() -> Json<Value> {
    Json(json!({ "status": "OK", "version": VERSION }))
}
