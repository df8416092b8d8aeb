//! Is dual-write propagation keeping up? (`GET /api/health?failIfEventPropagationStuck=true`)
//!
//! Stuck means: the oldest staging partition that is due for propagation (its start is older than
//! the partition delay) and not yet copied has been waiting longer than the threshold. That is
//! judged from the data itself, not from a heartbeat: upstream's heartbeat check reported healthy
//! while a failing job made no progress for 48 hours, because each failed run still refreshed it.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;

use domain::config::{MigrationSettings, PropagationSettings};
use storage::clickhouse::ClickHouse;

use crate::propagation::{enabled, staged_partitions};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PropagationHealth {
    pub enabled: bool,
    pub stuck: bool,
    /// Why it is or is not stuck, in words an operator can act on.
    pub reason: String,
    pub threshold_seconds: u64,
    pub partition_delay_seconds: u64,
    pub last_processed_partition: Option<DateTime<Utc>>,
    pub last_run_started_at: Option<DateTime<Utc>>,
    pub last_success_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    /// Staged partitions after the cursor, due or not.
    pub pending_partitions: usize,
    pub oldest_due_partition: Option<DateTime<Utc>>,
    /// How long the oldest due partition has been waiting since it became due.
    pub oldest_due_waiting_seconds: Option<u64>,
    /// How far behind arrival the v4 tables are for staged data (now − end of the last copied
    /// partition); informational.
    pub propagation_delay_seconds: Option<u64>,
    pub rows_propagated: i64,
}

pub async fn check(
    ch: &ClickHouse,
    pg: &PgPool,
    migration: &MigrationSettings,
    settings: &PropagationSettings,
    now: DateTime<Utc>,
) -> storage::Result<PropagationHealth> {
    let threshold = migration.propagation_stuck_threshold;
    let state = storage::propagation_state::get(pg).await?;
    let enabled = enabled(migration.write_mode);
    let pending: Vec<DateTime<Utc>> = if enabled {
        staged_partitions(ch)
            .await?
            .into_iter()
            .filter(|start| state.last_partition.is_none_or(|last| *start > last))
            .collect()
    } else {
        Vec::new()
    };
    let oldest_due = pending.iter().copied().find(|start| *start + settings.partition_delay <= now);
    let waiting = oldest_due.map(|start| seconds_between(start + settings.partition_delay, now));
    let stuck = enabled && waiting.is_some_and(|w| w > threshold.as_secs());
    let reason = match (enabled, oldest_due, waiting) {
        (false, ..) => format!("propagation does not run in {} mode", migration.write_mode),
        (true, Some(start), Some(w)) if stuck => format!(
            "staging partition {start} has been due for {w} s, over the {} s threshold; see lastError and \
             the worker logs",
            threshold.as_secs()
        ),
        (true, Some(start), Some(w)) => {
            format!("staging partition {start} due for {w} s, within the threshold")
        }
        _ => "no staging partition is waiting past its due time".to_owned(),
    };
    Ok(PropagationHealth {
        enabled,
        stuck,
        reason,
        threshold_seconds: threshold.as_secs(),
        partition_delay_seconds: settings.partition_delay.as_secs(),
        last_processed_partition: state.last_partition,
        last_run_started_at: state.last_run_started_at,
        last_success_at: state.last_success_at,
        last_error: state.last_error,
        pending_partitions: pending.len(),
        oldest_due_partition: oldest_due,
        oldest_due_waiting_seconds: waiting,
        propagation_delay_seconds: state
            .last_partition
            .map(|last| seconds_between(last + Duration::from_secs(180), now)),
        rows_propagated: state.rows_propagated,
    })
}

fn seconds_between(from: DateTime<Utc>, to: DateTime<Utc>) -> u64 {
    u64::try_from((to - from).num_seconds()).unwrap_or(0)
}
