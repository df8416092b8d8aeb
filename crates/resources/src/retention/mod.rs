//! The worker's retention job (docs/retention.md): a project's retention in days is enforced by
//! removing what is older than its window from every table project deletion walks
//! ([`PROJECT_TABLES`]), from its blob folders ([`BLOB_FOLDERS`]) and from the PostgreSQL rows that
//! are trace data.
//!
//! A pass takes one unit at a time — one table for one project, whole month partitions of one
//! table, one blob folder of one project — with a pause after each statement that removed
//! something. Every unit recomputes what is past the window from the data, so a pass interrupted
//! by a crash or a shutdown is simply repeated, and a repeat finds nothing more to remove. One
//! worker runs it at a time (the `retention` lease).

mod partitions;
mod plan;
pub mod status;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use tokio_util::sync::CancellationToken;

use domain::config::RetentionSettings;
use storage::blob::BlobStore;
use storage::clickhouse::{ClickHouse, PROJECT_TABLES, retention as ch};
use storage::retention::{self as progress, Run};

use crate::identity::deletion::BLOB_FOLDERS;
pub use plan::{Cutoffs, cutoffs, droppable, month_end};

/// The lease's name in `migration_leases`.
pub const LEASE: &str = "retention";
/// Longer than the longest statement (a ClickHouse bulk bound, 30 minutes), since the lease is
/// renewed between units: a worker that died holding it is replaced after this.
const LEASE_TTL: Duration = Duration::from_secs(35 * 60);
/// How often an idle worker looks whether a pass is due (another worker may have run one).
const POLL: Duration = Duration::from_secs(60);
/// Media rows removed per statement.
const MEDIA_BATCH: i64 = 500;

pub struct Retention {
    pub postgres: PgPool,
    pub clickhouse: ClickHouse,
    pub blobs: BlobStore,
    pub settings: RetentionSettings,
    /// This worker's name in the lease (the host name).
    pub holder: String,
    /// Tests only: awaited after a month partition was judged droppable and before it is moved
    /// away, with the table and the partition id — where a write racing the drop lands.
    pub before_move: Option<BeforeMove>,
}

pub type BeforeMove =
    Arc<dyn Fn(&'static str, String) -> futures::future::BoxFuture<'static, ()> + Send + Sync>;

/// What a pass did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PassReport {
    pub removed: i64,
    pub partitions_dropped: i64,
    pub errors: i32,
    /// The pass stopped early (shutdown, lease lost); the next one repeats it.
    pub interrupted: bool,
}

/// Rows and partitions of one project removed by dropping partitions of one table.
pub(crate) type Dropped = BTreeMap<String, (i64, i64)>;

