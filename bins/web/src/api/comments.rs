//! Comments (`/api/public/comments…`): thin handlers over `resources::comments`.

use axum::extract::{Path, RawQuery, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::Value;

use resources::comments::{self, NewComment};

use super::body::JsonBody;
use super::query::params;
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/public/comments", get(list).post(create))
        .route("/api/public/comments/{comment_id}", get(fetch))
}

async fn create(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(new): JsonBody<NewComment>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(comments::create(&state.stores.postgres, &state.stores.clickhouse, &auth.project.id, new).await?))
}

async fn list(
    State(state): State<AppState>,
    auth: ProjectAuth,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let params = params(query);
    // A root observation also shows its trace's comments (v4 model). Legacy mode writes no events,
    // so only virtual `t-` roots are recognised there.
    let root_of_trace = match (params.get("objectType"), params.get("objectId")) {
        (Some("OBSERVATION"), Some(id)) => {
            reads::observations::root_of_trace(&state.stores.clickhouse, &auth.project.id, id).await?
        }
        _ => None,
    };
    Ok(Json(comments::list(&state.stores.postgres, &auth.project.id, &params, root_of_trace).await?))
}

async fn fetch(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(comment_id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(comments::get(&state.stores.postgres, &auth.project.id, &comment_id).await?))
}
