//! The worker side of ingestion: read accepted payloads from the stream, turn them into rows for
//! the configured write mode, insert them in large batches, and only then acknowledge.
//!
//! Every step is at-least-once: a crash anywhere before the acknowledgement means the entry is
//! processed again (by this worker on restart, or by another after `claim_idle`), and because a
//! re-processed payload yields identical rows (same ids, same `event_ts`), the tables' replacing
//! merge keeps exactly one.

mod batch;
mod dead_letter;
mod deleted;
mod enrich;
mod experiments;
mod fetch;
mod flush;
mod heartbeat;
mod inflight;
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
use domain::pricing::PriceBook;
use storage::blob::BlobStore;
use storage::clickhouse::ClickHouse;
use storage::queue::{Delivery, IngestionJob, IngestionQueue};

use batch::Batch;
use dead_letter::DeadLetter;
pub use heartbeat::Heartbeat;
use inflight::InFlight;
pub use prices::Prices;
pub use route::{Prepared, prepare_otlp};
use storage::dead_letters::ReasonClass;

/// Why a delivery could not be turned into rows.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// Retrying will not help (missing blob, undecodable payload, a conversion that panicked): the
    /// entry goes to the dead-letter store with this reason, so nothing disappears silently.
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
    /// Deliveries read but left for the next batch, because this one reached its byte bound.
    carried: Vec<(Delivery, u32)>,
    /// Batches being inserted while the loop goes on (`inflight`).
    inflight: InFlight,
    last_claim: Instant,
}

impl Turn {
    /// A fresh loop, due to look for idle entries of other consumers at its first step.
    pub fn new(claim_idle: Duration) -> Self {
        let now = Instant::now();
        Self {
            batch: Batch::default(),
            carried: Vec::new(),
            inflight: InFlight::default(),
            last_claim: now.checked_sub(claim_idle).unwrap_or(now),
        }
    }

    /// Queue entries read and not yet flushed: in the open batch, or in a flush not yet collected.
    pub fn pending_entries(&self) -> usize {
        self.batch.len() + self.inflight.entries()
    }
}

/// What one step did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Stepped {
    /// Queue entries read (claimed ones included).
    pub read: usize,
    /// Queue entries whose rows were inserted and acknowledged, by flushes collected in this step
    /// (a flush runs beside the loop and is collected at a later step than the one starting it).
    pub flushed: usize,
    /// Queue entries moved to the dead-letter store.
    pub dead_lettered: usize,
}

/// Blob reads in flight at once while preparing a read of entries.
const BLOB_READ_CONCURRENCY: usize = 8;

