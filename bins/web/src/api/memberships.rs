//! Organization-key routes over memberships: `/api/public/organizations/memberships` and
//! `/api/public/projects/{projectId}/memberships`, shaped as `langfuse.api.organizations`.

use axum::Json;
use axum::extract::{Path, State};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::identity::memberships::{
    self, DeleteMembershipRequest, MembershipDeletionResponse, MembershipRequest, MembershipResponse,
    MembershipsResponse,
};

use super::body::JsonBody;
use super::openapi::ErrorBody;
use crate::auth::OrganizationAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(
            organization_memberships,
            set_organization_membership,
            delete_organization_membership
        ))
        .routes(routes!(project_memberships, set_project_membership, delete_project_membership))
}

#[utoipa::path(
    get, path = "/api/public/organizations/memberships", tag = "organizations", security(("basicAuth" = [])),
    responses((status = 200, body = MembershipsResponse), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody))
)]
async fn organization_memberships(
    auth: OrganizationAuth,
    State(state): State<AppState>,
) -> Result<Json<MembershipsResponse>, ApiError> {
    Ok(Json(memberships::list_organization(&state.stores.postgres, &auth.acting()).await?))
}

/// Adds a user to the organization or changes their role.
#[utoipa::path(
    put, path = "/api/public/organizations/memberships", tag = "organizations", security(("basicAuth" = [])),
    request_body = MembershipRequest,
    responses(
        (status = 200, body = MembershipResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn set_organization_membership(
    auth: OrganizationAuth,
    State(state): State<AppState>,
    JsonBody(request): JsonBody<MembershipRequest>,
) -> Result<Json<MembershipResponse>, ApiError> {
    Ok(Json(memberships::set_organization(&state.stores.postgres, &auth.acting(), request).await?))
}

#[utoipa::path(
    delete, path = "/api/public/organizations/memberships", tag = "organizations", security(("basicAuth" = [])),
    request_body = DeleteMembershipRequest,
    responses(
        (status = 200, body = MembershipDeletionResponse), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn delete_organization_membership(
    auth: OrganizationAuth,
    State(state): State<AppState>,
    JsonBody(request): JsonBody<DeleteMembershipRequest>,
) -> Result<Json<MembershipDeletionResponse>, ApiError> {
    Ok(Json(memberships::remove_organization(&state.stores.postgres, &auth.acting(), request).await?))
}

#[utoipa::path(
    get, path = "/api/public/projects/{projectId}/memberships", tag = "organizations",
    security(("basicAuth" = [])), params(("projectId" = String, Path)),
    responses(
        (status = 200, body = MembershipsResponse), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn project_memberships(
    auth: OrganizationAuth,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
) -> Result<Json<MembershipsResponse>, ApiError> {
    Ok(Json(memberships::list_project(&state.stores.postgres, &auth.acting(), &project_id).await?))
}

/// Sets a member's role on one project (it overrides their organization role there).
#[utoipa::path(
    put, path = "/api/public/projects/{projectId}/memberships", tag = "organizations",
    security(("basicAuth" = [])), params(("projectId" = String, Path)), request_body = MembershipRequest,
    responses(
        (status = 200, body = MembershipResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn set_project_membership(
    auth: OrganizationAuth,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    JsonBody(request): JsonBody<MembershipRequest>,
) -> Result<Json<MembershipResponse>, ApiError> {
    Ok(Json(memberships::set_project(&state.stores.postgres, &auth.acting(), &project_id, request).await?))
}

#[utoipa::path(
    delete, path = "/api/public/projects/{projectId}/memberships", tag = "organizations",
    security(("basicAuth" = [])), params(("projectId" = String, Path)), request_body = DeleteMembershipRequest,
    responses(
        (status = 200, body = MembershipDeletionResponse), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn delete_project_membership(
    auth: OrganizationAuth,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    JsonBody(request): JsonBody<DeleteMembershipRequest>,
) -> Result<Json<MembershipDeletionResponse>, ApiError> {
    Ok(Json(memberships::remove_project(&state.stores.postgres, &auth.acting(), &project_id, request).await?))
}
