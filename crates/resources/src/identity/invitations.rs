//! What the settings pages need beyond the SDK-shaped membership routes: a project's people with
//! their organization role, project role and the role that counts, and inviting someone by email
//! address. An address without an account gets one without a password (as SCIM provisions one); the
//! person claims it by signing up with that address (`storage::accounts::sign_up`).

use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::PgPool;
use utoipa::ToSchema;

use domain::identity::{Action, Role, effective_project_role};

use super::memberships::{MembershipResponse, any_role};
use super::{Acting, require_own_project};
use crate::Error;

/// The longest address an invitation takes (RFC 5321's path limit, as sign-up).
pub const MAX_EMAIL_CHARS: usize = 320;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectMember {
    pub user_id: String,
    pub email: String,
    pub name: String,
    /// OWNER, ADMIN, MEMBER, VIEWER or NONE.
    pub organization_role: String,
    /// The override set on this project, if any.
    pub project_role: Option<String>,
    /// The role that counts on the project (NONE: no access).
    pub effective_role: String,
    /// Invited, and has not signed up yet.
    pub pending: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProjectMembers {
    pub members: Vec<ProjectMember>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InvitationRequest {
    /// The person's email address (at most 320 characters).
    pub email: String,
    /// OWNER, ADMIN, MEMBER, VIEWER or NONE.
    pub role: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvitationResponse {
    #[serde(flatten)]
    pub member: MembershipResponse,
    /// The address had no account: one was made, without a password, for them to claim at sign-up.
    pub new_account: bool,
}

fn email(text: &str) -> Result<String, Error> {
    let email = text.trim();
    if !email.contains('@')
        || email.chars().count() > MAX_EMAIL_CHARS
        || email.chars().any(char::is_whitespace)
    {
        return Err(Error::bad_request(format!(
            "email must be an email address of at most {MAX_EMAIL_CHARS} characters"
        )));
    }
    Ok(email.to_owned())
}

/// Every member of the project's organization, with the role that counts on the project.
pub async fn list_project_members(
    pool: &PgPool,
    acting: &Acting,
    project_id: &str,
) -> Result<ProjectMembers, Error> {
    acting.require(Action::MembersRead)?;
    require_own_project(pool, acting, project_id).await?;
    let organization = storage::members::organization_members(pool, &acting.org_id).await?;
    let overrides = storage::members::project_members(pool, project_id).await?;
    let pending = storage::members::without_password(pool, &acting.org_id).await?;
    let members = organization
        .into_iter()
        .map(|member| {
            let project_role = overrides.iter().find(|o| o.user_id == member.user_id).map(|o| o.role.clone());
            let effective = effective_project_role(
                member.role.parse().ok(),
                project_role.as_deref().and_then(|r| r.parse().ok()),
            )
            .unwrap_or(Role::None);
            ProjectMember {
                pending: pending.contains(&member.user_id),
                user_id: member.user_id,
                email: member.email,
                name: member.name.unwrap_or_default(),
                organization_role: member.role,
                project_role,
                effective_role: effective.as_str().to_owned(),
            }
        })
        .collect();
    Ok(ProjectMembers { members })
}

/// Adds the person with this address to the organization with `role` (OWNER only by an owner);
/// 409 when they are in it already (change their role instead).
pub async fn invite_to_organization(
    pool: &PgPool,
    acting: &Acting,
    request: InvitationRequest,
) -> Result<InvitationResponse, Error> {
    acting.require(Action::MembersManage)?;
    let email = email(&request.email)?;
    let role = any_role(&request.role)?;
    if role == Role::Owner {
        acting.require(Action::OwnersManage)?;
    }
    let mut tx = pool.begin().await?;
    let (user, new_account) = storage::members::ensure_user(&mut tx, &email, None).await?;
    if storage::members::organization_member(&mut tx, &acting.org_id, &user.id).await?.is_some() {
        return Err(Error::Conflict(format!("{email} is already a member of this organization")));
    }
    storage::members::set_organization_role(&mut tx, &acting.org_id, &user.id, role.as_str()).await?;
    let details = json!({"email": email, "role": role.as_str(), "newAccount": new_account});
    storage::audit::record(&mut tx, acting.audit(None, "membership.invite", ("user", &user.id), details))
        .await?;
    let member = storage::members::organization_member(&mut tx, &acting.org_id, &user.id)
        .await?
        .ok_or_else(|| Error::not_found("User not found"))?;
    tx.commit().await?;
    Ok(InvitationResponse { member: member.into(), new_account })
}

/// Gives the person with this address `role` on one project. Someone not yet in the organization
/// joins it with NONE, so the project is the only one they open.
pub async fn invite_to_project(
    pool: &PgPool,
    acting: &Acting,
    project_id: &str,
    request: InvitationRequest,
) -> Result<InvitationResponse, Error> {
    acting.require(Action::ProjectMembersManage)?;
    require_own_project(pool, acting, project_id).await?;
    let email = email(&request.email)?;
    let role = any_role(&request.role)?;
    let mut tx = pool.begin().await?;
    let (user, new_account) = storage::members::ensure_user(&mut tx, &email, None).await?;
    let joined = storage::members::organization_member(&mut tx, &acting.org_id, &user.id).await?.is_none();
    if joined {
        // Adding someone to the organization is a members action of its own.
        acting.require(Action::MembersManage)?;
        storage::members::set_organization_role(&mut tx, &acting.org_id, &user.id, Role::None.as_str())
            .await?;
    }
    storage::members::set_project_role(&mut tx, &acting.org_id, project_id, &user.id, role.as_str()).await?;
    let details = json!({"email": email, "role": role.as_str(), "newAccount": new_account, "joinedOrganization": joined});
    storage::audit::record(
        &mut tx,
        acting.audit(Some(project_id), "projectMembership.invite", ("user", &user.id), details),
    )
    .await?;
    let mut member = storage::members::organization_member(&mut tx, &acting.org_id, &user.id)
        .await?
        .ok_or_else(|| Error::not_found("User not found"))?;
    tx.commit().await?;
    member.role = role.as_str().to_owned();
    Ok(InvitationResponse { member: member.into(), new_account })
}
