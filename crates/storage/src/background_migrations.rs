//! State of the long-running background migrations (the historic backfill steps), one row each.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;

use crate::Result;

#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct BackgroundMigration {
    pub name: String,
    pub position: i32,
    pub description: String,
    pub status: String,
    pub rows_done: i64,
    pub rows_estimated: Option<i64>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub updated_at: DateTime<Utc>,
}

pub async fn list(pool: &PgPool) -> Result<Vec<BackgroundMigration>> {
    Ok(sqlx::query_as(
        "SELECT name, position, description, status, rows_done, rows_estimated, started_at, finished_at, \
         last_error, updated_at FROM background_migrations ORDER BY position",
    )
    .fetch_all(pool)
    .await?)
}
