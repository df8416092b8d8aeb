//! State of the historic backfill steps (spec/v4-migration-spec.md §3.3), one row each, seeded by the PostgreSQL
//! migrations. A step's resumable cursor lives in `state`; the worker that runs the chain updates it
//! in the same statement as the progress counters, so what the API shows is what a resume uses.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use sqlx::PgPool;

use crate::Result;

/// A step's status, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    Pending,
    Running,
    Succeeded,
    Failed,
    Skipped,
}

impl StepStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Pending => "pending",
            StepStatus::Running => "running",
            StepStatus::Succeeded => "succeeded",
            StepStatus::Failed => "failed",
            StepStatus::Skipped => "skipped",
        }
    }

    fn parse(text: &str) -> Self {
        match text {
            "running" => StepStatus::Running,
            "succeeded" => StepStatus::Succeeded,
            "failed" => StepStatus::Failed,
            "skipped" => StepStatus::Skipped,
            _ => StepStatus::Pending,
        }
    }

    /// Done for good: the chain may move past it.
    pub fn is_final(self) -> bool {
        matches!(self, StepStatus::Succeeded | StepStatus::Skipped)
    }
}

#[derive(Debug, Clone)]
pub struct BackgroundMigration {
    pub name: String,
    pub position: i32,
    pub description: String,
    pub status: StepStatus,
    pub state: Value,
    pub rows_done: i64,
    pub rows_estimated: Option<i64>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub worker_id: Option<String>,
    pub updated_at: DateTime<Utc>,
}

#[derive(sqlx::FromRow)]
struct Row {
    name: String,
    position: i32,
    description: String,
    status: String,
    state: Value,
    rows_done: i64,
    rows_estimated: Option<i64>,
    started_at: Option<DateTime<Utc>>,
    finished_at: Option<DateTime<Utc>>,
    last_error: Option<String>,
    worker_id: Option<String>,
    updated_at: DateTime<Utc>,
}

impl From<Row> for BackgroundMigration {
    fn from(row: Row) -> Self {
        Self {
            status: StepStatus::parse(&row.status),
            name: row.name,
            position: row.position,
            description: row.description,
            state: row.state,
            rows_done: row.rows_done,
            rows_estimated: row.rows_estimated,
            started_at: row.started_at,
            finished_at: row.finished_at,
            last_error: row.last_error,
            worker_id: row.worker_id,
            updated_at: row.updated_at,
        }
    }
}

const COLUMNS: &str = "name, position, description, status, state, rows_done, rows_estimated, started_at, \
                       finished_at, last_error, worker_id, updated_at";

/// Every step, in chain order.
pub async fn list(pool: &PgPool) -> Result<Vec<BackgroundMigration>> {
    let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM background_migrations ORDER BY position"
    )))
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(Into::into).collect())
}

/// Marks a step running (keeping its first start time and its state, for a resume).
pub async fn mark_running(pool: &PgPool, name: &str, worker: &str) -> Result<()> {
    sqlx::query(
        "UPDATE background_migrations SET status = 'running', started_at = coalesce(started_at, now()), \
         worker_id = $2, last_error = NULL, updated_at = now() WHERE name = $1",
    )
    .bind(name)
    .bind(worker)
    .execute(pool)
    .await?;
    Ok(())
}

/// Persists a step's cursor together with its counters.
pub async fn save_progress(
    pool: &PgPool,
    name: &str,
    state: &Value,
    rows_done: i64,
    rows_estimated: Option<i64>,
) -> Result<()> {
    sqlx::query(
        "UPDATE background_migrations SET state = $2, rows_done = $3, rows_estimated = $4, updated_at = now() \
         WHERE name = $1",
    )
    .bind(name)
    .bind(state)
    .bind(rows_done)
    .bind(rows_estimated)
    .execute(pool)
    .await?;
    Ok(())
}

/// Records the outcome of a step: `succeeded` or `skipped` finish it, `failed` keeps the cause.
pub async fn finish(pool: &PgPool, name: &str, status: StepStatus, error: Option<&str>) -> Result<()> {
    sqlx::query(
        "UPDATE background_migrations SET status = $2, last_error = $3, \
         finished_at = CASE WHEN $2 IN ('succeeded', 'skipped') THEN now() ELSE finished_at END, \
         updated_at = now() WHERE name = $1",
    )
    .bind(name)
    .bind(status.as_str())
    .bind(error)
    .execute(pool)
    .await?;
    Ok(())
}

/// Puts failed steps back to pending (their cursor kept), so the chain resumes where it stopped.
/// Returns the names reset.
pub async fn retry_failed(pool: &PgPool) -> Result<Vec<String>> {
    Ok(sqlx::query_scalar(
        "UPDATE background_migrations SET status = 'pending', updated_at = now() WHERE status = 'failed' \
         RETURNING name",
    )
    .fetch_all(pool)
    .await?)
}

/// Puts one failed step back to pending (its cursor kept); `false` when no step of that name is
/// failed.
pub async fn retry(pool: &PgPool, name: &str) -> Result<bool> {
    let reset = sqlx::query(
        "UPDATE background_migrations SET status = 'pending', updated_at = now() \
         WHERE name = $1 AND status = 'failed'",
    )
    .bind(name)
    .execute(pool)
    .await?;
    Ok(reset.rows_affected() == 1)
}
