//! The dual-write propagation job (spec/v4-migration-spec.md §3.4, reference/storage.md §3): closed 3-minute partitions of
//! `observations_batch_staging` are joined with the latest version of their traces and copied
//! into `events_full`, oldest first.
//!
//! Differences from upstream, on purpose: the cursor lives in PostgreSQL next to the lease (not in
//! Redis, whose loss would replay or skip partitions); every partition that is due is copied in one
//! run (upstream copies one per minute, so a backlog never shrinks faster than it grows); and the
//! trace join reaches 7 days before the partition's observations instead of capping at 7 days
//! before now.

use chrono::{DateTime, TimeZone, Utc};
use sqlx::PgPool;
use tokio_util::sync::CancellationToken;

use domain::config::{PropagationSettings, WriteMode};
use storage::clickhouse::{ClickHouse, Work};

use crate::columns::{EVENT_COLUMNS, NO_EXPERIMENT, ObservationMapping, Source, Version, traces_near};
use crate::lease;

pub const LEASE: &str = "event-propagation";
pub const STAGING_TABLE: &str = "observations_batch_staging";

/// Whether this deployment propagates: whenever the events tables are written. In `events_only`
/// the job drains what `dual` left in staging.
pub fn enabled(mode: WriteMode) -> bool {
    mode.writes_events_tables()
}

/// Starts of the staging partitions that currently hold parts, ascending.
pub async fn staged_partitions(ch: &ClickHouse) -> storage::Result<Vec<DateTime<Utc>>> {
    let ids: Vec<String> = ch
        .client()
        .query(
            "SELECT DISTINCT partition_id FROM system.parts \
             WHERE database = currentDatabase() AND table = ? AND active ORDER BY partition_id",
        )
        .bind(STAGING_TABLE)
        .fetch_all()
        .await?;
    let mut starts: Vec<DateTime<Utc>> = ids
        .iter()
        // A DateTime partition key is stored as its Unix time.
        .filter_map(|id| id.parse::<i64>().ok())
        .filter_map(|seconds| Utc.timestamp_opt(seconds, 0).single())
        .collect();
    starts.sort();
    Ok(starts)
}

/// What a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOutcome {
    /// Another worker holds the lease.
    NotLeader,
    Propagated {
        partitions: usize,
        rows: u64,
    },
}

#[derive(Clone)]
pub struct Propagation {
    pub clickhouse: ClickHouse,
    pub postgres: PgPool,
    pub settings: PropagationSettings,
    pub write_mode: WriteMode,
    /// Lease holder name: distinct per worker replica.
    pub holder: String,
}

impl Propagation {
    pub async fn run(self, shutdown: CancellationToken) {
        if !enabled(self.write_mode) {
            tracing::info!(write_mode = %self.write_mode, "event propagation off: the events tables are not written");
            return;
        }
        tracing::info!(
            delay_minutes = self.settings.partition_delay.as_secs() / 60,
            interval_seconds = self.settings.interval.as_secs(),
            "event propagation started"
        );
        let mut ticker = tokio::time::interval(self.settings.interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = ticker.tick() => {}
            }
            let run = self.run_once(&shutdown);
            match run.await {
                Ok(RunOutcome::Propagated { partitions, rows }) if partitions > 0 => {
                    tracing::info!(partitions, rows, "event propagation run finished")
                }
                Ok(_) => {}
                Err(error) => {
                    tracing::error!(%error, "event propagation run failed; retrying next interval");
                    let _ = storage::propagation_state::run_failed(&self.postgres, &error.to_string()).await;
                }
            }
        }
        tracing::info!("event propagation stopped");
    }

    /// One run: copy every due partition after the cursor, oldest first, moving the cursor after
    /// each. A failure leaves the cursor before the failed partition.
    pub async fn run_once(&self, shutdown: &CancellationToken) -> storage::Result<RunOutcome> {
        let Some(lease) = lease::acquire(&self.postgres, LEASE, &self.holder).await? else {
            return Ok(RunOutcome::NotLeader);
        };
        let result = self.propagate_due(&lease, shutdown).await;
        lease.release().await;
        result
    }

    async fn propagate_due(
        &self,
        lease: &lease::HeldLease,
        shutdown: &CancellationToken,
    ) -> storage::Result<RunOutcome> {
        storage::propagation_state::run_started(&self.postgres).await?;
        let state = storage::propagation_state::get(&self.postgres).await?;
        let due_before = Utc::now() - self.settings.partition_delay;
        let due: Vec<_> = staged_partitions(&self.clickhouse)
            .await?
            .into_iter()
            .filter(|start| state.last_partition.is_none_or(|last| *start > last) && *start <= due_before)
            .collect();
        let (mut partitions, mut rows) = (0, 0);
        for start in due {
            if shutdown.is_cancelled() || !lease.is_held() {
                break;
            }
            let copied = self.propagate_partition(start).await?;
            storage::propagation_state::partition_done(&self.postgres, start, copied).await?;
            tracing::debug!(partition = %start, rows = copied, "staging partition propagated");
            partitions += 1;
            rows += copied;
        }
        Ok(RunOutcome::Propagated { partitions, rows })
    }

    /// Copies one staging partition into `events_full`; returns the staged rows it held.
    pub async fn propagate_partition(&self, start: DateTime<Utc>) -> storage::Result<u64> {
        let partition_id = start.timestamp().to_string();
        let client = self.clickhouse.client();
        let (rows, min_start, max_start): (u64, String, String) = client
            .query(&format!(
                "SELECT count(), toString(min(start_time)), toString(max(start_time)) FROM {STAGING_TABLE} \
                 WHERE _partition_id = ?"
            ))
            .bind(&partition_id)
            .fetch_one()
            .await?;
        if rows == 0 {
            return Ok(0);
        }
        let traces =
            traces_near(&format!("SELECT project_id, trace_id FROM {STAGING_TABLE} WHERE _partition_id = ?"));
        let select = ObservationMapping {
            source: Source::DualWrite,
            experiment: NO_EXPERIMENT,
            version: Version::Source,
        }
        .select();
        let sql = format!(
            "INSERT INTO events_full ({EVENT_COLUMNS}) SELECT {select} FROM {STAGING_TABLE} AS o FINAL \
             LEFT ANY JOIN {traces} AS t ON o.project_id = t.project_id AND o.trace_id = t.id \
             WHERE o._partition_id = ? AND o.project_id NOT IN ?"
        );
        client
            .query(&sql)
            .bind(&min_start)
            .bind(&max_start)
            .bind(&partition_id)
            .bind(&partition_id)
            .bind(&self.settings.exclude_project_ids)
            .with_setting("max_insert_threads", self.settings.max_insert_threads.to_string())
            .with_setting("max_execution_time", Work::Bulk.timeout().as_secs().to_string())
            .with_setting("type_json_skip_duplicated_paths", "1")
            .execute()
            .await?;
        Ok(rows)
    }
}
