//! The worker side of ingestion: read accepted payloads from the stream, turn them into rows for
//! the configured write mode, insert them in large batches, and only then acknowledge.
//!
//! Every step is at-least-once: a crash anywhere before the acknowledgement means the entry is
//! processed again (by this worker on restart, or by another after `claim_idle`), and because a
//! re-processed payload yields identical rows (same ids, same `event_ts`), the tables' replacing
//! merge keeps exactly one.

mod batch;
mod deleted;
mod enrich;
mod experiments;
mod fetch;
mod heartbeat;
mod prices;
mod route;
mod v3;

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use domain::config::{IngestionSettings, MigrationSettings};
use domain::experiment::{ExperimentLink, Linked};
use storage::blob::BlobStore;
use storage::clickhouse::ClickHouse;
use storage::queue::{Delivery, IngestionJob, IngestionQueue};

use batch::Batch;
use enrich::Enrichment;
pub use heartbeat::Heartbeat;
pub use prices::Prices;
pub use route::{Prepared, prepare_otlp};

/// Why a delivery could not be turned into rows.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// Retrying will not help (missing blob, undecodable payload): the entry goes to the
    /// dead-letter stream with this reason, so nothing disappears silently.
    #[error("{0}")]
    Permanent(String),
    /// A store is down; the entry stays pending and is retried.
    #[error("{0}")]
    Transient(String),
}

pub struct Processor {
    pub blobs: BlobStore,
    pub queue: IngestionQueue,
    pub clickhouse: ClickHouse,
    pub postgres: sqlx::PgPool,
    pub migration: MigrationSettings,
    pub settings: IngestionSettings,
    /// Model prices for generations that report usage without cost.
    pub prices: Prices,
    /// Beaten every loop turn and every retry, for the liveness endpoint.
    pub heartbeat: Heartbeat,
    /// Keeps the dataset runs that experiment spans describe (the worker wires the datasets in).
    pub experiments: Arc<dyn ExperimentRecorder>,
    /// This worker's name in the consumer group; stable across restarts of the same host so it
    /// picks up its own unfinished entries first.
    pub consumer: String,
}

/// Where the dataset runs of SDK 5 experiment spans are recorded (`experiments`). A seam rather
/// than a call into the datasets crate, so the write path depends on no crate of the API.
pub trait ExperimentRecorder: Send + Sync {
    /// Records each link's run and run item, idempotently; a store error is retried by the caller.
    fn record<'a>(&'a self, links: &'a [ExperimentLink]) -> BoxFuture<'a, storage::Result<Linked>>;
}

/// What the consumer loop carries from one [`Processor::step`] to the next.
pub struct Turn {
    batch: Batch,
    last_claim: Instant,
}

impl Turn {
    /// A fresh loop, due to look for idle entries of other consumers at its first step.
    pub fn new(claim_idle: Duration) -> Self {
        let now = Instant::now();
        Self { batch: Batch::default(), last_claim: now.checked_sub(claim_idle).unwrap_or(now) }
    }

    /// Queue entries read into the open batch and not yet flushed.
    pub fn pending_entries(&self) -> usize {
        self.batch.entries()
    }
}

/// What one step did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Stepped {
    /// Queue entries read (claimed ones included).
    pub read: usize,
    /// Queue entries whose rows were inserted and acknowledged.
    pub flushed: usize,
}

/// Payloads prepared concurrently (blob reads and decoding overlap).
const PREPARE_CONCURRENCY: usize = 8;
const READ_COUNT: usize = 64;

impl Processor {
    pub async fn run(self, shutdown: CancellationToken) {
        let this = Arc::new(self);
        while let Err(error) = this.queue.ensure_group().await {
            this.heartbeat.beat();
            tracing::warn!(%error, "ingestion queue unavailable; retrying");
            if sleep_or_shutdown(Duration::from_secs(1), &shutdown).await {
                return;
            }
        }
        tracing::info!(consumer = %this.consumer, "ingestion processor started");
        let mut turn = Turn::new(this.settings.claim_idle);
        this.finish_own_pending(&mut turn.batch, &shutdown).await;
        loop {
            this.heartbeat.beat();
            if shutdown.is_cancelled() {
                // Best effort: what is not flushed stays pending and is processed after restart.
                this.flush(&mut turn.batch, &shutdown).await;
                tracing::info!("ingestion processor stopped");
                return;
            }
            this.step(&mut turn, &shutdown).await;
        }
    }

