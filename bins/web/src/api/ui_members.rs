//! The UI's JSON routes over members (`/api/ui/...`, session cookie): an organization's members
//! with every role, NONE included (which the SDK-shaped public routes cannot name), and project roles.

use axum::Json;
use axum::extract::{Path, State};
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::identity::memberships::{
    self, DeleteMembershipRequest, MembershipDeletionResponse, MembershipResponse, MembershipsResponse,
};
use resources::identity::people;

use super::body::JsonBody;
use super::openapi::ErrorBody;
use crate::error::ApiError;
use crate::session::UserSession;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(ui_members, ui_set_member))
        .routes(routes!(ui_remove_member))
        .routes(routes!(ui_set_project_member))
}

/// A role to set: OWNER, ADMIN, MEMBER, VIEWER or NONE.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RoleRequest {
    user_id: String,
    role: String,
}

#[utoipa::path(
    get, path = "/api/ui/organizations/{organizationId}/members", tag = "ui", security(("sessionCookie" = [])),
    params(("organizationId" = String, Path)),
    responses(
        (status = 200, body = MembershipsResponse), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn ui_members(
    session: UserSession,
    State(state): State<AppState>,
    Path(org_id): Path<String>,
) -> Result<Json<MembershipsResponse>, ApiError> {
    let acting = people::in_organization(&state.stores.postgres, &session.user.id, &org_id).await?;
    Ok(Json(memberships::list_organization_all(&state.stores.postgres, &acting).await?))
}

/// Adds a user to the organization or changes their role; only an OWNER grants or takes OWNER, and
/// the last owner keeps it.
#[utoipa::path(
    put, path = "/api/ui/organizations/{organizationId}/members", tag = "ui", security(("sessionCookie" = [])),
    params(("organizationId" = String, Path)), request_body = RoleRequest,
    responses(
        (status = 200, body = MembershipResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn ui_set_member(
    session: UserSession,
    State(state): State<AppState>,
    Path(org_id): Path<String>,
    JsonBody(request): JsonBody<RoleRequest>,
) -> Result<Json<MembershipResponse>, ApiError> {
    let pool = &state.stores.postgres;
    let acting = people::in_organization(pool, &session.user.id, &org_id).await?;
    let role = memberships::any_role(&request.role)?;
    Ok(Json(memberships::set_organization_role(pool, &acting, &request.user_id, role).await?))
}

#[utoipa::path(
    delete, path = "/api/ui/organizations/{organizationId}/members/{userId}", tag = "ui",
    security(("sessionCookie" = [])), params(("organizationId" = String, Path), ("userId" = String, Path)),
    responses(
        (status = 200, body = MembershipDeletionResponse), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn ui_remove_member(
    session: UserSession,
    State(state): State<AppState>,
    Path((org_id, user_id)): Path<(String, String)>,
) -> Result<Json<MembershipDeletionResponse>, ApiError> {
    let pool = &state.stores.postgres;
    let acting = people::in_organization(pool, &session.user.id, &org_id).await?;
    Ok(Json(memberships::remove_organization(pool, &acting, DeleteMembershipRequest { user_id }).await?))
}

/// Sets a member's role on one project; NONE takes the project away from them.
#[utoipa::path(
    put, path = "/api/ui/projects/{projectId}/members", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path)), request_body = RoleRequest,
    responses(
        (status = 200, body = MembershipResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn ui_set_project_member(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    JsonBody(request): JsonBody<RoleRequest>,
) -> Result<Json<MembershipResponse>, ApiError> {
    let pool = &state.stores.postgres;
    let acting = people::on_project(pool, &session.user.id, &project_id).await?;
    let role = memberships::any_role(&request.role)?;
    Ok(Json(memberships::set_project_role(pool, &acting, &project_id, &request.user_id, role).await?))
}
