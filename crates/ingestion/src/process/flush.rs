//! Writing a batch, and what happens when a write fails.
//!
//! A failed write is either an outage (a store does not answer its health probe: every project is
//! equally stuck, nothing is at fault, so the whole batch waits and retries with capped
//! exponential back-off while reading stops) or something about the rows (the stores answer, yet
//! this insert failed: a value a store refuses, a block too large, a bug a payload triggers). In
//! the second case the batch is bisected along payload boundaries until each failing payload
//! stands alone; every other payload is stored and acknowledged at once. A payload that fails
//! alone for a reason retrying cannot fix is dead-lettered; one that fails alone with a transient
//! error (a timeout, the memory limit) is left pending, retried when its entry is claimed again,
//! and dead-lettered once it has been handed out `LANGFUSE_INGESTION_MAX_ATTEMPTS` times. A panic
//! is never retried: it counts as a refusal.

use std::collections::VecDeque;
use std::ops::Range;
use std::time::{Duration, Instant};

use futures::FutureExt;
use tokio_util::sync::CancellationToken;

use domain::experiment::ExperimentLink;
use storage::dead_letters::ReasonClass;
use storage::queue::EntryRef;

use super::batch::{Batch, Rows};
use super::dead_letter::DeadLetter;
use super::enrich::Enrichment;
use super::{Processor, sleep_or_shutdown, v3};

/// The longest wait between two attempts at a batch during an outage.
const MAX_OUTAGE_BACKOFF: Duration = Duration::from_secs(30);

/// What a flush did with its batch's payloads.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Flushed {
    pub stored: usize,
    pub dead_lettered: usize,
    /// Left pending after a transient failure of their own, for a later delivery.
    pub deferred: usize,
}

impl Flushed {
    pub fn add(&mut self, other: Flushed) {
        self.stored += other.stored;
        self.dead_lettered += other.dead_lettered;
        self.deferred += other.deferred;
    }
}

/// Why a payload failed on its own.
enum Failure {
    /// Retrying cannot help (the store refused the rows, or writing them panicked).
    Refused(String),
    /// Retrying later may help (a timeout, the memory limit, a connection lost mid-way).
    Transient(String),
}

impl Processor {
    /// Inserts the batch and acknowledges its entries, isolating the payloads at fault when an
    /// insert fails (module docs). Returns with the batch cleared, except on shutdown during an
    /// outage, when its entries stay pending for the next start.
    pub(super) async fn flush(&self, batch: &mut Batch, shutdown: &CancellationToken) -> Flushed {
        if batch.is_empty() {
            return Flushed::default();
        }
        let enrichment = Enrichment::load(&self.prices, &self.postgres, &batch.prompt_keys()).await;
        enrichment.events(batch.named_mut());
        let started = Instant::now();
        let Some((stored, failed)) = self.write_isolating(batch, &enrichment, shutdown).await else {
            return Flushed::default();
        };
        let outcome = if failed.is_empty() { "ok" } else { "isolated" };
        metrics::histogram!("loupe_ingestion_flush_seconds", "outcome" => outcome)
            .record(started.elapsed().as_secs_f64());
        tracing::debug!(
            rows = batch.rows(),
            entries = batch.len(),
            failed = failed.len(),
            ms = started.elapsed().as_millis() as u64,
            "ingestion batch inserted"
        );
        // Best effort: a missed sighting only delays cutover readiness until the next payload.
        if let Err(error) = storage::sdk_usage::record(&self.postgres, &batch.sdk_sightings()).await {
            tracing::warn!(%error, "cannot record sdk usage");
        }
        let stored_entries: Vec<EntryRef> = stored.iter().map(|&i| batch.parts()[i].entry.clone()).collect();
        self.acknowledge(&stored_entries).await;
        metrics::counter!("loupe_ingestion_flushed_entries_total").increment(stored.len() as u64);
        metrics::counter!("loupe_ingestion_rows_total").increment(batch.rows() as u64);

        let mut letters = Vec::new();
        let mut deferred = 0;
        for (index, failure) in failed {
            let part = &batch.parts()[index];
            match failure {
                Failure::Refused(reason) => letters.push(DeadLetter::of_job(
                    &part.entry,
                    &part.job,
                    ReasonClass::Rejected,
                    reason,
                    part.attempt,
                )),
                Failure::Transient(reason) if part.attempt >= self.settings.max_attempts => {
                    letters.push(DeadLetter::of_job(
                        &part.entry,
                        &part.job,
                        ReasonClass::RetryBudget,
                        reason,
                        part.attempt,
                    ))
                }
                Failure::Transient(reason) => {
                    deferred += 1;
                    tracing::warn!(
                        project_id = %part.job.project_id,
                        entry = %part.entry.id,
                        attempt = part.attempt,
                        %reason,
                        "payload failed on its own with a transient error; it is retried when claimed again"
                    );
                }
            }
        }
        let dead_lettered = self.dead_letter(letters).await;
        batch.clear();
        Flushed { stored: stored.len(), dead_lettered, deferred }
    }