    /// One turn of the consumer loop, the unit tests drive: reads what is queued (waiting at most
    /// until the open batch is due), takes over entries other consumers left idle when it is time,
    /// turns payloads into rows, and flushes when the batch is full or due.
    pub async fn step(self: &Arc<Self>, turn: &mut Turn, shutdown: &CancellationToken) -> Stepped {
        let wait = match turn.batch.age() {
            None => Duration::from_secs(1),
            Some(age) => self.settings.flush_interval.saturating_sub(age).max(Duration::from_millis(1)),
        };
        let mut deliveries = match self.queue.read(&self.consumer, READ_COUNT, wait).await {
            Ok(deliveries) => deliveries,
            Err(error) => {
                tracing::warn!(%error, "cannot read the ingestion queue; retrying");
                let _ = sleep_or_shutdown(Duration::from_secs(1), shutdown).await;
                return Stepped::default();
            }
        };
        if turn.last_claim.elapsed() >= self.settings.claim_idle / 2 {
            turn.last_claim = Instant::now();
            match self.queue.claim_stale(&self.consumer, self.settings.claim_idle, READ_COUNT).await {
                Ok(claimed) if !claimed.is_empty() => {
                    tracing::info!(entries = claimed.len(), "took over unfinished ingestion entries");
                    deliveries.extend(claimed);
                }
                Ok(_) => {}
                Err(error) => tracing::warn!(%error, "cannot claim stale ingestion entries"),
            }
        }
        let read = deliveries.len();
        self.prepare_all(deliveries, &mut turn.batch).await;
        let due = turn.batch.age().is_some_and(|age| age >= self.settings.flush_interval);
        let mut flushed = 0;
        if turn.batch.rows() >= self.settings.batch_max_rows || due {
            flushed = turn.batch.entries();
            self.flush(&mut turn.batch, shutdown).await;
        }
        Stepped { read, flushed }
    }

    /// Re-processes what this consumer had read before a restart, until none is left.
    async fn finish_own_pending(self: &Arc<Self>, batch: &mut Batch, shutdown: &CancellationToken) {
        let mut seen = std::collections::HashSet::new();
        while !shutdown.is_cancelled() {
            let pending = match self.queue.read_own_pending(&self.consumer, READ_COUNT).await {
                Ok(pending) => pending,
                Err(error) => {
                    tracing::warn!(%error, "cannot read this worker's pending entries; they will be claimed later");
                    return;
                }
            };
            // Entries that stay pending (transient failures) would come back forever; stop at
            // the first repeat and leave them to the stale-claim path.
            let fresh: Vec<Delivery> = pending.into_iter().filter(|d| seen.insert(d.id.clone())).collect();
            if fresh.is_empty() {
                return;
            }
            tracing::info!(entries = fresh.len(), "resuming entries read before a restart");
            self.prepare_all(fresh, batch).await;
            self.flush(batch, shutdown).await;
        }
    }

    /// Converts deliveries into the batch in the order they were accepted (their stream ids), so
    /// updates of one trace or observation are merged in the order the client sent them, whichever
    /// payload finishes converting first.
    async fn prepare_all(self: &Arc<Self>, mut deliveries: Vec<Delivery>, batch: &mut Batch) {
        deliveries.sort_by_key(|delivery| stream_position(&delivery.id));
        let payloads = fetch::payloads(&self.blobs, &deliveries, PREPARE_CONCURRENCY).await;
        let results: Vec<_> = futures::stream::iter(deliveries.into_iter().zip(payloads))
            .map(|(delivery, payload)| {
                let migration = self.migration.clone();
                async move {
                    let result = match payload {
                        Ok((job, payload)) => convert(job, payload, migration).await,
                        Err(error) => Err(error),
                    };
                    (delivery, result)
                }
            })
            .buffered(PREPARE_CONCURRENCY)
            .collect()
            .await;
        let results = self.without_deleted_traces(results).await;
        for (delivery, result) in results {
            match result {
                Ok((job, prepared)) => batch.add(delivery.id, &job, prepared),
                Err(ProcessError::Transient(reason)) => {
                    // Left pending: claimed again once idle, by this worker or another.
                    tracing::warn!(entry = %delivery.id, %reason, "ingestion entry will be retried");
                }
                Err(ProcessError::Permanent(reason)) => {
                    tracing::error!(entry = %delivery.id, %reason, "ingestion entry moved to the dead-letter stream");
                    if let Err(error) = self.queue.dead_letter(&delivery, &reason).await {
                        tracing::warn!(%error, "cannot dead-letter an entry; it stays pending");
                    }
                }
            }
        }
    }

