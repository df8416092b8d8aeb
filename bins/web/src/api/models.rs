//! `/api/public/models`: thin handlers over `resources::models`.

use axum::extract::{Path, RawQuery, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use resources::models::{self, NewModel};

use super::body::JsonBody;
use super::query::params;
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

type Reply = Result<Json<Value>, ApiError>;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/public/models", get(list).post(create))
        .route("/api/public/models/{id}", get(fetch).delete(remove))
}

async fn list(State(state): State<AppState>, auth: ProjectAuth, RawQuery(query): RawQuery) -> Reply {
    Ok(Json(models::list(&state.stores.postgres, &auth.project.id, &params(query)).await?))
}

async fn fetch(State(state): State<AppState>, auth: ProjectAuth, Path(id): Path<String>) -> Reply {
    Ok(Json(models::get(&state.stores.postgres, &auth.project.id, &id).await?))
}

async fn create(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(new): JsonBody<NewModel>,
) -> Reply {
    Ok(Json(models::create(&state.stores.postgres, &auth.project.id, new).await?))
}

async fn remove(State(state): State<AppState>, auth: ProjectAuth, Path(id): Path<String>) -> Reply {
    models::delete(&state.stores.postgres, &auth.project.id, &id).await?;
    Ok(Json(json!({ "message": "Model successfully deleted" })))
}
