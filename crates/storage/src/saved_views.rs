//! Saved Observations views of a project (`saved_views`): a name and the UI's state, shared by the
//! project's members. Names are unique per project, whatever their case.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgPool;

use crate::Result;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SavedView {
    pub id: String,
    pub project_id: String,
    pub name: String,
    pub state: Value,
    pub created_by: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

const COLUMNS: &str = "id, project_id, name, state, created_by, created_at, updated_at";

/// Every view of the project, by name.
pub async fn list(pool: &PgPool, project_id: &str) -> Result<Vec<SavedView>> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM saved_views WHERE project_id = $1 ORDER BY lower(name), id"
    )))
    .bind(project_id)
    .fetch_all(pool)
    .await?)
}

/// Stores a new view; `None` when the project already has a view of that name.
pub async fn create(
    pool: &PgPool,
    project_id: &str,
    name: &str,
    state: &Value,
    created_by: &str,
) -> Result<Option<SavedView>> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO saved_views (id, project_id, name, state, created_by) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT DO NOTHING RETURNING {COLUMNS}"
    )))
    .bind(uuid::Uuid::now_v7().to_string())
    .bind(project_id)
    .bind(name)
    .bind(state)
    .bind(created_by)
    .fetch_optional(pool)
    .await?)
}

/// What an update found.
pub enum Updated {
    Done(SavedView),
    NotFound,
    NameTaken,
}

/// Renames a view and/or replaces its state (`None` keeps what is stored).
pub async fn update(
    pool: &PgPool,
    project_id: &str,
    id: &str,
    name: Option<&str>,
    state: Option<&Value>,
) -> Result<Updated> {
    let updated = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "UPDATE saved_views SET name = COALESCE($3, name), state = COALESCE($4, state), updated_at = now() \
         WHERE project_id = $1 AND id = $2 RETURNING {COLUMNS}"
    )))
    .bind(project_id)
    .bind(id)
    .bind(name)
    .bind(state)
    .fetch_optional(pool)
    .await;
    match updated {
        Ok(Some(view)) => Ok(Updated::Done(view)),
        Ok(None) => Ok(Updated::NotFound),
        Err(sqlx::Error::Database(error)) if error.is_unique_violation() => Ok(Updated::NameTaken),
        Err(error) => Err(error.into()),
    }
}

/// Deletes a view; `false` when the project has no such view.
pub async fn delete(pool: &PgPool, project_id: &str, id: &str) -> Result<bool> {
    let deleted = sqlx::query("DELETE FROM saved_views WHERE project_id = $1 AND id = $2")
        .bind(project_id)
        .bind(id)
        .execute(pool)
        .await?;
    Ok(deleted.rows_affected() == 1)
}