    /// Writes the whole batch, waiting out outages; on a failure while the stores answer,
    /// bisects. Returns the parts stored and the parts that failed on their own, or `None` on
    /// shutdown.
    async fn write_isolating(
        &self,
        batch: &Batch,
        enrichment: &Enrichment,
        shutdown: &CancellationToken,
    ) -> Option<(Vec<usize>, Vec<(usize, Failure)>)> {
        let mut delay = Duration::from_millis(200);
        loop {
            let error = match self.write(batch.all_rows(), enrichment).await {
                Ok(()) => return Some(((0..batch.len()).collect(), Vec::new())),
                Err(error) => error,
            };
            self.heartbeat.beat();
            if self.stores_answer().await {
                metrics::counter!("loupe_ingestion_retries_total", "class" => "bisect").increment(1);
                tracing::warn!(error = %error.text(), entries = batch.len(), "insert failed while the stores answer; isolating the payloads at fault");
                return Some(self.bisect(batch, enrichment, error).await);
            }
            metrics::counter!("loupe_ingestion_retries_total", "class" => "transient").increment(1);
            tracing::warn!(error = %error.text(), rows = batch.rows(), retry_in_ms = delay.as_millis() as u64, "insert failed and a store is unreachable; waiting");
            if sleep_or_shutdown(delay, shutdown).await {
                return None;
            }
            delay = (delay * 2).min(MAX_OUTAGE_BACKOFF);
        }
    }

    /// Splits the parts in halves, in order, until each failing part stands alone: everything
    /// else is written (earlier parts first, so updates still apply in the order they came).
    async fn bisect(
        &self,
        batch: &Batch,
        enrichment: &Enrichment,
        whole: Failure,
    ) -> (Vec<usize>, Vec<(usize, Failure)>) {
        let (mut stored, mut failed) = (Vec::new(), Vec::new());
        let mut ranges: VecDeque<(Range<usize>, Option<Failure>)> =
            VecDeque::from([(0..batch.len(), Some(whole))]);
        while let Some((range, known)) = ranges.pop_front() {
            self.heartbeat.beat();
            let result = match known {
                Some(failure) => Err(failure),
                None => self.write(batch.rows_of(range.clone()), enrichment).await,
            };
            match result {
                Ok(()) => stored.extend(range),
                Err(failure) if range.len() == 1 => failed.push((range.start, failure)),
                Err(_) => {
                    let middle = range.start + range.len() / 2;
                    ranges.push_front((middle..range.end, None));
                    ranges.push_front((range.start..middle, None));
                }
            }
        }
        (stored, failed)
    }

    /// Whether ClickHouse and PostgreSQL answer their health probes: if they do, a failed write
    /// is about its rows, not an outage.
    async fn stores_answer(&self) -> bool {
        let probe = async { tokio::join!(self.clickhouse.check(), storage::postgres::check(&self.postgres)) };
        matches!(tokio::time::timeout(Duration::from_secs(5), probe).await, Ok((Ok(()), Ok(()))))
    }

    /// One insert of some rows into every table they belong in, then their experiment links. A
    /// panic while writing is caught and reported as a refusal of these rows.
    async fn write(&self, rows: Rows<'_>, enrichment: &Enrichment) -> Result<(), Failure> {
        // Boxed: the concurrent inserts make a large future, which stays off the loop's stack.
        let written =
            std::panic::AssertUnwindSafe(Box::pin(self.write_rows(&rows, enrichment))).catch_unwind().await;
        match written {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) if error.is_unavailable() => Err(Failure::Transient(error.to_string())),
            Ok(Err(error)) => Err(Failure::Refused(error.to_string())),
            Err(panic) => {
                Err(Failure::Refused(format!("writing the rows panicked: {}", super::panic_text(panic))))
            }
        }
    }

    async fn write_rows(&self, rows: &Rows<'_>, enrichment: &Enrichment) -> storage::Result<()> {
        // Staged rows land in the partition of "now": never in one propagation may already have
        // taken (reference/storage.md §2.4). The two models' tables are written concurrently:
        // a flush costs the slowest insert, not their sum.
        let staging_clock = chrono::Utc::now().timestamp_millis();
        // Events naming prompts are encoded here, after the lookup of their ids; the rest were
        // encoded as they were converted.
        let mut events = rows.events.to_vec();
        events.extend(storage::clickhouse::EventSegment::encode(&rows.named)?);
        tokio::try_join!(
            storage::clickhouse::insert_event_segments(&self.clickhouse, &events),
            v3::write(&self.clickhouse, &rows.v3, staging_clock, enrichment),
        )?;
        self.link_experiments(&rows.links).await
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
}

impl Failure {
    fn text(&self) -> &str {
        match self {
            Self::Refused(text) | Self::Transient(text) => text,
        }
    }
}
