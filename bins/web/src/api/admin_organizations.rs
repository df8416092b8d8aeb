//! The instance admin API over organizations and their keys (`Authorization: Bearer
//! <ADMIN_API_KEY>`), shaped as Langfuse's; without `ADMIN_API_KEY` these routes answer 404.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::identity::bodies::{
    ApiKeyList, ApiKeyResponse, OrganizationBody, OrganizationKeyRequest, OrganizationRequest, Organizations,
    SuccessResponse,
};
use resources::identity::{Acting, keys, organizations};

use super::body::{JsonBody, OptionalJsonBody};
use super::openapi::ErrorBody;
use crate::auth::InstanceAdmin;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(admin_list_organizations, admin_create_organization))
        .routes(routes!(admin_get_organization, admin_update_organization, admin_delete_organization))
        .routes(routes!(admin_list_organization_keys, admin_create_organization_key))
        .routes(routes!(admin_delete_organization_key))
}

#[utoipa::path(
    get, path = "/api/admin/organizations", tag = "admin", security(("adminBearer" = [])),
    responses((status = 200, body = Organizations), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn admin_list_organizations(
    _: InstanceAdmin,
    State(state): State<AppState>,
) -> Result<Json<Organizations>, ApiError> {
    Ok(Json(organizations::list(&state.stores.postgres).await?))
}

#[utoipa::path(
    post, path = "/api/admin/organizations", tag = "admin", security(("adminBearer" = [])),
    request_body = OrganizationRequest,
    responses((status = 201, body = OrganizationBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody))
)]
async fn admin_create_organization(
    _: InstanceAdmin,
    State(state): State<AppState>,
    JsonBody(request): JsonBody<OrganizationRequest>,
) -> Result<(StatusCode, Json<OrganizationBody>), ApiError> {
    Ok((StatusCode::CREATED, Json(organizations::create(&state.stores.postgres, request).await?)))
}

#[utoipa::path(
    get, path = "/api/admin/organizations/{organizationId}", tag = "admin", security(("adminBearer" = [])),
    params(("organizationId" = String, Path)),
    responses((status = 200, body = OrganizationBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn admin_get_organization(
    _: InstanceAdmin,
    State(state): State<AppState>,
    Path(org_id): Path<String>,
) -> Result<Json<OrganizationBody>, ApiError> {
    Ok(Json(organizations::get(&state.stores.postgres, &org_id).await?))
}

#[utoipa::path(
    put, path = "/api/admin/organizations/{organizationId}", tag = "admin", security(("adminBearer" = [])),
    params(("organizationId" = String, Path)), request_body = OrganizationRequest,
    responses(
        (status = 200, body = OrganizationBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn admin_update_organization(
    _: InstanceAdmin,
    State(state): State<AppState>,
    Path(org_id): Path<String>,
    JsonBody(request): JsonBody<OrganizationRequest>,
) -> Result<Json<OrganizationBody>, ApiError> {
    Ok(Json(organizations::update(&state.stores.postgres, &Acting::instance_admin(org_id), request).await?))
}

/// Deletes an organization that has no projects left (409 otherwise).
#[utoipa::path(
    delete, path = "/api/admin/organizations/{organizationId}", tag = "admin", security(("adminBearer" = [])),
    params(("organizationId" = String, Path)),
    responses(
        (status = 200, body = SuccessResponse), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)
    )
)]
async fn admin_delete_organization(
    _: InstanceAdmin,
    State(state): State<AppState>,
    Path(org_id): Path<String>,
) -> Result<Json<SuccessResponse>, ApiError> {
    Ok(Json(organizations::delete(&state.stores.postgres, &Acting::instance_admin(org_id)).await?))
}

#[utoipa::path(
    get, path = "/api/admin/organizations/{organizationId}/apiKeys", tag = "admin", security(("adminBearer" = [])),
    params(("organizationId" = String, Path)),
    responses((status = 200, body = ApiKeyList), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn admin_list_organization_keys(
    _: InstanceAdmin,
    State(state): State<AppState>,
    Path(org_id): Path<String>,
) -> Result<Json<ApiKeyList>, ApiError> {
    organizations::require_exists(&state.stores.postgres, &org_id).await?;
    Ok(Json(keys::list_organization_keys(&state.stores.postgres, &Acting::instance_admin(org_id)).await?))
}

/// Creates an organization key; its secret is in this answer only.
#[utoipa::path(
    post, path = "/api/admin/organizations/{organizationId}/apiKeys", tag = "admin", security(("adminBearer" = [])),
    params(("organizationId" = String, Path)), request_body = OrganizationKeyRequest,
    responses(
        (status = 201, body = ApiKeyResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn admin_create_organization_key(
    _: InstanceAdmin,
    State(state): State<AppState>,
    Path(org_id): Path<String>,
    OptionalJsonBody(request): OptionalJsonBody<OrganizationKeyRequest>,
) -> Result<(StatusCode, Json<ApiKeyResponse>), ApiError> {
    organizations::require_exists(&state.stores.postgres, &org_id).await?;
    let acting = Acting::instance_admin(org_id);
    let created =
        keys::create_organization_key(&state.stores.postgres, &state.config.auth.salt, &acting, request.note)
            .await?;
    Ok((StatusCode::CREATED, Json(created)))
}

#[utoipa::path(
    delete, path = "/api/admin/organizations/{organizationId}/apiKeys/{apiKeyId}", tag = "admin",
    security(("adminBearer" = [])), params(("organizationId" = String, Path), ("apiKeyId" = String, Path)),
    responses((status = 200, body = SuccessResponse), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn admin_delete_organization_key(
    _: InstanceAdmin,
    State(state): State<AppState>,
    Path((org_id, key_id)): Path<(String, String)>,
) -> Result<Json<SuccessResponse>, ApiError> {
    let acting = Acting::instance_admin(org_id);
    Ok(Json(
        keys::delete_organization_key(&state.stores.postgres, &state.revocations, &acting, &key_id).await?,
    ))
}
