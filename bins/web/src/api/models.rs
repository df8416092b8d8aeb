//! `/api/public/models`: thin handlers over `resources::models`.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::models::{self, Model, NewModel};
use resources::{Message, Page};

use super::body::JsonBody;
use super::openapi::ErrorBody;
use super::query::{PageQuery, params};
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list, create)).routes(routes!(fetch, remove))
}

#[utoipa::path(
    get, path = "/api/public/models", operation_id = "models_list",
    tag = "models", security(("basicAuth" = [])), params(PageQuery),
    responses(
        (status = 200, body = Page<Model>), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)
    )
)]
async fn list(
    State(state): State<AppState>,
    auth: ProjectAuth,
    RawQuery(query): RawQuery,
) -> Result<Json<Page<Model>>, ApiError> {
    Ok(Json(models::list(&state.stores.postgres, &auth.project.id, &params(query)).await?))
}

#[utoipa::path(
    get, path = "/api/public/models/{id}", operation_id = "models_get",
    tag = "models", security(("basicAuth" = [])),
    params(("id" = String, Path)),
    responses(
        (status = 200, body = Model), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn fetch(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
) -> Result<Json<Model>, ApiError> {
    Ok(Json(models::get(&state.stores.postgres, &auth.project.id, &id).await?))
}

#[utoipa::path(
    post, path = "/api/public/models", operation_id = "models_create",
    tag = "models", security(("basicAuth" = [])), request_body = NewModel,
    responses(
        (status = 200, body = Model), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)
    )
)]
async fn create(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(new): JsonBody<NewModel>,
) -> Result<Json<Model>, ApiError> {
    Ok(Json(models::create(&state.stores.postgres, &auth.project.id, new).await?))
}

#[utoipa::path(
    delete, path = "/api/public/models/{id}", operation_id = "models_delete",
    tag = "models", security(("basicAuth" = [])),
    params(("id" = String, Path)),
    responses(
        (status = 200, body = Message),
        (status = 400, body = ErrorBody, description = "A built-in definition"),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn remove(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
) -> Result<Json<Message>, ApiError> {
    Ok(Json(models::delete(&state.stores.postgres, &auth.project.id, &id).await?))
}
