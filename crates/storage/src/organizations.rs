//! Organizations and the projects they own, as the admin routes manage them. A project's own key
//! lookups stay in `projects.rs`.

use chrono::{DateTime, Utc};
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};

use crate::{Error, ErrorKind, Result};

#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct Organization {
    pub id: String,
    pub name: String,
    pub metadata: Json<serde_json::Value>,
    pub created_at: DateTime<Utc>,
}

/// A live project as an organization lists it.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct OrganizationProject {
    pub id: String,
    pub name: String,
    pub metadata: Json<serde_json::Value>,
    pub retention_days: Option<i32>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

const COLUMNS: &str = "id, name, metadata, created_at";

pub async fn create(
    connection: &mut PgConnection,
    id: &str,
    name: &str,
    metadata: &serde_json::Value,
) -> Result<Organization> {
    let sql =
        format!("INSERT INTO organizations (id, name, metadata) VALUES ($1, $2, $3) RETURNING {COLUMNS}");
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .bind(name)
        .bind(Json(metadata))
        .fetch_one(connection)
        .await?)
}

pub async fn list(pool: &PgPool) -> Result<Vec<Organization>> {
    let sql = format!("SELECT {COLUMNS} FROM organizations ORDER BY created_at, id");
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql)).fetch_all(pool).await?)
}

pub async fn get(connection: &mut PgConnection, id: &str) -> Result<Option<Organization>> {
    let sql = format!("SELECT {COLUMNS} FROM organizations WHERE id = $1");
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(connection).await?)
}

/// Renames an organization and, when given, replaces its metadata; `None` when there is none.
pub async fn update(
    connection: &mut PgConnection,
    id: &str,
    name: &str,
    metadata: Option<&serde_json::Value>,
) -> Result<Option<Organization>> {
    let sql = format!(
        "UPDATE organizations SET name = $2, metadata = COALESCE($3, metadata), updated_at = now() \
         WHERE id = $1 RETURNING {COLUMNS}"
    );
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .bind(name)
        .bind(metadata.map(Json))
        .fetch_optional(connection)
        .await?)
}

/// Deletes an organization that owns no project (its projects' data must be deleted on purpose,
/// one project at a time). `Ok(false)`: no such organization.
pub async fn delete(connection: &mut PgConnection, id: &str) -> Result<bool> {
    let projects: i64 = sqlx::query_scalar("SELECT count(*) FROM projects WHERE org_id = $1")
        .bind(id)
        .fetch_one(&mut *connection)
        .await?;
    if projects > 0 {
        return Err(Error::new(
            ErrorKind::Conflict,
            "Cannot delete organization with existing projects. Please delete all projects first.",
        ));
    }
    let deleted = sqlx::query("DELETE FROM organizations WHERE id = $1").bind(id).execute(connection).await?;
    Ok(deleted.rows_affected() > 0)
}

pub async fn projects(connection: &mut PgConnection, org_id: &str) -> Result<Vec<OrganizationProject>> {
    Ok(sqlx::query_as(
        "SELECT id, name, metadata, retention_days, created_at, updated_at FROM projects \
         WHERE org_id = $1 AND deleted_at IS NULL ORDER BY created_at, id",
    )
    .bind(org_id)
    .fetch_all(connection)
    .await?)
}
