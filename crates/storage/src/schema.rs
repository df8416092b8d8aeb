//! Applies both databases' migrations at startup, once across every web and worker instance.
//!
//! Whichever binary starts first takes a PostgreSQL advisory lock and migrates; the others wait on
//! the lock and then find nothing to do. The lock is tied to the session, so a crashed migrator
//! releases it and the next instance carries on.

use std::time::Instant;

use sqlx::{Connection, PgPool};

use crate::clickhouse::{AppliedMigrations, ClickHouse};
use crate::{Error, Result, postgres};

/// An arbitrary constant naming Loupe's schema lock among advisory locks.
const SCHEMA_LOCK_KEY: i64 = 0x6c6f_7570_655f_7363; // "loupe_sc"

pub async fn migrate(pg: &PgPool, ch: &ClickHouse) -> Result<AppliedMigrations> {
    let started = Instant::now();
    let mut lock_connection = pg.acquire().await?.detach();
    let locked: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1)")
        .bind(SCHEMA_LOCK_KEY)
        .fetch_one(&mut lock_connection)
        .await?;
    if !locked {
        tracing::info!("another instance is applying schema migrations; waiting for it");
        sqlx::query("SELECT pg_advisory_lock($1)")
            .bind(SCHEMA_LOCK_KEY)
            .execute(&mut lock_connection)
            .await?;
    }
    let result = migrate_locked(pg, ch).await;
    // Closing the session releases the lock even if the unlock below is never sent.
    let _ = lock_connection.close().await;
    let report = result?;
    tracing::info!(
        applied = ?report.applied,
        already_applied = report.already_applied.len(),
        pre_existing_tables = ?report.pre_existing_tables,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "schema migrations done"
    );
    Ok(report)
}

async fn migrate_locked(pg: &PgPool, ch: &ClickHouse) -> Result<AppliedMigrations> {
    postgres::MIGRATOR
        .run(pg)
        .await
        .map_err(|e| Error::with_source(crate::ErrorKind::Internal, "postgres migrations failed", e))?;
    crate::clickhouse::migrate(ch).await
}
