//! The worker's long-running jobs, started together and awaited together on shutdown.

use std::sync::Arc;

use futures::future::BoxFuture;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use domain::config::Config;
use domain::experiment::{ExperimentLink, Linked};
use ingestion::process::{ExperimentRecorder, Heartbeat, Processor};
use migration::backfill::Backfill;
use migration::propagation::Propagation;
use resources::identity::deletion::ProjectDeletions;
use service::Stores;
use storage::clickhouse::ClickHouse;

pub struct Jobs {
    tasks: JoinSet<()>,
    /// The ingestion loop's proof of life, for `/api/live`.
    pub heartbeat: Heartbeat,
}

pub fn spawn(config: &Config, stores: &Stores, shutdown: &CancellationToken) -> Jobs {
    let mut tasks = JoinSet::new();
    let heartbeat = Heartbeat::default();
    let processor = Processor {
        blobs: stores.blobs.clone(),
        queue: stores.ingestion_queue(),
        clickhouse: stores.clickhouse.clone(),
        postgres: stores.postgres.clone(),
        migration: config.migration.clone(),
        settings: config.ingestion.clone(),
        consumer: consumer_name(),
        heartbeat: heartbeat.clone(),
        prices: ingestion::process::Prices::new(stores.postgres.clone()),
        experiments: Arc::new(DatasetRuns {
            postgres: stores.postgres.clone(),
            clickhouse: stores.clickhouse.clone(),
        }),
    };
    tasks.spawn(processor.run(shutdown.clone()));
    tasks.spawn(propagation(config, stores).run(shutdown.clone()));
    tasks.spawn(backfill(config, stores).run(shutdown.clone()));
    tasks.spawn(project_deletions(stores).run(shutdown.clone()));
    tasks.spawn(monitors(config, stores).run(shutdown.clone()));
    tasks.spawn(retention(config, stores).run(shutdown.clone()));
    tasks.spawn(crate::evaluations::engine(config, stores, consumer_name()).run(shutdown.clone()));
    tasks.spawn(scheduled_exports(config, stores).run(shutdown.clone()));
    tasks.spawn(batch_exports(stores).run(shutdown.clone()));
    Jobs { tasks, heartbeat }
}

/// The dataset runs of experiment spans, kept by the datasets resource.
struct DatasetRuns {
    postgres: sqlx::PgPool,
    clickhouse: ClickHouse,
}

impl ExperimentRecorder for DatasetRuns {
    fn record<'a>(&'a self, links: &'a [ExperimentLink]) -> BoxFuture<'a, storage::Result<Linked>> {
        Box::pin(async move {
            resources::datasets::link_experiment_items(&self.postgres, &self.clickhouse, links).await.map_err(
                |error| match error {
                    resources::Error::Storage(error) => error,
                    other => storage::Error::new(storage::ErrorKind::Internal, other.to_string()),
                },
            )
        })
    }
}

/// Removes deleted projects' ClickHouse rows and blobs (docs/identity.md).
fn project_deletions(stores: &Stores) -> ProjectDeletions {
    ProjectDeletions {
        postgres: stores.postgres.clone(),
        clickhouse: stores.clickhouse.clone(),
        blobs: stores.blobs.clone(),
        queue: stores.ingestion_queue(),
        poll: std::time::Duration::from_secs(2),
    }
}

/// Evaluates due monitors and delivers their notifications (docs/monitors.md).
fn monitors(config: &Config, stores: &Stores) -> monitors::Monitors {
    monitors::Monitors {
        postgres: stores.postgres.clone(),
        clickhouse: stores.clickhouse.clone(),
        settings: config.monitors.clone(),
        write_mode: config.migration.write_mode,
        key: config.auth.encryption_key.clone(),
        policy: config.auth.outbound.clone(),
        http: monitors::http_client(&config.auth.outbound),
    }
}

/// Enforces projects' retention (docs/retention.md).
fn retention(config: &Config, stores: &Stores) -> resources::retention::Retention {
    resources::retention::Retention {
        postgres: stores.postgres.clone(),
        clickhouse: stores.clickhouse.clone(),
        blobs: stores.blobs.clone(),
        settings: config.retention.clone(),
        holder: consumer_name(),
        before_move: None,
    }
}

/// Exports to customers' buckets and one-off batch exports (docs/exports.md).
fn scheduled_exports(config: &Config, stores: &Stores) -> exports::job::ScheduledExports {
    let mut job = exports::job::ScheduledExports::new(
        stores.postgres.clone(),
        stores.clickhouse.clone(),
        consumer_name(),
    );
    job.encryption_key = config.auth.encryption_key.clone();
    job.write_mode = config.migration.write_mode;
    job.policy = config.auth.outbound.clone();
    job
}

fn batch_exports(stores: &Stores) -> exports::batch::BatchExports {
    exports::batch::BatchExports {
        postgres: stores.postgres.clone(),
        clickhouse: stores.clickhouse.clone(),
        blobs: stores.blobs.clone(),
        holder: consumer_name(),
        poll: std::time::Duration::from_secs(2),
    }
}

pub fn propagation(config: &Config, stores: &Stores) -> Propagation {
    Propagation {
        clickhouse: stores.clickhouse.clone(),
        postgres: stores.postgres.clone(),
        settings: config.propagation.clone(),
        write_mode: config.migration.write_mode,
        holder: consumer_name(),
    }
}

pub fn backfill(config: &Config, stores: &Stores) -> Backfill {
    Backfill {
        clickhouse: stores.clickhouse.clone(),
        postgres: stores.postgres.clone(),
        settings: config.backfill.clone(),
        migration: config.migration.clone(),
        holder: consumer_name(),
        chunk_budget: None,
    }
}

impl Jobs {
    /// Waits for every job to finish its shutdown (each flushes or leaves its work pending).
    pub async fn wait(mut self) {
        while let Some(result) = self.tasks.join_next().await {
            if let Err(error) = result {
                tracing::error!(%error, "worker job panicked");
            }
        }
    }
}

/// The host name: stable across restarts of the same container or machine, so a restarted worker
/// resumes its own unfinished entries and takes its own leases back at once; distinct between
/// replicas.
pub fn consumer_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| format!("worker-{}", std::process::id()))
}
