//! The UI's JSON routes over an organization's and a project's settings (`/api/ui/...`, session
//! cookie): renaming and deleting an organization, renaming a project, and the organization's own
//! API keys. Each checks the person's role through `domain::identity::permits`.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::identity::bodies::{
    ApiKeyList, ApiKeyResponse, OrganizationBody, OrganizationKeyRequest, OrganizationRequest, ProjectBody,
    SuccessResponse, UpdateProjectRequest,
};
use resources::identity::{keys, organizations, people, projects};

use super::body::{JsonBody, OptionalJsonBody};
use super::openapi::ErrorBody;
use crate::error::ApiError;
use crate::session::UserSession;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(ui_update_organization, ui_delete_organization))
        .routes(routes!(ui_update_project))
        .routes(routes!(ui_organization_keys, ui_create_organization_key))
        .routes(routes!(ui_delete_organization_key))
}

#[utoipa::path(
    put, path = "/api/ui/organizations/{organizationId}", tag = "ui", security(("sessionCookie" = [])),
    params(("organizationId" = String, Path)), request_body = OrganizationRequest,
    responses(
        (status = 200, body = OrganizationBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn ui_update_organization(
    session: UserSession,
    State(state): State<AppState>,
    Path(org_id): Path<String>,
    JsonBody(request): JsonBody<OrganizationRequest>,
) -> Result<Json<OrganizationBody>, ApiError> {
    let acting = people::in_organization(&state.stores.postgres, &session.user.id, &org_id).await?;
    Ok(Json(organizations::update(&state.stores.postgres, &acting, request).await?))
}

/// Deletes an organization without projects (409 while it has any); owners only.
#[utoipa::path(
    delete, path = "/api/ui/organizations/{organizationId}", tag = "ui", security(("sessionCookie" = [])),
    params(("organizationId" = String, Path)),
    responses(
        (status = 200, body = SuccessResponse), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)
    )
)]
async fn ui_delete_organization(
    session: UserSession,
    State(state): State<AppState>,
    Path(org_id): Path<String>,
) -> Result<Json<SuccessResponse>, ApiError> {
    let acting = people::in_organization(&state.stores.postgres, &session.user.id, &org_id).await?;
    Ok(Json(organizations::delete(&state.stores.postgres, &acting).await?))
}

#[utoipa::path(
    put, path = "/api/ui/projects/{projectId}", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path)), request_body = UpdateProjectRequest,
    responses(
        (status = 200, body = ProjectBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)
    )
)]
async fn ui_update_project(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    JsonBody(request): JsonBody<UpdateProjectRequest>,
) -> Result<Json<ProjectBody>, ApiError> {
    let pool = &state.stores.postgres;
    let acting = people::on_project(pool, &session.user.id, &project_id).await?;
    Ok(Json(projects::update(pool, &acting, &project_id, request).await?))
}

#[utoipa::path(
    get, path = "/api/ui/organizations/{organizationId}/api-keys", tag = "ui", security(("sessionCookie" = [])),
    params(("organizationId" = String, Path)),
    responses(
        (status = 200, body = ApiKeyList), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn ui_organization_keys(
    session: UserSession,
    State(state): State<AppState>,
    Path(org_id): Path<String>,
) -> Result<Json<ApiKeyList>, ApiError> {
    let acting = people::in_organization(&state.stores.postgres, &session.user.id, &org_id).await?;
    Ok(Json(keys::list_organization_keys(&state.stores.postgres, &acting).await?))
}

/// Creates an organization key (OWNER, ADMIN); its secret is in this answer only.
#[utoipa::path(
    post, path = "/api/ui/organizations/{organizationId}/api-keys", tag = "ui", security(("sessionCookie" = [])),
    params(("organizationId" = String, Path)), request_body = OrganizationKeyRequest,
    responses(
        (status = 201, body = ApiKeyResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn ui_create_organization_key(
    session: UserSession,
    State(state): State<AppState>,
    Path(org_id): Path<String>,
    OptionalJsonBody(request): OptionalJsonBody<OrganizationKeyRequest>,
) -> Result<(StatusCode, Json<ApiKeyResponse>), ApiError> {
    let pool = &state.stores.postgres;
    let acting = people::in_organization(pool, &session.user.id, &org_id).await?;
    let created = keys::create_organization_key(pool, &state.config.auth.salt, &acting, request.note).await?;
    Ok((StatusCode::CREATED, Json(created)))
}

#[utoipa::path(
    delete, path = "/api/ui/organizations/{organizationId}/api-keys/{apiKeyId}", tag = "ui",
    security(("sessionCookie" = [])), params(("organizationId" = String, Path), ("apiKeyId" = String, Path)),
    responses(
        (status = 200, body = SuccessResponse), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn ui_delete_organization_key(
    session: UserSession,
    State(state): State<AppState>,
    Path((org_id, key_id)): Path<(String, String)>,
) -> Result<Json<SuccessResponse>, ApiError> {
    let pool = &state.stores.postgres;
    let acting = people::in_organization(pool, &session.user.id, &org_id).await?;
    Ok(Json(keys::delete_organization_key(pool, &state.revocations, &acting, &key_id).await?))
}
