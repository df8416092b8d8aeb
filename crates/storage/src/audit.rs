//! The audit log: every admin action (keys, members, roles, projects), recorded in the same
//! transaction as the change it describes, so neither exists without the other.

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::Result;

/// Who acted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// A signed-in person, by user id.
    User(String),
    /// An organization-scoped API key, by public key.
    OrganizationKey(String),
    /// `Authorization: Bearer <ADMIN_API_KEY>`.
    InstanceAdmin,
    /// A project-scoped API key, by public key (public routes that change project settings).
    ProjectKey(String),
}

impl Actor {
    fn parts(&self) -> (&'static str, &str) {
        match self {
            Actor::User(id) => ("USER", id),
            Actor::OrganizationKey(public_key) => ("ORGANIZATION_API_KEY", public_key),
            Actor::InstanceAdmin => ("ADMIN_API_KEY", "admin"),
            Actor::ProjectKey(public_key) => ("PROJECT_API_KEY", public_key),
        }
    }
}

/// One admin action.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    pub org_id: &'a str,
    pub project_id: Option<&'a str>,
    pub actor: &'a Actor,
    /// e.g. `apiKey.create`, `membership.update`, `project.delete`
    pub action: &'a str,
    pub target_type: &'a str,
    pub target_id: &'a str,
    /// What changed; never a secret.
    pub details: serde_json::Value,
}

pub async fn record(connection: &mut PgConnection, entry: Entry<'_>) -> Result<()> {
    let (actor_type, actor_id) = entry.actor.parts();
    sqlx::query(
        "INSERT INTO audit_log (id, org_id, project_id, actor_type, actor_id, action, target_type, \
             target_id, details) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(Uuid::now_v7())
    .bind(entry.org_id)
    .bind(entry.project_id)
    .bind(actor_type)
    .bind(actor_id)
    .bind(entry.action)
    .bind(entry.target_type)
    .bind(entry.target_id)
    .bind(sqlx::types::Json(entry.details))
    .execute(connection)
    .await?;
    Ok(())
}

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct Recorded {
    pub id: Uuid,
    pub project_id: Option<String>,
    pub actor_type: String,
    pub actor_id: String,
    pub action: String,
    pub target_type: String,
    pub target_id: String,
    pub details: sqlx::types::Json<serde_json::Value>,
    pub created_at: DateTime<Utc>,
}

/// An organization's entries, newest first, a page at a time (1-based), and their total.
pub async fn list(pool: &PgPool, org_id: &str, page: i64, limit: i64) -> Result<(Vec<Recorded>, i64)> {
    let rows = sqlx::query_as(
        "SELECT id, project_id, actor_type, actor_id, action, target_type, target_id, details, created_at \
         FROM audit_log WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3",
    )
    .bind(org_id)
    .bind(limit)
    .bind((page - 1).saturating_mul(limit))
    .fetch_all(pool)
    .await?;
    let total = sqlx::query_scalar("SELECT count(*) FROM audit_log WHERE org_id = $1")
        .bind(org_id)
        .fetch_one(pool)
        .await?;
    Ok((rows, total))
}
