//! Flushes that run beside the consumer loop.
//!
//! A batch's insert runs as a task of its own, so the loop goes on reading and converting the
//! next batch meanwhile (the next insert's rows are ready when this one ends), and so a batch of
//! scores alone need not queue behind the spans in flight. The order rules:
//! - a batch with anything but scores starts only once every flush before it has ended: v3 trace
//!   and observation updates are merged onto what the previous insert stored, so two such inserts
//!   must never overlap;
//! - a batch of scores alone may start while another batch's insert runs: a score is written
//!   whole, versioned by when it was received (`event_ts`), so the order of inserts cannot change
//!   which version wins. At most one such batch runs at a time, so a stream of scores still forms
//!   batches rather than an insert per score.
//!
//! Each task acknowledges its own entries after its insert, as an inline flush did, so nothing is
//! acknowledged before it is stored; a task that dies leaves its entries pending, to be claimed
//! again.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::Processor;
use super::batch::Batch;
use super::flush::Flushed;

/// The flushes started and not yet collected.
#[derive(Default)]
pub(super) struct InFlight {
    tasks: Vec<Task>,
    /// Emptied batches handed back by ended flushes, reused for their capacity (`Batch::clear`).
    spare: Vec<Batch>,
}

struct Task {
    handle: JoinHandle<(Batch, Flushed)>,
    scores_only: bool,
    entries: usize,
    started: Instant,
}

impl InFlight {
    pub(super) fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Queue entries in flushes not yet collected.
    pub(super) fn entries(&self) -> usize {
        self.tasks.iter().map(|task| task.entries).sum()
    }

    /// How long the oldest flush in flight has run.
    pub(super) fn longest_running(&self) -> Option<Duration> {
        self.tasks.iter().map(|task| task.started.elapsed()).max()
    }

    /// Whether `batch` may start now (module docs): nothing is in flight, or it holds scores
    /// alone and no other batch of scores is in flight.
    pub(super) fn admits(&self, batch: &Batch) -> bool {
        self.tasks.is_empty() || (batch.scores_only() && !self.tasks.iter().any(|task| task.scores_only))
    }

    /// Starts flushing `batch` in a task of its own, leaving an empty batch in its place.
    pub(super) fn start(
        &mut self,
        processor: &Arc<Processor>,
        batch: &mut Batch,
        shutdown: &CancellationToken,
    ) {
        let fresh = self.spare.pop().unwrap_or_default();
        let mut batch = std::mem::replace(batch, fresh);
        let (scores_only, entries) = (batch.scores_only(), batch.len());
        let (processor, shutdown) = (processor.clone(), shutdown.clone());
        let handle = tokio::spawn(async move {
            let flushed = processor.flush(&mut batch, &shutdown).await;
            (batch, flushed)
        });
        self.tasks.push(Task { handle, scores_only, entries, started: Instant::now() });
    }

    /// Collects the flushes that have ended, without waiting for the others.
    pub(super) async fn collect_ended(&mut self) -> Flushed {
        let (ended, running): (Vec<Task>, Vec<Task>) =
            std::mem::take(&mut self.tasks).into_iter().partition(|task| task.handle.is_finished());
        self.tasks = running;
        self.collect(ended).await
    }

    /// Waits for every flush in flight to end.
    pub(super) async fn wait_all(&mut self) -> Flushed {
        let all = std::mem::take(&mut self.tasks);
        self.collect(all).await
    }

    async fn collect(&mut self, tasks: Vec<Task>) -> Flushed {
        let mut total = Flushed::default();
        for task in tasks {
            match task.handle.await {
                Ok((mut batch, flushed)) => {
                    total.add(flushed);
                    // Not cleared only when shutdown interrupted an outage; its entries stay pending.
                    batch.clear();
                    self.spare.push(batch);
                }
                // Its entries were not acknowledged: they stay pending and are claimed again.
                Err(error) => {
                    tracing::error!(%error, entries = task.entries, "an ingestion flush task failed")
                }
            }
        }
        total
    }
}
