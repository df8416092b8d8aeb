//! Datasets and dataset items (`/api/public/v2/datasets…`, v1 `/api/public/datasets…`,
//! `/api/public/dataset-items…`): thin handlers over `resources::datasets`. Names with `/` arrive
//! URL-encoded (`team%2Fqa`) in one path segment and are decoded by the router.

use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::Value;

use resources::datasets::{self, NewDataset, NewItem};
use resources::media::ITEM_FIELDS;

use super::body::JsonBody;
use super::media::attach_references;
use super::query::params;
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

type Reply = Result<Json<Value>, ApiError>;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/public/v2/datasets", get(list).post(upsert))
        .route("/api/public/v2/datasets/{name}", get(fetch))
        .route("/api/public/datasets", get(list_v1).post(upsert_v1))
        .route("/api/public/datasets/{name}", get(fetch_v1))
        .route("/api/public/dataset-items", get(list_items).post(upsert_item))
        .route("/api/public/dataset-items/{id}", get(fetch_item).delete(delete_item))
}

async fn list(State(state): State<AppState>, auth: ProjectAuth, RawQuery(query): RawQuery) -> Reply {
    Ok(Json(datasets::list(&state.stores.postgres, &auth.project.id, &params(query)).await?))
}

async fn upsert(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(new): JsonBody<NewDataset>,
) -> Reply {
    Ok(Json(datasets::upsert(&state.stores.postgres, &auth.project.id, new).await?))
}

async fn fetch(State(state): State<AppState>, auth: ProjectAuth, Path(name): Path<String>) -> Reply {
    Ok(Json(datasets::get(&state.stores.postgres, &auth.project.id, &name).await?))
}

async fn list_v1(State(state): State<AppState>, auth: ProjectAuth, RawQuery(query): RawQuery) -> Reply {
    Ok(Json(datasets::list_v1(&state.stores.postgres, &auth.project.id, &params(query)).await?))
}

async fn upsert_v1(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(new): JsonBody<NewDataset>,
) -> Reply {
    Ok(Json(datasets::upsert_v1(&state.stores.postgres, &auth.project.id, new).await?))
}

/// The v1 dataset carries its current items, which list their media like the item endpoints'.
async fn fetch_v1(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Reply {
    let mut dataset = datasets::get_v1(&state.stores.postgres, &auth.project.id, &name).await?;
    let items = reads::render::objects_mut(&mut dataset["items"]);
    attach_references(&state, &headers, &auth.project.id, items, ITEM_FIELDS).await?;
    Ok(Json(dataset))
}

/// Dataset items list the media they reference, with download URLs for this caller.
async fn with_media(state: &AppState, project: &str, headers: &HeaderMap, mut body: Value) -> Reply {
    attach_references(state, headers, project, reads::render::rows_mut(&mut body), ITEM_FIELDS).await?;
    Ok(Json(body))
}

async fn list_items(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Reply {
    let items = datasets::list_items(&state.stores.postgres, &auth.project.id, &params(query)).await?;
    with_media(&state, &auth.project.id, &headers, items).await
}

async fn upsert_item(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    JsonBody(new): JsonBody<NewItem>,
) -> Reply {
    let item = datasets::upsert_item(&state.stores.postgres, &auth.project.id, new).await?;
    with_media(&state, &auth.project.id, &headers, item).await
}

async fn fetch_item(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Reply {
    let item = datasets::get_item(&state.stores.postgres, &auth.project.id, &id).await?;
    with_media(&state, &auth.project.id, &headers, item).await
}

async fn delete_item(State(state): State<AppState>, auth: ProjectAuth, Path(id): Path<String>) -> Reply {
    Ok(Json(datasets::delete_item(&state.stores.postgres, &auth.project.id, &id).await?))
}
