//! Time-limited leases in PostgreSQL that keep a singleton job (propagation, the backfill chain) to
//! one worker across all replicas. A holder renews its lease while it works; a crashed holder's
//! lease runs out and another worker takes over. Holders are named per replica (the host name), so
//! a restarted container takes its own lease back at once.

use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::PgPool;

use crate::Result;

/// Takes the lease, or renews it when `holder` already has it. `false` when another holder's lease
/// is still running.
pub async fn try_acquire(pool: &PgPool, name: &str, holder: &str, ttl: Duration) -> Result<bool> {
    let ttl_ms = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
    let taken: Option<String> = sqlx::query_scalar(
        "INSERT INTO migration_leases (name, holder, lease_until) \
         VALUES ($1, $2, now() + make_interval(secs => $3::double precision / 1000)) \
         ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, lease_until = EXCLUDED.lease_until, \
           acquired_at = CASE WHEN migration_leases.holder = EXCLUDED.holder \
                              THEN migration_leases.acquired_at ELSE now() END \
         WHERE migration_leases.holder = EXCLUDED.holder OR migration_leases.lease_until < now() \
         RETURNING holder",
    )
    .bind(name)
    .bind(holder)
    .bind(ttl_ms)
    .fetch_optional(pool)
    .await?;
    Ok(taken.is_some())
}

/// Gives the lease up at once (on shutdown), if `holder` has it.
pub async fn release(pool: &PgPool, name: &str, holder: &str) -> Result<()> {
    sqlx::query("UPDATE migration_leases SET lease_until = now() WHERE name = $1 AND holder = $2")
        .bind(name)
        .bind(holder)
        .execute(pool)
        .await?;
    Ok(())
}

/// Who holds the lease and until when, if anyone ever did.
pub async fn current(pool: &PgPool, name: &str) -> Result<Option<(String, DateTime<Utc>)>> {
    Ok(sqlx::query_as("SELECT holder, lease_until FROM migration_leases WHERE name = $1")
        .bind(name)
        .fetch_optional(pool)
        .await?)
}
