//! Datasets and dataset items (`/api/public/v2/datasets…`, v1 `/api/public/datasets…`,
//! `/api/public/dataset-items…`): thin handlers over `resources::datasets`. Names with `/` arrive
//! URL-encoded (`team%2Fqa`) in one path segment and are decoded by the router. Items list the
//! media they reference, with download URLs for the caller (`media::urls`).

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::datasets::{
    self, Dataset, DatasetItem, DatasetWithItemIds, DatasetWithItems, NewDataset, NewItem,
};
use resources::{Message, Page};

use super::body::JsonBody;
use super::media::urls;
use super::openapi::ErrorBody;
use super::query::{PageQuery, params};
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, upsert))
        .routes(routes!(fetch))
        .routes(routes!(list_v1, upsert_v1))
        .routes(routes!(fetch_v1))
        .routes(routes!(list_items, upsert_item))
        .routes(routes!(fetch_item, delete_item))
}

#[utoipa::path(
    get, path = "/api/public/v2/datasets", operation_id = "datasets_list",
    tag = "datasets", security(("basicAuth" = [])), params(PageQuery),
    responses(
        (status = 200, body = Page<Dataset>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody)
    )
)]
async fn list(
    State(state): State<AppState>,
    auth: ProjectAuth,
    RawQuery(query): RawQuery,
) -> Result<Json<Page<Dataset>>, ApiError> {
    Ok(Json(datasets::list(&state.stores.postgres, &auth.project.id, &params(query)).await?))
}

#[utoipa::path(
    post, path = "/api/public/v2/datasets", operation_id = "datasets_create",
    tag = "datasets", security(("basicAuth" = [])),
    request_body = NewDataset,
    responses(
        (status = 200, body = Dataset, description = "Created, or updated by name"),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody)
    )
)]
async fn upsert(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(new): JsonBody<NewDataset>,
) -> Result<Json<Dataset>, ApiError> {
    Ok(Json(datasets::upsert(&state.stores.postgres, &auth.project.id, new).await?))
}

#[utoipa::path(
    get, path = "/api/public/v2/datasets/{datasetName}", operation_id = "datasets_get",
    tag = "datasets", security(("basicAuth" = [])),
    params(("datasetName" = String, Path, description = "URL-encoded")),
    responses(
        (status = 200, body = Dataset), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn fetch(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(name): Path<String>,
) -> Result<Json<Dataset>, ApiError> {
    Ok(Json(datasets::get(&state.stores.postgres, &auth.project.id, &name).await?))
}

#[utoipa::path(
    get, path = "/api/public/datasets", operation_id = "datasetsV1_list",
    tag = "datasets", security(("basicAuth" = [])), params(PageQuery),
    responses(
        (status = 200, body = Page<DatasetWithItemIds>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody)
    )
)]
async fn list_v1(
    State(state): State<AppState>,
    auth: ProjectAuth,
    RawQuery(query): RawQuery,
) -> Result<Json<Page<DatasetWithItemIds>>, ApiError> {
    Ok(Json(datasets::list_v1(&state.stores.postgres, &auth.project.id, &params(query)).await?))
}

#[utoipa::path(
    post, path = "/api/public/datasets", operation_id = "datasetsV1_create",
    tag = "datasets", security(("basicAuth" = [])),
    request_body = NewDataset,
    responses(
        (status = 200, body = DatasetWithItemIds), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody)
    )
)]
async fn upsert_v1(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(new): JsonBody<NewDataset>,
) -> Result<Json<DatasetWithItemIds>, ApiError> {
    Ok(Json(datasets::upsert_v1(&state.stores.postgres, &auth.project.id, new).await?))
}

#[utoipa::path(
    get, path = "/api/public/datasets/{datasetName}", operation_id = "datasetsV1_get",
    tag = "datasets", security(("basicAuth" = [])),
    params(("datasetName" = String, Path, description = "URL-encoded")),
    responses(
        (status = 200, body = DatasetWithItems), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn fetch_v1(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Result<Json<DatasetWithItems>, ApiError> {
    let urls = urls(&state, &headers);
    Ok(Json(datasets::get_v1(&state.stores.postgres, &auth.project.id, &name, &urls).await?))
}

#[utoipa::path(
    get, path = "/api/public/dataset-items", operation_id = "datasetItems_list",
    tag = "dataset-items", security(("basicAuth" = [])),
    params(
        ("datasetName" = Option<String>, Query, description = "Required with `version`"),
        ("sourceTraceId" = Option<String>, Query),
        ("sourceObservationId" = Option<String>, Query),
        ("version" = Option<String>, Query, format = DateTime, description = "The items as they were at this instant"),
        PageQuery,
    ),
    responses(
        (status = 200, body = Page<DatasetItem>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No dataset of that name")
    )
)]
async fn list_items(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Result<Json<Page<DatasetItem>>, ApiError> {
    let (pool, urls) = (&state.stores.postgres, urls(&state, &headers));
    Ok(Json(datasets::list_items(pool, &auth.project.id, &params(query), &urls).await?))
}

#[utoipa::path(
    post, path = "/api/public/dataset-items", operation_id = "datasetItems_create",
    tag = "dataset-items", security(("basicAuth" = [])),
    request_body = NewItem,
    responses(
        (status = 200, body = DatasetItem, description = "The item's new version"),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No such dataset, or the id is another dataset's item")
    )
)]
async fn upsert_item(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    JsonBody(new): JsonBody<NewItem>,
) -> Result<Json<DatasetItem>, ApiError> {
    let (pool, urls) = (&state.stores.postgres, urls(&state, &headers));
    Ok(Json(datasets::upsert_item(pool, &auth.project.id, new, &urls).await?))
}

#[utoipa::path(
    get, path = "/api/public/dataset-items/{id}", operation_id = "datasetItems_get",
    tag = "dataset-items", security(("basicAuth" = [])),
    params(("id" = String, Path)),
    responses(
        (status = 200, body = DatasetItem), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn fetch_item(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<DatasetItem>, ApiError> {
    let (pool, urls) = (&state.stores.postgres, urls(&state, &headers));
    Ok(Json(datasets::get_item(pool, &auth.project.id, &id, &urls).await?))
}

#[utoipa::path(
    delete, path = "/api/public/dataset-items/{id}", operation_id = "datasetItems_delete",
    tag = "dataset-items", security(("basicAuth" = [])),
    params(("id" = String, Path)),
    responses(
        (status = 200, body = Message), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn delete_item(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
) -> Result<Json<Message>, ApiError> {
    Ok(Json(datasets::delete_item(&state.stores.postgres, &auth.project.id, &id).await?))
}
