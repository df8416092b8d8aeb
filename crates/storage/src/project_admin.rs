//! Creating, changing and deleting projects within an organization. Every statement is scoped by
//! the organization as well as the project id, so an organization never reaches another's project.

use sqlx::PgConnection;
use sqlx::types::Json;

use crate::projects::Project;
use crate::{Error, ErrorKind, Result};

const RETURNING: &str = "RETURNING id, name, org_id, \
    (SELECT o.name FROM organizations o WHERE o.id = org_id) AS org_name, retention_days, metadata";

pub async fn create(
    connection: &mut PgConnection,
    org_id: &str,
    name: &str,
    retention_days: Option<i32>,
    metadata: &serde_json::Value,
) -> Result<Project> {
    refuse_taken_name(connection, org_id, name, None).await?;
    let sql = format!(
        "INSERT INTO projects (id, org_id, name, retention_days, metadata) VALUES ($1, $2, $3, $4, $5) {RETURNING}"
    );
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(org_id)
        .bind(name)
        .bind(retention_days)
        .bind(Json(metadata))
        .fetch_one(connection)
        .await?)
}

/// What a project update changes; `None` keeps the stored value.
#[derive(Debug, Default)]
pub struct ProjectChange<'a> {
    pub name: &'a str,
    pub metadata: Option<&'a serde_json::Value>,
    /// `Some(None)` removes the retention.
    pub retention_days: Option<Option<i32>>,
}

/// `None` when the organization has no such live project.
pub async fn update(
    connection: &mut PgConnection,
    org_id: &str,
    project_id: &str,
    change: ProjectChange<'_>,
) -> Result<Option<Project>> {
    refuse_taken_name(connection, org_id, change.name, Some(project_id)).await?;
    let sql = format!(
        "UPDATE projects SET name = $3, metadata = COALESCE($4, metadata), \
             retention_days = CASE WHEN $5 THEN $6 ELSE retention_days END, updated_at = now() \
         WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL {RETURNING}"
    );
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project_id)
        .bind(org_id)
        .bind(change.name)
        .bind(change.metadata.map(Json))
        .bind(change.retention_days.is_some())
        .bind(change.retention_days.flatten())
        .fetch_optional(connection)
        .await?)
}

/// Deletes a project: its PostgreSQL rows go at once (every table references it `ON DELETE
/// CASCADE`), and a `project_deletions` row asks the worker to remove its ClickHouse rows and
/// blobs. Returns the public keys that opened it, for revocation, or `None` when the organization
/// has no such project.
pub async fn delete(
    connection: &mut PgConnection,
    org_id: &str,
    project_id: &str,
) -> Result<Option<Vec<String>>> {
    let found: Option<String> =
        sqlx::query_scalar("SELECT id FROM projects WHERE id = $1 AND org_id = $2 FOR UPDATE")
            .bind(project_id)
            .bind(org_id)
            .fetch_optional(&mut *connection)
            .await?;
    if found.is_none() {
        return Ok(None);
    }
    let keys = crate::api_keys::project_public_keys(connection, project_id).await?;
    sqlx::query("DELETE FROM projects WHERE id = $1").bind(project_id).execute(&mut *connection).await?;
    // The one table naming a project without a foreign key (a dead letter may name a project that
    // never existed).
    sqlx::query("DELETE FROM ingestion_dead_letters WHERE project_id = $1")
        .bind(project_id)
        .execute(&mut *connection)
        .await?;
    crate::project_deletions::request(connection, project_id, org_id).await?;
    Ok(Some(keys))
}

async fn refuse_taken_name(
    connection: &mut PgConnection,
    org_id: &str,
    name: &str,
    except: Option<&str>,
) -> Result<()> {
    // Serialises name checks within the organization, so two concurrent creates cannot both pass.
    sqlx::query("SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE")
        .bind(org_id)
        .execute(&mut *connection)
        .await?;
    let taken: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM projects WHERE org_id = $1 AND name = $2 AND deleted_at IS NULL \
             AND id IS DISTINCT FROM $3)",
    )
    .bind(org_id)
    .bind(name)
    .bind(except)
    .fetch_one(connection)
    .await?;
    if taken {
        return Err(Error::new(
            ErrorKind::Conflict,
            "A project with this name already exists in the organization",
        ));
    }
    Ok(())
}
