//! The removal of a deleted project's ClickHouse rows and blobs: requested in the transaction that
//! deletes the project, carried out by the worker step by step, each step recorded so a restart
//! goes on where it stopped (every step is idempotent: deleting what is gone deletes nothing).

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};

use crate::Result;

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ProjectDeletion {
    pub project_id: String,
    pub org_id: String,
    /// pending, running, succeeded or failed
    pub status: String,
    pub steps_done: Vec<String>,
    pub steps_total: i32,
    pub blobs_deleted: i64,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub requested_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

const COLUMNS: &str = "project_id, org_id, status, steps_done, steps_total, blobs_deleted, attempts, \
    last_error, requested_at, updated_at, finished_at";

/// Asks for the removal; asking again (a project id reused after a deletion) starts it over.
pub async fn request(connection: &mut PgConnection, project_id: &str, org_id: &str) -> Result<()> {
    sqlx::query(
        "INSERT INTO project_deletions (project_id, org_id) VALUES ($1, $2) \
         ON CONFLICT (project_id) DO UPDATE SET org_id = EXCLUDED.org_id, status = 'pending', \
             steps_done = '{}', blobs_deleted = 0, attempts = 0, last_error = NULL, \
             requested_at = now(), updated_at = now(), finished_at = NULL",
    )
    .bind(project_id)
    .bind(org_id)
    .execute(connection)
    .await?;
    Ok(())
}

pub async fn get(pool: &PgPool, project_id: &str) -> Result<Option<ProjectDeletion>> {
    let sql = format!("SELECT {COLUMNS} FROM project_deletions WHERE project_id = $1");
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project_id).fetch_optional(pool).await?)
}

/// Takes the oldest unfinished deletion for this worker: a pending one, a failed one not tried for
/// `retry_after`, or a running one whose worker has not reported for `stale_after` (it died).
pub async fn claim(
    pool: &PgPool,
    steps_total: i32,
    retry_after: chrono::Duration,
    stale_after: chrono::Duration,
) -> Result<Option<ProjectDeletion>> {
    let sql = format!(
        "UPDATE project_deletions SET status = 'running', attempts = attempts + 1, steps_total = $1, \
             updated_at = now() \
         WHERE project_id = (SELECT project_id FROM project_deletions \
             WHERE status = 'pending' OR (status = 'failed' AND updated_at < now() - $2) \
                 OR (status = 'running' AND updated_at < now() - $3) \
             ORDER BY requested_at LIMIT 1 FOR UPDATE SKIP LOCKED) \
         RETURNING {COLUMNS}"
    );
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(steps_total)
        .bind(retry_after)
        .bind(stale_after)
        .fetch_optional(pool)
        .await?)
}

/// Records a finished step (and the blobs it removed), which also proves the worker alive.
pub async fn step_done(pool: &PgPool, project_id: &str, step: &str, blobs_deleted: i64) -> Result<()> {
    sqlx::query(
        "UPDATE project_deletions SET steps_done = array_append(array_remove(steps_done, $2), $2), \
             blobs_deleted = blobs_deleted + $3, updated_at = now() WHERE project_id = $1",
    )
    .bind(project_id)
    .bind(step)
    .bind(blobs_deleted)
    .execute(pool)
    .await?;
    Ok(())
}

pub async fn finish(pool: &PgPool, project_id: &str, error: Option<&str>) -> Result<()> {
    sqlx::query(
        "UPDATE project_deletions SET status = CASE WHEN $2::text IS NULL THEN 'succeeded' ELSE 'failed' END, \
             last_error = $2, finished_at = CASE WHEN $2::text IS NULL THEN now() END, updated_at = now() \
         WHERE project_id = $1",
    )
    .bind(project_id)
    .bind(error)
    .execute(pool)
    .await?;
    Ok(())
}
