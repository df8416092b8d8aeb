//! What a signed-in person may reach: their role in an organization, their effective role on a
//! project (the project role when set, else the organization's), the organizations and projects they
//! see, and the audit log an owner reads. A place they have no role in is "not found".

use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;

use domain::identity::{Action, Role, Subject, effective_project_role, permits};
use reads::params::PageRequest;
use storage::audit::Actor;

use super::Acting;
use crate::{Error, Page};

const NO_ORGANIZATION: &str = "Organization not found";

fn role(text: &str) -> Option<Role> {
    text.parse().ok()
}

/// The acting user in an organization they belong to (404 otherwise).
pub async fn in_organization(pool: &PgPool, user_id: &str, org_id: &str) -> Result<Acting, Error> {
    let mut connection = pool.acquire().await?;
    let member = storage::members::organization_member(&mut connection, org_id, user_id)
        .await?
        .ok_or_else(|| Error::not_found(NO_ORGANIZATION))?;
    let role = role(&member.role).ok_or_else(|| Error::not_found(NO_ORGANIZATION))?;
    Ok(Acting {
        org_id: org_id.to_owned(),
        actor: Actor::User(user_id.to_owned()),
        subject: Subject::Role(role),
    })
}

/// The acting user on a project, with their effective role there; 404 when they have no access to it
/// at all (not in its organization, or NONE on it), as if it did not exist.
pub async fn on_project(pool: &PgPool, user_id: &str, project_id: &str) -> Result<Acting, Error> {
    Ok(with_project(pool, user_id, project_id).await?.0)
}

/// [`on_project`], with the project it found.
pub async fn with_project(
    pool: &PgPool,
    user_id: &str,
    project_id: &str,
) -> Result<(Acting, storage::projects::Project), Error> {
    let not_found = || Error::not_found(super::projects::NOT_FOUND);
    let project = storage::projects::find_project(pool, project_id).await?.ok_or_else(not_found)?;
    let access = storage::members::access_of(pool, user_id).await?;
    let row = access.iter().find(|a| a.org_id == project.org_id).ok_or_else(not_found)?;
    let project_role = access
        .iter()
        .find(|a| a.project_id.as_deref() == Some(project_id))
        .and_then(|a| a.project_role.as_deref())
        .and_then(role);
    let effective = effective_project_role(role(&row.org_role), project_role).ok_or_else(not_found)?;
    if !permits(Subject::Role(effective), Action::ProjectRead) {
        return Err(not_found());
    }
    let acting = Acting {
        org_id: project.org_id.clone(),
        actor: Actor::User(user_id.to_owned()),
        subject: Subject::Role(effective),
    };
    Ok((acting, project))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProjectAccess {
    pub id: String,
    pub name: String,
    pub role: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OrganizationAccess {
    pub id: String,
    pub name: String,
    pub role: String,
    /// The projects the person can open, with their effective role on each.
    pub projects: Vec<ProjectAccess>,
}

/// Every organization the user is in, with the projects they can open there.
pub async fn organizations_of(pool: &PgPool, user_id: &str) -> Result<Vec<OrganizationAccess>, Error> {
    let mut organizations: Vec<OrganizationAccess> = Vec::new();
    for row in storage::members::access_of(pool, user_id).await? {
        if organizations.last().is_none_or(|o| o.id != row.org_id) {
            organizations.push(OrganizationAccess {
                id: row.org_id.clone(),
                name: row.org_name.clone(),
                role: row.org_role.clone(),
                projects: Vec::new(),
            });
        }
        let (Some(id), Some(name)) = (row.project_id, row.project_name) else { continue };
        let effective =
            effective_project_role(role(&row.org_role), row.project_role.as_deref().and_then(role));
        if let Some(effective) = effective.filter(|r| permits(Subject::Role(*r), Action::ProjectRead))
            && let Some(organization) = organizations.last_mut()
        {
            organization.projects.push(ProjectAccess { id, name, role: effective.as_str().to_owned() });
        }
    }
    Ok(organizations)
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    pub id: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub project_id: Option<String>,
    /// USER, ORGANIZATION_API_KEY or ADMIN_API_KEY
    pub actor_type: String,
    /// A user id, or an organization key's public key.
    pub actor_id: String,
    pub action: String,
    pub target_type: String,
    pub target_id: String,
    #[schema(value_type = Object)]
    pub details: serde_json::Value,
}

/// The organization's audit log, newest first (owners only).
pub async fn audit_log(
    pool: &PgPool,
    acting: &Acting,
    request: &PageRequest,
) -> Result<Page<AuditEntry>, Error> {
    acting.require(Action::AuditLogRead)?;
    let (page, limit) = (request.page, request.limit);
    let (rows, total) = storage::audit::list(pool, &acting.org_id, page, limit).await?;
    let data = rows
        .into_iter()
        .map(|row| AuditEntry {
            id: row.id.to_string(),
            created_at: row.created_at,
            project_id: row.project_id,
            actor_type: row.actor_type,
            actor_id: row.actor_id,
            action: row.action,
            target_type: row.target_type,
            target_id: row.target_id,
            details: row.details.0,
        })
        .collect();
    Ok(Page::new(data, request, total))
}