    /// Drops the rows of traces deleted after their payload was accepted (see `deleted`). If the
    /// queue cannot say, the payloads are retried later rather than risk storing deleted traces.
    async fn without_deleted_traces(
        &self,
        mut results: Vec<(Delivery, Converted)>,
    ) -> Vec<(Delivery, Converted)> {
        let converted = || results.iter().filter_map(|(_, r)| r.as_ref().ok());
        let asked = deleted::traces_written(converted().map(|(_, prepared)| prepared));
        let oldest = converted().map(|(job, _)| job.received_at_micros).min().unwrap_or_default();
        let now = chrono::Utc::now().timestamp_micros();
        let deletions = match self.queue.deleted_since(&asked, oldest, now).await {
            Ok(deletions) => deletions,
            Err(error) => {
                let reason = format!("cannot read trace deletions: {error}");
                for (_, result) in &mut results {
                    if result.is_ok() {
                        *result = Err(ProcessError::Transient(reason.clone()));
                    }
                }
                return results;
            }
        };
        for (delivery, result) in &mut results {
            if let Ok((job, prepared)) = result {
                let dropped = deleted::drop_deleted(job, prepared, &deletions);
                if dropped > 0 {
                    tracing::info!(entry = %delivery.id, rows = dropped, "rows of deleted traces dropped");
                }
            }
        }
        results
    }

    async fn write(&self, batch: &Batch, enrichment: &Enrichment) -> storage::Result<()> {
        storage::clickhouse::insert_events(&self.clickhouse, batch.events()).await?;
        // Staged rows land in the partition of "now": never in one propagation may already have
        // taken (reference/storage.md §2.4).
        v3::write(&self.clickhouse, batch.v3(), chrono::Utc::now().timestamp_millis(), enrichment).await?;
        self.link_experiments(batch.experiment_links()).await
    }

    /// Records the dataset runs of SDK 5 experiments (see `experiments`), after the spans are in.
    async fn link_experiments(&self, links: &[ExperimentLink]) -> storage::Result<()> {
        if links.is_empty() {
            return Ok(());
        }
        let linked = self.experiments.record(links).await?;
        if linked.unknown_items > 0 {
            tracing::warn!(
                unknown_items = linked.unknown_items,
                "experiment spans name dataset items this project does not have; no run items for them"
            );
        }
        tracing::debug!(created = linked.created, existing = linked.existing, "experiment run items linked");
        Ok(())
    }

    /// Inserts the batch and acknowledges its entries, retrying with back-off while ClickHouse is
    /// unreachable. Reading stops meanwhile, which bounds memory to one batch.
    async fn flush(&self, batch: &mut Batch, shutdown: &CancellationToken) {
        if batch.is_empty() {
            return;
        }
        let enrichment = Enrichment::load(&self.prices, &self.postgres, &batch.prompt_keys()).await;
        enrichment.events(batch.events_mut());
        let mut delay = Duration::from_millis(200);
        loop {
            let started = Instant::now();
            match self.write(batch, &enrichment).await {
                Ok(()) => {
                    tracing::debug!(
                        rows = batch.rows(),
                        entries = batch.entries(),
                        ms = started.elapsed().as_millis() as u64,
                        "ingestion batch inserted"
                    );
                    break;
                }
                Err(error) => {
                    self.heartbeat.beat();
                    tracing::warn!(%error, rows = batch.rows(), retry_in_ms = delay.as_millis() as u64, "insert failed");
                    if sleep_or_shutdown(delay, shutdown).await {
                        return;
                    }
                    delay = (delay * 2).min(Duration::from_secs(10));
                }
            }
        }
        // Best effort: a missed sighting only delays cutover readiness until the next payload.
        if let Err(error) = storage::sdk_usage::record(&self.postgres, &batch.sdk_sightings()).await {
            tracing::warn!(%error, "cannot record sdk usage");
        }
        loop {
            match self.queue.complete(batch.ids()).await {
                Ok(()) => break,
                Err(error) => {
                    // The rows are in; retrying the acknowledgement only avoids a harmless re-insert.
                    self.heartbeat.beat();
                    tracing::warn!(%error, "cannot acknowledge ingestion entries; retrying");
                    if sleep_or_shutdown(Duration::from_secs(1), shutdown).await {
                        return;
                    }
                }
            }
        }
        batch.clear();
    }
}

type Converted = Result<(IngestionJob, Prepared), ProcessError>;

/// Turns one payload into rows, off the async threads (decoding a large export is CPU work).
async fn convert(job: IngestionJob, payload: bytes::Bytes, migration: MigrationSettings) -> Converted {
    tokio::task::spawn_blocking(move || route::prepare(&job, &payload, &migration).map(|p| (job, p)))
        .await
        .map_err(|e| ProcessError::Transient(format!("conversion task failed: {e}")))?
}

/// A stream id (`<milliseconds>-<sequence>`) as numbers, which order entries as Redis appended them.
fn stream_position(id: &str) -> (u64, u64) {
    let (millis, sequence) = id.split_once('-').unwrap_or((id, "0"));
    (millis.parse().unwrap_or(u64::MAX), sequence.parse().unwrap_or(u64::MAX))
}

/// Sleeps, or returns `true` at once when shutdown was requested.
async fn sleep_or_shutdown(duration: Duration, shutdown: &CancellationToken) -> bool {
    tokio::select! {
        _ = shutdown.cancelled() => true,
        _ = tokio::time::sleep(duration) => false,
    }
}
