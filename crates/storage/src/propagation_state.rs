//! The dual-write propagation job's durable progress: which staging partition it copied last, and
//! how its last run went. One row, seeded by the PostgreSQL migrations.

use chrono::{DateTime, Utc};
use sqlx::PgPool;

use crate::Result;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PropagationState {
    /// Start of the last staging partition copied into `events_full`.
    pub last_partition: Option<DateTime<Utc>>,
    pub last_run_started_at: Option<DateTime<Utc>>,
    pub last_success_at: Option<DateTime<Utc>>,
    pub rows_propagated: i64,
    pub partitions_propagated: i64,
    pub last_error: Option<String>,
}

pub async fn get(pool: &PgPool) -> Result<PropagationState> {
    Ok(sqlx::query_as(
        "SELECT last_partition, last_run_started_at, last_success_at, rows_propagated, \
         partitions_propagated, last_error FROM event_propagation",
    )
    .fetch_one(pool)
    .await?)
}

pub async fn run_started(pool: &PgPool) -> Result<()> {
    sqlx::query("UPDATE event_propagation SET last_run_started_at = now(), updated_at = now()")
        .execute(pool)
        .await?;
    Ok(())
}

/// Moves the cursor past `partition`. Guarded so a cursor never moves backwards.
pub async fn partition_done(pool: &PgPool, partition: DateTime<Utc>, rows: u64) -> Result<()> {
    sqlx::query(
        "UPDATE event_propagation SET last_partition = $1, last_success_at = now(), last_error = NULL, \
         rows_propagated = rows_propagated + $2, partitions_propagated = partitions_propagated + 1, \
         updated_at = now() WHERE last_partition IS NULL OR last_partition < $1",
    )
    .bind(partition)
    .bind(i64::try_from(rows).unwrap_or(i64::MAX))
    .execute(pool)
    .await?;
    Ok(())
}

pub async fn run_failed(pool: &PgPool, error: &str) -> Result<()> {
    sqlx::query("UPDATE event_propagation SET last_error = $1, updated_at = now()")
        .bind(error)
        .execute(pool)
        .await?;
    Ok(())
}
