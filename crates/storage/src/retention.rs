//! Retention in PostgreSQL (docs/retention.md): the job's progress per project and target, its
//! passes, and the relational rows that are trace data — comments on traces, observations and
//! sessions, media no recent trace refers to, dead letters — removed past a project's window.

use chrono::{DateTime, Utc};
use sqlx::PgPool;

use crate::Result;

/// What one run of one unit (a project's rows in one target) removed, or why it failed.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Progress {
    pub project_id: String,
    pub target: String,
    pub last_run_at: DateTime<Utc>,
    pub last_cutoff: DateTime<Utc>,
    pub last_removed: i64,
    pub removed_total: i64,
    pub partitions_dropped: i64,
    pub last_error: Option<String>,
}

/// The outcome of one unit, recorded by [`record`].
pub struct Run<'a> {
    pub project_id: &'a str,
    pub target: &'a str,
    pub cutoff: DateTime<Utc>,
    pub removed: i64,
    pub partitions_dropped: i64,
    pub error: Option<&'a str>,
}

/// Records a unit's run: counts add up, the error is the last run's (cleared by a success). A
/// project deleted meanwhile has no row to record against; that is not an error.
pub async fn record(pool: &PgPool, run: &Run<'_>) -> Result<()> {
    sqlx::query(
        "INSERT INTO retention_progress (project_id, target, last_run_at, last_cutoff, last_removed, \
             removed_total, partitions_dropped, last_error) \
         SELECT $1, $2, now(), $3, $4, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM projects WHERE id = $1) \
         ON CONFLICT (project_id, target) DO UPDATE SET last_run_at = now(), last_cutoff = EXCLUDED.last_cutoff, \
             last_removed = EXCLUDED.last_removed, \
             removed_total = retention_progress.removed_total + EXCLUDED.last_removed, \
             partitions_dropped = retention_progress.partitions_dropped + EXCLUDED.partitions_dropped, \
             last_error = EXCLUDED.last_error",
    )
    .bind(run.project_id)
    .bind(run.target)
    .bind(run.cutoff)
    .bind(run.removed)
    .bind(run.partitions_dropped)
    .bind(run.error)
    .execute(pool)
    .await?;
    Ok(())
}

pub async fn progress(pool: &PgPool) -> Result<Vec<Progress>> {
    Ok(sqlx::query_as(
        "SELECT project_id, target, last_run_at, last_cutoff, last_removed, removed_total, \
             partitions_dropped, last_error FROM retention_progress ORDER BY project_id, target",
    )
    .fetch_all(pool)
    .await?)
}

const PASS: &str = "retention";

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Pass {
    pub holder: String,
    pub started_at: DateTime<Utc>,
    /// `None` while it runs (or when its worker died during it).
    pub finished_at: Option<DateTime<Utc>>,
    pub errors: i32,
}

pub async fn pass_started(pool: &PgPool, holder: &str) -> Result<()> {
    sqlx::query(
        "INSERT INTO retention_passes (name, holder, started_at) VALUES ($1, $2, now()) \
         ON CONFLICT (name) DO UPDATE SET holder = $2, started_at = now(), finished_at = NULL",
    )
    .bind(PASS)
    .bind(holder)
    .execute(pool)
    .await?;
    Ok(())
}

pub async fn pass_finished(pool: &PgPool, errors: i32) -> Result<()> {
    sqlx::query("UPDATE retention_passes SET finished_at = now(), errors = $2 WHERE name = $1")
        .bind(PASS)
        .bind(errors)
        .execute(pool)
        .await?;
    Ok(())
}

pub async fn last_pass(pool: &PgPool) -> Result<Option<Pass>> {
    Ok(sqlx::query_as("SELECT holder, started_at, finished_at, errors FROM retention_passes WHERE name = $1")
        .bind(PASS)
        .fetch_optional(pool)
        .await?)
}

/// Comments on traces, observations and sessions made before the cutoff. A comment is never older
/// than its object, so each is on an object the window has removed; a later comment on an old
/// object stays until it ages out itself. Comments on prompts are not trace data and stay.
pub async fn delete_comments(pool: &PgPool, project_id: &str, cutoff: DateTime<Utc>) -> Result<u64> {
    let done = sqlx::query(
        "DELETE FROM comments WHERE project_id = $1 AND object_type IN ('TRACE', 'OBSERVATION', 'SESSION') \
         AND created_at < $2",
    )
    .bind(project_id)
    .bind(cutoff)
    .execute(pool)
    .await?;
    Ok(done.rows_affected())
}

/// Dead-lettered payloads accepted before the cutoff (their blobs go with the window too).
pub async fn delete_dead_letters(pool: &PgPool, project_id: &str, cutoff: DateTime<Utc>) -> Result<u64> {
    let done = sqlx::query("DELETE FROM ingestion_dead_letters WHERE project_id = $1 AND created_at < $2")
        .bind(project_id)
        .bind(cutoff)
        .execute(pool)
        .await?;
    Ok(done.rows_affected())
}

/// Deletes media past the window — made before the cutoff and referred to by no trace or
/// observation since, nor by a dataset item (datasets are kept whatever their age) — at most
/// `limit` rows, oldest first, and returns their blob keys for the caller to delete. Media is
/// stored once per content, so an old file a new trace uploaded again stays. The row goes first: a
/// failure before the file is deleted leaves an unreferenced file (logged), never a row whose file
/// is gone.
pub async fn delete_expired_media(
    pool: &PgPool,
    project_id: &str,
    cutoff: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<String>> {
    Ok(sqlx::query_scalar(
        "DELETE FROM media WHERE project_id = $1 AND id IN (SELECT m.id FROM media m \
             WHERE m.project_id = $1 AND m.created_at < $2 \
             AND NOT EXISTS (SELECT 1 FROM media_links l WHERE l.project_id = m.project_id AND l.media_id = m.id \
                 AND (l.created_at >= $2 OR l.dataset_item_id <> '')) \
             ORDER BY m.created_at LIMIT $3 FOR UPDATE SKIP LOCKED) \
         RETURNING blob_key",
    )
    .bind(project_id)
    .bind(cutoff)
    .bind(limit)
    .fetch_all(pool)
    .await?)
}

/// [`progress`] of one project (the settings page's "last run").
pub async fn progress_of(pool: &PgPool, project_id: &str) -> Result<Vec<Progress>> {
    Ok(sqlx::query_as(
        "SELECT project_id, target, last_run_at, last_cutoff, last_removed, removed_total, \
             partitions_dropped, last_error FROM retention_progress WHERE project_id = $1 ORDER BY target",
    )
    .bind(project_id)
    .fetch_all(pool)
    .await?)
}