pub(crate) fn count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Retention {
    pub async fn run(self, shutdown: CancellationToken) {
        while !shutdown.is_cancelled() {
            let wait = match self.due_in().await {
                Ok(Some(wait)) => wait.min(POLL),
                // Another worker's pass (lease held) is looked at again as soon as one of ours would be.
                Ok(None) => match self.pass(&shutdown).await {
                    Ok(_) => self.settings.interval.min(POLL),
                    Err(error) => {
                        tracing::warn!(%error, "retention pass failed; will retry");
                        POLL
                    }
                },
                Err(error) => {
                    tracing::warn!(%error, "retention job cannot read its state");
                    POLL
                }
            };
            tokio::select! {
                () = shutdown.cancelled() => {}
                () = tokio::time::sleep(wait) => {}
            }
        }
    }

    /// `None` when a pass is due: the last one started an interval ago or never ran.
    async fn due_in(&self) -> storage::Result<Option<Duration>> {
        let Some(last) = progress::last_pass(&self.postgres).await? else { return Ok(None) };
        let since = (Utc::now() - last.started_at).to_std().unwrap_or_default();
        Ok(self.settings.interval.checked_sub(since).filter(|wait| !wait.is_zero()))
    }

    /// Runs one pass if the lease is free; `None` when another worker holds it.
    pub async fn pass(&self, shutdown: &CancellationToken) -> storage::Result<Option<PassReport>> {
        if !self.renew().await? {
            return Ok(None);
        }
        progress::pass_started(&self.postgres, &self.holder).await?;
        let report = self.units(shutdown, Utc::now()).await;
        storage::leases::release(&self.postgres, LEASE, &self.holder).await?;
        let report = report?;
        if !report.interrupted {
            progress::pass_finished(&self.postgres, report.errors).await?;
        }
        if report == PassReport::default() {
            tracing::debug!("retention pass done: nothing past any window");
        } else {
            tracing::info!(
                removed = report.removed,
                partitions_dropped = report.partitions_dropped,
                errors = report.errors,
                interrupted = report.interrupted,
                "retention pass done"
            );
        }
        Ok(Some(report))
    }

    async fn renew(&self) -> storage::Result<bool> {
        storage::leases::try_acquire(&self.postgres, LEASE, &self.holder, LEASE_TTL).await
    }

    /// Whether to go on with the next unit: not shutting down, and the lease still ours.
    async fn go_on(&self, shutdown: &CancellationToken) -> storage::Result<bool> {
        Ok(!shutdown.is_cancelled() && self.renew().await?)
    }

    async fn units(&self, shutdown: &CancellationToken, now: DateTime<Utc>) -> storage::Result<PassReport> {
        let projects = storage::projects::retention_days(&self.postgres).await?;
        let cutoffs = cutoffs(&projects, now);
        let mut report = PassReport::default();
        if cutoffs.values().all(Option::is_none) {
            return Ok(report);
        }
        for table in PROJECT_TABLES {
            if !self.go_on(shutdown).await? {
                report.interrupted = true;
                return Ok(report);
            }
            let dropped = if ch::monthly(table) {
                self.drop_partitions(table, &cutoffs, now, &mut report).await
            } else {
                Dropped::new()
            };
            for (project, cutoff) in &cutoffs {
                let Some(cutoff) = *cutoff else { continue };
                if !self.go_on(shutdown).await? {
                    report.interrupted = true;
                    return Ok(report);
                }
                let (rows, partitions) = dropped.get(project).copied().unwrap_or((0, 0));
                let outcome = self.delete_rows(table, project, cutoff).await.map(|n| n + rows);
                self.record(
                    project,
                    &format!("clickhouse:{table}"),
                    cutoff,
                    outcome,
                    partitions,
                    &mut report,
                )
                .await?;
            }
        }
        for (project, cutoff) in &cutoffs {
            let Some(cutoff) = *cutoff else { continue };
            for folder in BLOB_FOLDERS {
                if !self.go_on(shutdown).await? {
                    report.interrupted = true;
                    return Ok(report);
                }
                let outcome = if folder == "media" {
                    self.delete_media(project, cutoff).await
                } else {
                    self.blobs.delete_older_than(&format!("{folder}/{project}"), cutoff).await.map(count)
                };
                self.record(project, &format!("blobs:{folder}"), cutoff, outcome, 0, &mut report).await?;
            }
            let comments = progress::delete_comments(&self.postgres, project, cutoff).await.map(count);
            self.record(project, "postgres:comments", cutoff, comments, 0, &mut report).await?;
            let dead = progress::delete_dead_letters(&self.postgres, project, cutoff).await.map(count);
            self.record(project, "postgres:ingestion_dead_letters", cutoff, dead, 0, &mut report).await?;
        }
        Ok(report)
    }

    /// Removes a project's rows of `table` dated before the cutoff, one partition per statement.
    async fn delete_rows(&self, table: &str, project: &str, cutoff: DateTime<Utc>) -> storage::Result<i64> {
        let expired = ch::expired(&self.clickhouse, table, project, cutoff).await?;
        let mut removed = 0;
        if ch::monthly(table) {
            for partition in &expired {
                ch::delete_expired(&self.clickhouse, table, project, cutoff, Some(&partition.partition_id))
                    .await?;
                removed += count(partition.rows);
                tokio::time::sleep(self.settings.pause).await;
            }
        } else if !expired.is_empty() {
            ch::delete_expired(&self.clickhouse, table, project, cutoff, None).await?;
            removed = expired.iter().map(|p| count(p.rows)).sum();
            tokio::time::sleep(self.settings.pause).await;
        }
        Ok(removed)
    }

    /// Media past the window: rows first, then their files, a batch at a time.
    async fn delete_media(&self, project: &str, cutoff: DateTime<Utc>) -> storage::Result<i64> {
        let mut removed = 0;
        loop {
            let keys = progress::delete_expired_media(&self.postgres, project, cutoff, MEDIA_BATCH).await?;
            for key in &keys {
                if let Err(error) = self.blobs.delete_key(key).await {
                    tracing::warn!(project_id = project, key, %error, "retention left a media file behind");
                    return Err(error);
                }
            }
            removed += count(keys.len() as u64);
            if keys.len() < usize::try_from(MEDIA_BATCH).unwrap_or(usize::MAX) {
                return Ok(removed);
            }
            tokio::time::sleep(self.settings.pause).await;
        }
    }

    async fn record(
        &self,
        project: &str,
        target: &str,
        cutoff: DateTime<Utc>,
        outcome: storage::Result<i64>,
        partitions_dropped: i64,
        report: &mut PassReport,
    ) -> storage::Result<()> {
        let (removed, error) = match &outcome {
            Ok(n) => (*n, None),
            Err(error) => (0, Some(error.to_string())),
        };
        if let Some(error) = &error {
            report.errors += 1;
            tracing::warn!(project_id = project, target, %error, "retention failed; will retry next pass");
        } else if removed > 0 {
            tracing::info!(project_id = project, target, removed, partitions_dropped, %cutoff,
                "retention removed data past the window");
        }
        report.removed += removed;
        let run =
            Run { project_id: project, target, cutoff, removed, partitions_dropped, error: error.as_deref() };
        progress::record(&self.postgres, &run).await
    }
}