/// Payloads converted at once: the CPU cores this process may use. Conversion is CPU work, so more
/// in flight than cores only adds thread switches and evicts each other's data from the caches
/// (eight at once on two cores cost the worker 3 % more CPU per span than two, and web, beside it,
/// a slower acknowledgement p99: 23–30 ms against 19–20 at 1,000 requests/s).
fn convert_concurrency() -> usize {
    static CORES: std::sync::LazyLock<usize> =
        std::sync::LazyLock::new(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    *CORES
}

/// Entries asked for per read, shared among the projects with queued work.
const READ_COUNT: usize = 64;
/// How long an idle worker's read blocks before the loop turns (beats the heartbeat, looks for
/// stale entries); an entry arriving meanwhile ends the wait at once.
const IDLE_WAIT: Duration = Duration::from_secs(1);
/// The same while a flush runs with nothing else to collect: short, so the loop collects the
/// flush's outcome soon after it ends. It delays no entry: an arrival ends the wait at once.
const INFLIGHT_WAIT: Duration = Duration::from_millis(25);

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
        this.finish_own_pending(&mut turn, &shutdown).await;
        loop {
            this.heartbeat.beat();
            if shutdown.is_cancelled() {
                // Best effort: what is not flushed stays pending and is processed after restart.
                turn.inflight.wait_all().await;
                this.flush(&mut turn.batch, &shutdown).await;
                tracing::info!("ingestion processor stopped");
                return;
            }
            this.step(&mut turn, &shutdown).await;
        }
    }

    /// One turn of the consumer loop, the unit tests drive: reads what is queued, takes over
    /// entries other consumers left idle when it is time, turns payloads into rows, and starts a
    /// flush as soon as the queue has nothing more to give and no insert is in flight (group
    /// commit: what arrives while an insert runs is the next batch), the batch is full, or it has
    /// waited its longest. A flush runs beside the loop (`inflight`), which meanwhile prepares the
    /// next batch; a batch of scores alone does not wait for the insert in flight.
    ///
    /// No timer stands between an acknowledged payload and its insert: an empty batch waits on
    /// the queue (woken by the first entry), an open one only looks whether more is there.
    pub async fn step(self: &Arc<Self>, turn: &mut Turn, shutdown: &CancellationToken) -> Stepped {
        let mut stepped = Stepped::default();
        let deliveries = if turn.carried.is_empty() {
            let read = self.read(turn, shutdown).await;
            stepped.read = read.len();
            self.count_deliveries(read).await
        } else {
            std::mem::take(&mut turn.carried)
        };
        let drained = deliveries.is_empty();
        let (carried, dead) = self.prepare_all(deliveries, &mut turn.batch).await;
        turn.carried = carried;
        stepped.dead_lettered = dead;
        let mut flushed = turn.inflight.collect_ended().await;
        let due = turn.batch.age().is_some_and(|age| age >= self.settings.flush_interval);
        let bound = self.is_full(&turn.batch) || due;
        if !turn.batch.is_empty() && (drained || bound) {
            if turn.inflight.admits(&turn.batch) {
                turn.inflight.start(self, &mut turn.batch, shutdown);
            } else if bound {
                flushed.add(turn.inflight.wait_all().await);
                turn.inflight.start(self, &mut turn.batch, shutdown);
            } else {
                // Group commit: the insert in flight ends first; the next step reads what came
                // meanwhile into this batch, without waiting, and starts it.
                flushed.add(turn.inflight.wait_all().await);
            }
        }
        stepped.flushed = flushed.stored;
        stepped.dead_lettered += flushed.dead_lettered;
        stepped
    }

    /// New entries, and every `claim_idle / 2` the entries other consumers left idle that long.
    /// With rows waiting to be inserted it does not wait for more: an empty answer means the
    /// queue is drained for now, and the batch goes.
    async fn read(&self, turn: &mut Turn, shutdown: &CancellationToken) -> Vec<Delivery> {
        let wait = match (turn.batch.is_empty(), turn.inflight.is_empty()) {
            (false, _) => Duration::ZERO,
            (true, false) => INFLIGHT_WAIT,
            (true, true) => IDLE_WAIT,
        };
        let mut deliveries = match self.queue.read(&self.consumer, READ_COUNT, wait).await {
            Ok(deliveries) => deliveries,
            Err(error) => {
                tracing::warn!(%error, "cannot read the ingestion queue; retrying");
                let _ = sleep_or_shutdown(Duration::from_secs(1), shutdown).await;
                return Vec::new();
            }
        };
        // Not while a flush of ours has run long (an outage): its own entries, pending all that
        // time, would look idle and be taken back.
        let stuck = turn.inflight.longest_running().is_some_and(|ran| ran >= self.settings.claim_idle / 2);
        if !stuck && turn.last_claim.elapsed() >= self.settings.claim_idle / 2 {
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
        deliveries
    }

    /// Each delivery with how many times it has been handed out. If Redis cannot say, the count
    /// is taken as a first delivery: the read itself just worked, so this is a blip, and the
    /// count catches up at the next delivery.
    async fn count_deliveries(&self, deliveries: Vec<Delivery>) -> Vec<(Delivery, u32)> {
        let entries: Vec<_> = deliveries.iter().map(|d| &d.entry).collect();
        let counts = match self.queue.count_delivery(&entries).await {
            Ok(counts) => counts,
            Err(error) => {
                tracing::warn!(%error, "cannot count ingestion deliveries");
                vec![1; deliveries.len()]
            }
        };
        deliveries.into_iter().zip(counts).collect()
    }

    fn is_full(&self, batch: &Batch) -> bool {
        batch.rows() >= self.settings.batch_max_rows || batch.bytes() >= self.settings.batch_max_bytes
    }

    /// Re-processes what this consumer had read before a restart, until none is left.
    async fn finish_own_pending(self: &Arc<Self>, turn: &mut Turn, shutdown: &CancellationToken) {
        let mut seen = std::collections::HashSet::new();
        while !shutdown.is_cancelled() {
            let pending = match self.queue.read_own_pending(&self.consumer, READ_COUNT).await {
                Ok(pending) => pending,
                Err(error) => {
                    tracing::warn!(%error, "cannot read this worker's pending entries; they will be claimed later");
                    return;
                }
            };
            // Entries that stay pending (deferred after a transient failure) would come back
            // forever; stop at the first repeat and leave them to the stale-claim path.
            let fresh: Vec<Delivery> = pending.into_iter().filter(|d| seen.insert(d.entry.clone())).collect();
            if fresh.is_empty() {
                return;
            }
            tracing::info!(entries = fresh.len(), "resuming entries read before a restart");
            let mut deliveries = self.count_deliveries(fresh).await;
            while !deliveries.is_empty() && !shutdown.is_cancelled() {
                let (carried, _) = self.prepare_all(deliveries, &mut turn.batch).await;
                deliveries = carried;
                self.flush(&mut turn.batch, shutdown).await;
            }
        }
    }

    /// Converts deliveries into the batch in the order they were accepted (their stream ids), so
    /// updates of one trace or observation are merged in the order the client sent them, whichever
    /// payload finishes converting first. Takes the deliveries whose payloads fit the batch's byte
    /// bound (a payload's size is known from its queue entry when it shares a blob; one alone in its
    /// blob is taken and counted once read), and returns those left over, for the next batch, and
    /// how many were dead-lettered.
    async fn prepare_all(
        self: &Arc<Self>,
        mut deliveries: Vec<(Delivery, u32)>,
        batch: &mut Batch,
    ) -> (Vec<(Delivery, u32)>, usize) {
        deliveries.sort_by_key(|(delivery, _)| stream_position(&delivery.entry.id));
        let room = self.settings.batch_max_bytes.saturating_sub(batch.bytes());
        let (mut take, mut planned) = (0, 0usize);
        for (delivery, _) in &deliveries {
            let known = delivery.job.as_ref().ok().and_then(|job| job.part).map_or(0, |part| part.len);
            let known = usize::try_from(known).unwrap_or(usize::MAX);
            if take > 0 && planned.saturating_add(known) > room {
                break;
            }
            planned = planned.saturating_add(known);
            take += 1;
        }
        let rest = deliveries.split_off(take);
        let dead = self.prepare_chunk(deliveries, batch).await;
        (rest, self.dead_letter(dead).await)
    }

    /// Prepares deliveries into the batch, their blob reads and conversions overlapping (as many
    /// conversions at once as there are cores); returns those to dead-letter.
    async fn prepare_chunk(
        self: &Arc<Self>,
        chunk: Vec<(Delivery, u32)>,
        batch: &mut Batch,
    ) -> Vec<DeadLetter> {
        let mut dead = Vec::new();
        let mut live = Vec::new();
        for (delivery, attempt) in chunk {
            if attempt > self.settings.max_attempts {
                dead.push(DeadLetter::of(
                    &delivery,
                    ReasonClass::RetryBudget,
                    format!(
                        "handed out {attempt} times without being stored (crashes or transient failures while processing it); \
                         LANGFUSE_INGESTION_MAX_ATTEMPTS is {}",
                        self.settings.max_attempts
                    ),
                    attempt,
                ));
            } else if let Err(unreadable) = &delivery.job {
                dead.push(DeadLetter::of(
                    &delivery,
                    ReasonClass::Unreadable,
                    unreadable.reason.clone(),
                    attempt,
                ));
            } else {
                live.push((delivery, attempt));
            }
        }
        let cleared = self.projects_without_deletions(&live).await;
        let prices = self.prices.current().await;
        let deliveries: Vec<Delivery> = live.iter().map(|(d, _)| d.clone()).collect();
        let payloads = fetch::payloads(&self.blobs, &deliveries, BLOB_READ_CONCURRENCY).await;
        let results: Vec<_> = futures::stream::iter(live.into_iter().zip(payloads))
            .map(|((delivery, attempt), payload)| {
                let migration = self.migration.clone();
                let prices = Arc::clone(&prices);
                let cleared = &cleared;
                async move {
                    let result = match payload {
                        Ok((job, payload)) => {
                            let bytes = payload.len();
                            let encode = cleared.contains(&job.project_id).then_some(prices);
                            convert(job, payload, migration, encode).await.map(|(job, p)| (job, p, bytes))
                        }
                        Err(error) => Err(error),
                    };
                    (delivery, attempt, result)
                }
            })
            .buffered(convert_concurrency())
            .collect()
            .await;
        let mut results = self.without_deleted_traces(results, &cleared).await;
        Self::encode_checked(&mut results, &prices);
        for (delivery, attempt, result) in results {
            match result {
                Ok((job, prepared, bytes)) => batch.add(delivery.entry, job, attempt, bytes, prepared),
                Err(ProcessError::Transient(reason)) => {
                    // Left pending: claimed again once idle, by this worker or another.
                    tracing::warn!(entry = %delivery.entry.id, %reason, "ingestion entry will be retried");
                }
                Err(ProcessError::Permanent(reason)) => {
                    dead.push(DeadLetter::of(&delivery, ReasonClass::Undecodable, reason, attempt));
                }
            }
        }
        dead
    }

    /// Prices and encodes the events not encoded where they were converted because their project
    /// had deleted traces, now that those traces' rows are gone. Events naming prompts stay as
    /// they are, for the flush (`Prepared::events`).
    fn encode_checked(results: &mut [(Delivery, u32, Converted)], prices: &PriceBook) {
        for (_, _, result) in results {
            if let Ok((_, prepared, _)) = result
                && let Err(error) = prepared.encode_unless_named(prices)
            {
                *result = Err(error);
            }
        }
    }
}

