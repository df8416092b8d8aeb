//! The settings pages' people routes (`/api/ui/...`, session cookie): a project's people with the
//! role that counts there, and inviting someone by email address to an organization or a project
//! (`resources::identity::invitations`; docs/identity.md, "The UI's JSON API").

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::identity::invitations::{self, InvitationRequest, InvitationResponse, ProjectMembers};
use resources::identity::memberships::{self, DeleteMembershipRequest, MembershipDeletionResponse};
use resources::identity::people;

use super::body::JsonBody;
use super::openapi::ErrorBody;
use crate::error::ApiError;
use crate::session::UserSession;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(ui_project_people))
        .routes(routes!(ui_clear_project_role))
        .routes(routes!(ui_invite_to_project))
        .routes(routes!(ui_invite_to_organization))
}

/// Every member of the project's organization with their organization role, project role and the
/// role that counts on the project (MEMBER and above).
#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/people", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path)),
    responses(
        (status = 200, body = ProjectMembers), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn ui_project_people(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
) -> Result<Json<ProjectMembers>, ApiError> {
    let pool = &state.stores.postgres;
    let acting = people::on_project(pool, &session.user.id, &project_id).await?;
    Ok(Json(invitations::list_project_members(pool, &acting, &project_id).await?))
}

/// Drops a person's project role, so their organization role counts on the project again (OWNER,
/// ADMIN); 404 when they have none.
#[utoipa::path(
    delete, path = "/api/ui/projects/{projectId}/people/{userId}", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path), ("userId" = String, Path)),
    responses(
        (status = 200, body = MembershipDeletionResponse), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn ui_clear_project_role(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, user_id)): Path<(String, String)>,
) -> Result<Json<MembershipDeletionResponse>, ApiError> {
    let pool = &state.stores.postgres;
    let acting = people::on_project(pool, &session.user.id, &project_id).await?;
    let request = DeleteMembershipRequest { user_id };
    Ok(Json(memberships::remove_project(pool, &acting, &project_id, request).await?))
}

/// Gives the person with this address a role on the project (OWNER, ADMIN); someone new to the
/// organization joins it with NONE, an address without an account gets one to claim at sign-up.
#[utoipa::path(
    post, path = "/api/ui/projects/{projectId}/invitations", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path)), request_body = InvitationRequest,
    responses(
        (status = 201, body = InvitationResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn ui_invite_to_project(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    JsonBody(request): JsonBody<InvitationRequest>,
) -> Result<(StatusCode, Json<InvitationResponse>), ApiError> {
    let pool = &state.stores.postgres;
    let acting = people::on_project(pool, &session.user.id, &project_id).await?;
    let invited = invitations::invite_to_project(pool, &acting, &project_id, request).await?;
    Ok((StatusCode::CREATED, Json(invited)))
}

/// Adds the person with this address to the organization with a role (OWNER, ADMIN; OWNER only by
/// an owner); 409 when they are a member already.
#[utoipa::path(
    post, path = "/api/ui/organizations/{organizationId}/invitations", tag = "ui",
    security(("sessionCookie" = [])), params(("organizationId" = String, Path)), request_body = InvitationRequest,
    responses(
        (status = 201, body = InvitationResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)
    )
)]
async fn ui_invite_to_organization(
    session: UserSession,
    State(state): State<AppState>,
    Path(org_id): Path<String>,
    JsonBody(request): JsonBody<InvitationRequest>,
) -> Result<(StatusCode, Json<InvitationResponse>), ApiError> {
    let pool = &state.stores.postgres;
    let acting = people::in_organization(pool, &session.user.id, &org_id).await?;
    Ok((StatusCode::CREATED, Json(invitations::invite_to_organization(pool, &acting, request).await?)))
}
