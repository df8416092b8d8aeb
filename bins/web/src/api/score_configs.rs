//! Score configs (`/api/public/score-configs…`): thin handlers over `resources::score_configs`.
//! How scores are checked against their configs at ingestion is in `batch.rs`.

use axum::extract::{Path, RawQuery, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::Value;

use resources::score_configs::{self, NewScoreConfig, ScoreConfigPatch};

use super::body::JsonBody;
use super::query::params;
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/public/score-configs", get(list).post(create))
        .route("/api/public/score-configs/{config_id}", get(fetch).patch(update))
}

async fn create(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(new): JsonBody<NewScoreConfig>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(score_configs::create(&state.stores.postgres, &auth.project.id, new).await?))
}

async fn list(
    State(state): State<AppState>,
    auth: ProjectAuth,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(score_configs::list(&state.stores.postgres, &auth.project.id, &params(query)).await?))
}

async fn fetch(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(config_id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(score_configs::get(&state.stores.postgres, &auth.project.id, &config_id).await?))
}

async fn update(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(config_id): Path<String>,
    JsonBody(patch): JsonBody<ScoreConfigPatch>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(score_configs::update(&state.stores.postgres, &auth.project.id, &config_id, patch).await?))
}