type Converted = Result<(IngestionJob, Prepared, usize), ProcessError>;

/// Turns one payload into rows, off the async threads (decoding a large export is CPU work). A
/// conversion that panics is a bug this payload triggers: it is dead-lettered, never retried.
/// With `encode` (prices, given when the payload's project deleted no trace since), its events
/// are also priced and encoded on that thread, unless they name prompts (`Prepared::events`).
async fn convert(
    job: IngestionJob,
    payload: bytes::Bytes,
    migration: MigrationSettings,
    encode: Option<Arc<PriceBook>>,
) -> Result<(IngestionJob, Prepared), ProcessError> {
    let work = move || {
        let mut prepared = route::prepare(&job, &payload, &migration)?;
        if let Some(prices) = encode {
            prepared.encode_unless_named(&prices)?;
        }
        Ok((job, prepared))
    };
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(e) if e.is_panic() => Err(ProcessError::Permanent(format!(
            "converting the payload panicked: {}",
            panic_text(e.into_panic())
        ))),
        Err(e) => Err(ProcessError::Transient(format!("conversion task failed: {e}"))),
    }
}

/// The message of a panic, when it has one.
fn panic_text(panic: Box<dyn std::any::Any + Send>) -> String {
    match panic.downcast::<String>() {
        Ok(text) => *text,
        Err(panic) => {
            panic.downcast_ref::<&str>().map_or_else(|| "no message".to_owned(), |s| (*s).to_owned())
        }
    }
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
