//! Organization memberships and project roles, as the organization-key routes manage them
//! (`langfuse.api.organizations`). The SDK's `MembershipRole` has no NONE, so these routes neither
//! set nor list it; the UI's routes do.

use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::PgPool;
use utoipa::ToSchema;

use domain::identity::{Action, Role};
use storage::members::Member;

use super::{Acting, require_own_project};
use crate::Error;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MembershipResponse {
    pub user_id: String,
    pub role: String,
    pub email: String,
    /// The SDK requires a string: empty when the user has no name.
    pub name: String,
}

impl From<Member> for MembershipResponse {
    fn from(member: Member) -> Self {
        Self {
            user_id: member.user_id,
            role: member.role,
            email: member.email,
            name: member.name.unwrap_or_default(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MembershipsResponse {
    pub memberships: Vec<MembershipResponse>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MembershipDeletionResponse {
    pub message: String,
    pub user_id: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MembershipRequest {
    pub user_id: String,
    pub role: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeleteMembershipRequest {
    pub user_id: String,
}

fn listed(members: Vec<Member>) -> MembershipsResponse {
    MembershipsResponse {
        memberships: members.into_iter().filter(|m| m.role != Role::None.as_str()).map(Into::into).collect(),
    }
}

fn public_role(text: &str) -> Result<Role, Error> {
    Role::parse_public(text).map_err(|e| Error::bad_request(e.to_string()))
}

pub async fn list_organization(pool: &PgPool, acting: &Acting) -> Result<MembershipsResponse, Error> {
    acting.require(Action::MembersRead)?;
    Ok(listed(storage::members::organization_members(pool, &acting.org_id).await?))
}

pub async fn set_organization(
    pool: &PgPool,
    acting: &Acting,
    request: MembershipRequest,
) -> Result<MembershipResponse, Error> {
    acting.require(Action::MembersManage)?;
    let role = public_role(&request.role)?;
    set_organization_role(pool, acting, &request.user_id, role).await
}

/// Every member with their role, NONE included: the UI's list.
pub async fn list_organization_all(pool: &PgPool, acting: &Acting) -> Result<MembershipsResponse, Error> {
    acting.require(Action::MembersRead)?;
    let members = storage::members::organization_members(pool, &acting.org_id).await?;
    Ok(MembershipsResponse { memberships: members.into_iter().map(Into::into).collect() })
}

/// The role as text, any of the five (the UI may set NONE).
pub fn any_role(text: &str) -> Result<Role, Error> {
    text.parse().map_err(|e: domain::identity::UnknownRole| Error::bad_request(e.to_string()))
}

/// Adds a user to the organization or changes their role (NONE included).
pub async fn set_organization_role(
    pool: &PgPool,
    acting: &Acting,
    user_id: &str,
    role: Role,
) -> Result<MembershipResponse, Error> {
    acting.require(Action::MembersManage)?;
    let mut tx = pool.begin().await?;
    if storage::members::find_user(pool, user_id).await?.is_none() {
        return Err(Error::not_found("User not found"));
    }
    let current = storage::members::organization_member(&mut tx, &acting.org_id, user_id).await?;
    let was_owner = current.as_ref().is_some_and(|m| m.role == Role::Owner.as_str());
    if role == Role::Owner || was_owner {
        acting.require(Action::OwnersManage)?;
    }
    if was_owner && role != Role::Owner && storage::members::owner_count(&mut tx, &acting.org_id).await? <= 1
    {
        return Err(Error::bad_request("The organization's last owner cannot be given another role"));
    }
    storage::members::set_organization_role(&mut tx, &acting.org_id, user_id, role.as_str()).await?;
    let details = json!({"role": role.as_str(), "previousRole": current.as_ref().map(|m| m.role.clone())});
    storage::audit::record(&mut tx, acting.audit(None, "membership.update", ("user", user_id), details))
        .await?;
    let member = storage::members::organization_member(&mut tx, &acting.org_id, user_id)
        .await?
        .ok_or_else(|| Error::not_found("User not found"))?;
    tx.commit().await?;
    Ok(member.into())
}

pub async fn remove_organization(
    pool: &PgPool,
    acting: &Acting,
    request: DeleteMembershipRequest,
) -> Result<MembershipDeletionResponse, Error> {
    acting.require(Action::MembersManage)?;
    let mut tx = pool.begin().await?;
    let current = storage::members::organization_member(&mut tx, &acting.org_id, &request.user_id)
        .await?
        .ok_or_else(|| Error::not_found("Membership not found"))?;
    if current.role == Role::Owner.as_str() {
        acting.require(Action::OwnersManage)?;
        if storage::members::owner_count(&mut tx, &acting.org_id).await? <= 1 {
            return Err(Error::bad_request("The organization's last owner cannot be removed"));
        }
    }
    storage::members::remove_organization_member(&mut tx, &acting.org_id, &request.user_id).await?;
    let details = json!({"previousRole": current.role});
    storage::audit::record(
        &mut tx,
        acting.audit(None, "membership.delete", ("user", &request.user_id), details),
    )
    .await?;
    tx.commit().await?;
    Ok(MembershipDeletionResponse {
        message: "Membership deleted successfully".to_owned(),
        user_id: request.user_id,
    })
}

pub async fn list_project(
    pool: &PgPool,
    acting: &Acting,
    project_id: &str,
) -> Result<MembershipsResponse, Error> {
    acting.require(Action::MembersRead)?;
    require_own_project(pool, acting, project_id).await?;
    Ok(listed(storage::members::project_members(pool, project_id).await?))
}

pub async fn set_project(
    pool: &PgPool,
    acting: &Acting,
    project_id: &str,
    request: MembershipRequest,
) -> Result<MembershipResponse, Error> {
    acting.require(Action::ProjectMembersManage)?;
    let role = public_role(&request.role)?;
    set_project_role(pool, acting, project_id, &request.user_id, role).await
}

/// Sets a member's role on one project (NONE included: it takes the project away from them).
pub async fn set_project_role(
    pool: &PgPool,
    acting: &Acting,
    project_id: &str,
    user_id: &str,
    role: Role,
) -> Result<MembershipResponse, Error> {
    acting.require(Action::ProjectMembersManage)?;
    require_own_project(pool, acting, project_id).await?;
    let mut tx = pool.begin().await?;
    let mut member = storage::members::organization_member(&mut tx, &acting.org_id, user_id)
        .await?
        .ok_or_else(|| Error::not_found("User is not a member of the organization"))?;
    storage::members::set_project_role(&mut tx, &acting.org_id, project_id, user_id, role.as_str()).await?;
    let details = json!({"role": role.as_str()});
    storage::audit::record(
        &mut tx,
        acting.audit(Some(project_id), "projectMembership.update", ("user", user_id), details),
    )
    .await?;
    tx.commit().await?;
    member.role = role.as_str().to_owned();
    Ok(member.into())
}

pub async fn remove_project(
    pool: &PgPool,
    acting: &Acting,
    project_id: &str,
    request: DeleteMembershipRequest,
) -> Result<MembershipDeletionResponse, Error> {
    acting.require(Action::ProjectMembersManage)?;
    require_own_project(pool, acting, project_id).await?;
    let mut tx = pool.begin().await?;
    if !storage::members::remove_project_role(&mut tx, project_id, &request.user_id).await? {
        return Err(Error::not_found("Membership not found"));
    }
    storage::audit::record(
        &mut tx,
        acting.audit(Some(project_id), "projectMembership.delete", ("user", &request.user_id), json!({})),
    )
    .await?;
    tx.commit().await?;
    Ok(MembershipDeletionResponse {
        message: "Project membership deleted successfully".to_owned(),
        user_id: request.user_id,
    })
}
