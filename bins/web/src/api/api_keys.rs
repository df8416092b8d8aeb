//! Organization-key routes over API keys and the organization's projects: a project's keys
//! (`/api/public/projects/{projectId}/apiKeys`), and the organization's own projects and keys
//! (`/api/public/organizations/{projects,apiKeys}`) (docs/identity.md).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::identity::bodies::{
    ApiKeyList, ApiKeyResponse, CreateApiKeyRequest, OrganizationProjectsResponse, SuccessResponse,
};
use resources::identity::{keys, projects};

use super::body::OptionalJsonBody;
use super::openapi::ErrorBody;
use crate::auth::OrganizationAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_project_keys, create_project_key))
        .routes(routes!(delete_project_key))
        .routes(routes!(organization_projects))
        .routes(routes!(organization_keys))
}

#[utoipa::path(
    get, path = "/api/public/projects/{projectId}/apiKeys", tag = "projects", security(("basicAuth" = [])),
    params(("projectId" = String, Path)),
    responses(
        (status = 200, body = ApiKeyList), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn list_project_keys(
    auth: OrganizationAuth,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
) -> Result<Json<ApiKeyList>, ApiError> {
    Ok(Json(keys::list_project_keys(&state.stores.postgres, &auth.acting(), &project_id).await?))
}

/// Creates a key for the project; its secret is in this answer only.
#[utoipa::path(
    post, path = "/api/public/projects/{projectId}/apiKeys", tag = "projects", security(("basicAuth" = [])),
    params(("projectId" = String, Path)), request_body = CreateApiKeyRequest,
    responses(
        (status = 201, body = ApiKeyResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)
    )
)]
async fn create_project_key(
    auth: OrganizationAuth,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    OptionalJsonBody(request): OptionalJsonBody<CreateApiKeyRequest>,
) -> Result<(StatusCode, Json<ApiKeyResponse>), ApiError> {
    let salt = &state.config.auth.salt;
    let created =
        keys::create_project_key(&state.stores.postgres, salt, &auth.acting(), &project_id, request).await?;
    Ok((StatusCode::CREATED, Json(created)))
}

/// Deletes the key; it is refused on its next request on every web replica.
#[utoipa::path(
    delete, path = "/api/public/projects/{projectId}/apiKeys/{apiKeyId}", tag = "projects",
    security(("basicAuth" = [])), params(("projectId" = String, Path), ("apiKeyId" = String, Path)),
    responses(
        (status = 200, body = SuccessResponse), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn delete_project_key(
    auth: OrganizationAuth,
    State(state): State<AppState>,
    Path((project_id, key_id)): Path<(String, String)>,
) -> Result<Json<SuccessResponse>, ApiError> {
    let acting = auth.acting();
    let deleted =
        keys::delete_project_key(&state.stores.postgres, &state.revocations, &acting, &project_id, &key_id)
            .await?;
    Ok(Json(deleted))
}

#[utoipa::path(
    get, path = "/api/public/organizations/projects", tag = "organizations", security(("basicAuth" = [])),
    responses(
        (status = 200, body = OrganizationProjectsResponse), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)
    )
)]
async fn organization_projects(
    auth: OrganizationAuth,
    State(state): State<AppState>,
) -> Result<Json<OrganizationProjectsResponse>, ApiError> {
    Ok(Json(projects::list(&state.stores.postgres, &auth.acting()).await?))
}

#[utoipa::path(
    get, path = "/api/public/organizations/apiKeys", tag = "organizations", security(("basicAuth" = [])),
    responses((status = 200, body = ApiKeyList), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody))
)]
async fn organization_keys(
    auth: OrganizationAuth,
    State(state): State<AppState>,
) -> Result<Json<ApiKeyList>, ApiError> {
    Ok(Json(keys::list_organization_keys(&state.stores.postgres, &auth.acting()).await?))
}
