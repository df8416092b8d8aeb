//! Dataset runs and run items (`/api/public/datasets/{datasetName}/runs…`,
//! `/api/public/dataset-run-items`), the v3 experiment model: thin handlers over
//! `resources::datasets`, which answers 404 in the `events_only` write mode (spec/v4-migration-spec.md §4.1).

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use serde_json::Value;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::datasets::{self, DatasetRun, DatasetRunItem, DatasetRunWithItems, NewRunItem};
use resources::{Message, Page};

use super::body::JsonBody;
use super::openapi::ErrorBody;
use super::query::{PageQuery, params};
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_runs))
        .routes(routes!(fetch_run, delete_run))
        .routes(routes!(list_run_items, create_run_item))
}

#[utoipa::path(
    get, path = "/api/public/datasets/{datasetName}/runs", operation_id = "datasets_getRuns",
    tag = "datasets", security(("basicAuth" = [])),
    params(("datasetName" = String, Path, description = "URL-encoded"), PageQuery),
    responses(
        (status = 200, body = Page<DatasetRun>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No such dataset, or the `events_only` write mode")
    )
)]
async fn list_runs(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Page<DatasetRun>>, ApiError> {
    let (pool, mode) = (&state.stores.postgres, state.config.migration.write_mode);
    Ok(Json(datasets::list_runs(pool, mode, &auth.project.id, &name, &params(query)).await?))
}

#[utoipa::path(
    get, path = "/api/public/datasets/{datasetName}/runs/{runName}", operation_id = "datasets_getRun",
    tag = "datasets", security(("basicAuth" = [])),
    params(("datasetName" = String, Path), ("runName" = String, Path)),
    responses(
        (status = 200, body = DatasetRunWithItems), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No such run, or the `events_only` write mode")
    )
)]
async fn fetch_run(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path((name, run)): Path<(String, String)>,
) -> Result<Json<DatasetRunWithItems>, ApiError> {
    let (pool, mode) = (&state.stores.postgres, state.config.migration.write_mode);
    Ok(Json(datasets::get_run(pool, mode, &auth.project.id, &name, &run).await?))
}

#[utoipa::path(
    delete, path = "/api/public/datasets/{datasetName}/runs/{runName}", operation_id = "datasets_deleteRun",
    tag = "datasets", security(("basicAuth" = [])),
    params(("datasetName" = String, Path), ("runName" = String, Path)),
    responses(
        (status = 200, body = Message), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No such run, or the `events_only` write mode"),
        (status = 503, body = ErrorBody)
    )
)]
async fn delete_run(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path((name, run)): Path<(String, String)>,
) -> Result<Json<Message>, ApiError> {
    let (stores, mode) = (&state.stores, state.config.migration.write_mode);
    let deleted =
        datasets::delete_run(&stores.postgres, &stores.clickhouse, mode, &auth.project.id, &name, &run)
            .await?;
    Ok(Json(deleted))
}

#[utoipa::path(
    get, path = "/api/public/dataset-run-items", operation_id = "datasetRunItems_list",
    tag = "dataset-run-items", security(("basicAuth" = [])),
    params(("datasetId" = String, Query), ("runName" = String, Query), PageQuery),
    responses(
        (status = 200, body = Page<DatasetRunItem>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No such run, or the `events_only` write mode")
    )
)]
async fn list_run_items(
    State(state): State<AppState>,
    auth: ProjectAuth,
    RawQuery(query): RawQuery,
) -> Result<Json<Page<DatasetRunItem>>, ApiError> {
    let (pool, mode) = (&state.stores.postgres, state.config.migration.write_mode);
    Ok(Json(datasets::list_run_items(pool, mode, &auth.project.id, &params(query)).await?))
}

// The body is taken as any JSON and read by `resources` past the write-mode gate, so
// `events_only` answers its 404 whatever the body.
#[utoipa::path(
    post, path = "/api/public/dataset-run-items", operation_id = "datasetRunItems_create",
    tag = "dataset-run-items", security(("basicAuth" = [])),
    request_body = NewRunItem,
    responses(
        (status = 200, body = DatasetRunItem), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No such item or observation, or the `events_only` write mode"),
        (status = 503, body = ErrorBody)
    )
)]
async fn create_run_item(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(body): JsonBody<Value>,
) -> Result<Json<DatasetRunItem>, ApiError> {
    let (stores, mode) = (&state.stores, state.config.migration.write_mode);
    let item =
        datasets::create_run_item(&stores.postgres, &stores.clickhouse, mode, &auth.project.id, body).await?;
    Ok(Json(item))
}
