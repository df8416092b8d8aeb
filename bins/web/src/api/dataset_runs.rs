//! Dataset runs and run items (`/api/public/datasets/{name}/runs…`, `/api/public/dataset-run-items`):
//! the v3 experiment model. They answer while the v3 tables are written (`legacy`, `dual`) and are
//! 404 with upstream's message in `events_only` (spec 4.1), where experiments go through OTLP and
//! the experiments API instead.

use axum::extract::{Path, RawQuery, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::Value;

use reads::gate;
use resources::datasets::{self, NewRunItem};

use super::body::JsonBody;
use super::query::params;
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

type Reply = Result<Json<Value>, ApiError>;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/public/datasets/{name}/runs", get(list_runs))
        .route("/api/public/datasets/{name}/runs/{run}", get(fetch_run).delete(delete_run))
        .route("/api/public/dataset-run-items", get(list_run_items).post(create_run_item))
}

/// The write-mode gate every handler here passes before it touches a store.
fn open(state: &AppState) -> Result<(), ApiError> {
    Ok(gate::legacy(state.config.migration.write_mode)?)
}

async fn list_runs(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
) -> Reply {
    open(&state)?;
    Ok(Json(datasets::list_runs(&state.stores.postgres, &auth.project.id, &name, &params(query)).await?))
}

async fn fetch_run(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path((name, run)): Path<(String, String)>,
) -> Reply {
    open(&state)?;
    Ok(Json(datasets::get_run(&state.stores.postgres, &auth.project.id, &name, &run).await?))
}

async fn delete_run(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path((name, run)): Path<(String, String)>,
) -> Reply {
    open(&state)?;
    let stores = &state.stores;
    Ok(Json(datasets::delete_run(&stores.postgres, &stores.clickhouse, &auth.project.id, &name, &run).await?))
}

async fn list_run_items(
    State(state): State<AppState>,
    auth: ProjectAuth,
    RawQuery(query): RawQuery,
) -> Reply {
    open(&state)?;
    Ok(Json(datasets::list_run_items(&state.stores.postgres, &auth.project.id, &params(query)).await?))
}

/// The body's shape is checked after the gate, so `events_only` answers its 404 to any JSON body,
/// as upstream's route-level rejection does.
async fn create_run_item(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(body): JsonBody<Value>,
) -> Reply {
    open(&state)?;
    let new: NewRunItem = serde_json::from_value(body)
        .map_err(|error| ApiError::bad_request("Invalid request data").with_detail(error.to_string()))?;
    let stores = &state.stores;
    Ok(Json(datasets::create_run_item(&stores.postgres, &stores.clickhouse, &auth.project.id, new).await?))
}
