//! Which write modes this deployment has run in, and since when (cutover readiness option B).

use chrono::{DateTime, Utc};
use sqlx::PgPool;

use crate::Result;

/// Called by every worker at startup with its configured mode.
pub async fn record(pool: &PgPool, mode: &str) -> Result<()> {
    sqlx::query(
        "INSERT INTO write_mode_history (write_mode) VALUES ($1) \
         ON CONFLICT (write_mode) DO UPDATE SET last_seen_at = now()",
    )
    .bind(mode)
    .execute(pool)
    .await?;
    Ok(())
}

/// When a worker first ran in `mode`, if ever.
pub async fn first_seen(pool: &PgPool, mode: &str) -> Result<Option<DateTime<Utc>>> {
    Ok(sqlx::query_scalar("SELECT first_seen_at FROM write_mode_history WHERE write_mode = $1")
        .bind(mode)
        .fetch_optional(pool)
        .await?)
}
