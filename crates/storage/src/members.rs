//! People and their roles: users, organization memberships and project roles. Every membership
//! statement is scoped by the organization, so one organization never reads or changes another's.

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};

use crate::Result;

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct User {
    pub id: String,
    pub email: String,
    pub name: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A user with their role (in an organization, or on a project).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Member {
    pub user_id: String,
    pub email: String,
    pub name: Option<String>,
    pub role: String,
    pub created_at: DateTime<Utc>,
}

const USER_COLUMNS: &str = "id, email, name, created_at, updated_at";

pub async fn find_user(pool: &PgPool, id: &str) -> Result<Option<User>> {
    let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE id = $1");
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(pool).await?)
}

pub async fn find_user_by_email(connection: &mut PgConnection, email: &str) -> Result<Option<User>> {
    let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE lower(email) = lower($1)");
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(email).fetch_optional(connection).await?)
}

/// The user with this address, created (with this name, no password) when there is none.
pub async fn ensure_user(
    connection: &mut PgConnection,
    email: &str,
    name: Option<&str>,
) -> Result<(User, bool)> {
    if let Some(user) = find_user_by_email(connection, email).await? {
        return Ok((user, false));
    }
    let sql = format!(
        "INSERT INTO users (id, email, name) VALUES ($1, $2, $3) \
         ON CONFLICT ((lower(email))) DO UPDATE SET updated_at = users.updated_at RETURNING {USER_COLUMNS}"
    );
    let user: User = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(email)
        .bind(name)
        .fetch_one(connection)
        .await?;
    Ok((user, true))
}

/// The organization's members, oldest first.
pub async fn organization_members(pool: &PgPool, org_id: &str) -> Result<Vec<Member>> {
    Ok(sqlx::query_as(
        "SELECT u.id AS user_id, u.email, u.name, m.role, m.created_at FROM organization_memberships m \
         JOIN users u ON u.id = m.user_id WHERE m.org_id = $1 ORDER BY m.created_at, u.id",
    )
    .bind(org_id)
    .fetch_all(pool)
    .await?)
}

pub async fn organization_member(
    connection: &mut PgConnection,
    org_id: &str,
    user_id: &str,
) -> Result<Option<Member>> {
    Ok(sqlx::query_as(
        "SELECT u.id AS user_id, u.email, u.name, m.role, m.created_at FROM organization_memberships m \
         JOIN users u ON u.id = m.user_id WHERE m.org_id = $1 AND m.user_id = $2",
    )
    .bind(org_id)
    .bind(user_id)
    .fetch_optional(connection)
    .await?)
}

/// The organization's members who have no password yet: invited or provisioned, not signed up.
pub async fn without_password(pool: &PgPool, org_id: &str) -> Result<std::collections::HashSet<String>> {
    let ids: Vec<String> = sqlx::query_scalar(
        "SELECT u.id FROM organization_memberships m JOIN users u ON u.id = m.user_id \
         WHERE m.org_id = $1 AND u.password_hash IS NULL",
    )
    .bind(org_id)
    .fetch_all(pool)
    .await?;
    Ok(ids.into_iter().collect())
}

/// Sets a user's organization role (adding the membership when there is none).
pub async fn set_organization_role(
    connection: &mut PgConnection,
    org_id: &str,
    user_id: &str,
    role: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO organization_memberships (org_id, user_id, role) VALUES ($1, $2, $3) \
         ON CONFLICT (org_id, user_id) DO UPDATE SET role = EXCLUDED.role, updated_at = now()",
    )
    .bind(org_id)
    .bind(user_id)
    .bind(role)
    .execute(connection)
    .await?;
    Ok(())
}

/// Removes a user from the organization (their project roles in it go too); whether they were in it.
pub async fn remove_organization_member(
    connection: &mut PgConnection,
    org_id: &str,
    user_id: &str,
) -> Result<bool> {
    let removed = sqlx::query("DELETE FROM organization_memberships WHERE org_id = $1 AND user_id = $2")
        .bind(org_id)
        .bind(user_id)
        .execute(connection)
        .await?;
    Ok(removed.rows_affected() > 0)
}

/// How many owners the organization has (its last one cannot leave or be demoted).
pub async fn owner_count(connection: &mut PgConnection, org_id: &str) -> Result<i64> {
    Ok(sqlx::query_scalar(
        "SELECT count(*) FROM organization_memberships WHERE org_id = $1 AND role = 'OWNER'",
    )
    .bind(org_id)
    .fetch_one(connection)
    .await?)
}

/// The project roles set on a project.
pub async fn project_members(pool: &PgPool, project_id: &str) -> Result<Vec<Member>> {
    Ok(sqlx::query_as(
        "SELECT u.id AS user_id, u.email, u.name, m.role, m.created_at FROM project_memberships m \
         JOIN users u ON u.id = m.user_id WHERE m.project_id = $1 ORDER BY m.created_at, u.id",
    )
    .bind(project_id)
    .fetch_all(pool)
    .await?)
}

/// Sets a project role; the user must be in the project's organization (the foreign key says so).
pub async fn set_project_role(
    connection: &mut PgConnection,
    org_id: &str,
    project_id: &str,
    user_id: &str,
    role: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO project_memberships (project_id, org_id, user_id, role) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (project_id, user_id) DO UPDATE SET role = EXCLUDED.role, updated_at = now()",
    )
    .bind(project_id)
    .bind(org_id)
    .bind(user_id)
    .bind(role)
    .execute(connection)
    .await?;
    Ok(())
}

pub async fn remove_project_role(
    connection: &mut PgConnection,
    project_id: &str,
    user_id: &str,
) -> Result<bool> {
    let removed = sqlx::query("DELETE FROM project_memberships WHERE project_id = $1 AND user_id = $2")
        .bind(project_id)
        .bind(user_id)
        .execute(connection)
        .await?;
    Ok(removed.rows_affected() > 0)
}

/// A user's roles: in each organization, and the project roles set for them.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Access {
    pub org_id: String,
    pub org_name: String,
    pub org_role: String,
    pub project_id: Option<String>,
    pub project_name: Option<String>,
    pub project_role: Option<String>,
}

/// Every organization of the user with every live project in it, and the project role set there.
pub async fn access_of(pool: &PgPool, user_id: &str) -> Result<Vec<Access>> {
    Ok(sqlx::query_as(
        "SELECT o.id AS org_id, o.name AS org_name, m.role AS org_role, p.id AS project_id, \
             p.name AS project_name, pm.role AS project_role \
         FROM organization_memberships m JOIN organizations o ON o.id = m.org_id \
         LEFT JOIN projects p ON p.org_id = o.id AND p.deleted_at IS NULL \
         LEFT JOIN project_memberships pm ON pm.project_id = p.id AND pm.user_id = m.user_id \
         WHERE m.user_id = $1 ORDER BY o.created_at, o.id, p.created_at, p.id",
    )
    .bind(user_id)
    .fetch_all(pool)
    .await?)
}

/// Deletes a user everywhere (memberships, sessions); whether there was one.
pub async fn delete_user(connection: &mut PgConnection, user_id: &str) -> Result<bool> {
    let deleted = sqlx::query("DELETE FROM users WHERE id = $1").bind(user_id).execute(connection).await?;
    Ok(deleted.rows_affected() > 0)
}
