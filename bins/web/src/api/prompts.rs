//! Prompts v2 (`/api/public/v2/prompts…`): thin handlers over `resources::prompts`. Folder-style
//! names arrive URL-encoded (`team%2Fsummarise`) in one path segment and are decoded by the router.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::Page;
use resources::prompts::{self, NewLabels, NewPrompt, Prompt, PromptMeta};

use super::body::JsonBody;
use super::openapi::ErrorBody;
use super::query::{PageQuery, params};
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(fetch, remove))
        .routes(routes!(update_labels))
}

#[utoipa::path(
    get, path = "/api/public/v2/prompts/{promptName}", operation_id = "prompts_get",
    tag = "prompts", security(("basicAuth" = [])),
    params(
        ("promptName" = String, Path, description = "The full name, folders included, URL-encoded"),
        ("version" = Option<i32>, Query, description = "A version number; not with `label`"),
        ("label" = Option<String>, Query, description = "A label; `production` when neither is given"),
        ("resolve" = Option<bool>, Query, description = "Replace prompt references by their texts (default true)"),
    ),
    responses(
        (status = 200, body = Prompt), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn fetch(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Prompt>, ApiError> {
    Ok(Json(prompts::get(&state.stores.postgres, &auth.project.id, &name, &params(query)).await?))
}

#[utoipa::path(
    get, path = "/api/public/v2/prompts", operation_id = "prompts_list",
    tag = "prompts", security(("basicAuth" = [])),
    params(
        ("name" = Option<String>, Query), ("label" = Option<String>, Query), ("tag" = Option<String>, Query),
        ("fromUpdatedAt" = Option<String>, Query, format = DateTime, description = "Versions updated at or after"),
        ("toUpdatedAt" = Option<String>, Query, format = DateTime, description = "Versions updated before"),
        PageQuery,
    ),
    responses(
        (status = 200, body = Page<PromptMeta>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody)
    )
)]
async fn list(
    State(state): State<AppState>,
    auth: ProjectAuth,
    RawQuery(query): RawQuery,
) -> Result<Json<Page<PromptMeta>>, ApiError> {
    Ok(Json(prompts::list(&state.stores.postgres, &auth.project.id, &params(query)).await?))
}

#[utoipa::path(
    post, path = "/api/public/v2/prompts", operation_id = "prompts_create",
    tag = "prompts", security(("basicAuth" = [])),
    request_body = NewPrompt,
    responses(
        (status = 201, body = Prompt, description = "The new version"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody)
    )
)]
async fn create(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(new): JsonBody<NewPrompt>,
) -> Result<(StatusCode, Json<Prompt>), ApiError> {
    let created_by = auth.user_id.as_deref().unwrap_or("API");
    let prompt = prompts::create(&state.stores.postgres, &auth.project.id, new, created_by).await?;
    Ok((StatusCode::CREATED, Json(prompt)))
}

#[utoipa::path(
    patch, path = "/api/public/v2/prompts/{promptName}/versions/{version}",
    operation_id = "promptVersion_update",
    tag = "prompts", security(("basicAuth" = [])),
    params(("promptName" = String, Path), ("version" = i32, Path)),
    request_body = NewLabels,
    responses(
        (status = 200, body = Prompt), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn update_labels(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path((name, version)): Path<(String, String)>,
    JsonBody(labels): JsonBody<NewLabels>,
) -> Result<Json<Prompt>, ApiError> {
    let pool = &state.stores.postgres;
    Ok(Json(prompts::update_labels(pool, &auth.project.id, &name, &version, labels).await?))
}

#[utoipa::path(
    delete, path = "/api/public/v2/prompts/{promptName}", operation_id = "prompts_delete",
    tag = "prompts", security(("basicAuth" = [])),
    params(
        ("promptName" = String, Path),
        ("version" = Option<i32>, Query, description = "Only this version; not with `label`"),
        ("label" = Option<String>, Query, description = "Only the version with this label; every version when neither is given"),
    ),
    responses(
        (status = 204, description = "Deleted"), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "Another prompt references a version that would go")
    )
)]
async fn remove(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<StatusCode, ApiError> {
    prompts::delete(&state.stores.postgres, &auth.project.id, &name, &params(query)).await?;
    Ok(StatusCode::NO_CONTENT)
}
