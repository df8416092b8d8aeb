//! The web side of ingestion: a payload is durable before the client hears "accepted".
//!
//! A payload up to `LANGFUSE_INGESTION_QUEUE_INLINE_MAX_BYTES` travels inside its Redis stream
//! entry, while all such entries hold less than `LANGFUSE_INGESTION_QUEUE_INLINE_TOTAL_BYTES`:
//! once the append returns, it is as durable as Redis is (compose runs it with `appendfsync
//! always`), and the caller answers 2xx. Any other payload goes to blob storage first, then a
//! reference to it onto the stream, and only then is it answered; a crash between the two steps
//! leaves an orphaned blob, never an acknowledged event without data. Payloads accepted at the
//! same moment are written together (`group_commit`).

mod group_commit;

use std::sync::{Arc, RwLock};
use std::time::Duration;

use bytes::Bytes;
use chrono::{DateTime, Datelike, Timelike, Utc};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use domain::config::QueueInline;
use domain::sdk::SdkInfo;
use storage::blob::BlobStore;
use storage::queue::{Backlog, IngestionJob, IngestionQueue, PayloadKind};

#[derive(Debug, thiserror::Error)]
pub enum AcceptError {
    /// The backlog is beyond the configured depth and this project holds at least its share of
    /// it: the client should retry later.
    /// (The message names this project's backlog only: another tenant's load is not its business.)
    #[error("ingestion backlog is full ({project} payloads of this project waiting); retry later")]
    Overloaded { project: u64 },
    #[error("cannot store the payload: {0}")]
    Storage(String),
}

/// Who sent a payload, as authentication and the SDK headers established.
#[derive(Debug, Clone)]
pub struct Sender {
    pub project_id: String,
    pub public_key: String,
    pub sdk: SdkInfo,
    /// Authenticated with the public key alone (browser SDK): scores only.
    pub scores_only: bool,
}

pub struct Acceptor {
    writer: mpsc::Sender<group_commit::Submission>,
    queue: IngestionQueue,
    max_depth: u64,
    /// The last observed backlog, refreshed in the background so the hot path does not pay a
    /// Redis round trip for it.
    backlog: Arc<RwLock<Backlog>>,
}

impl Acceptor {
    /// Starts the writers, at most `writers` groups in flight (`LANGFUSE_INGESTION_BLOB_WRITERS`),
    /// so this must be called inside the Tokio runtime.
    pub fn new(
        blobs: BlobStore,
        queue: IngestionQueue,
        max_depth: u64,
        writers: usize,
        inline: QueueInline,
    ) -> Self {
        let writer = group_commit::start(blobs, queue.clone(), writers, inline);
        Self { writer, queue, max_depth, backlog: Arc::default() }
    }

    /// Keeps the backlog reading fresh until `shutdown`.
    pub fn watch_backlog(&self, shutdown: CancellationToken) {
        let (queue, backlog) = (self.queue.clone(), self.backlog.clone());
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(250));
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = tick.tick() => {}
                }
                match queue.backlog().await {
                    Ok(b) => *backlog.write().unwrap_or_else(|e| e.into_inner()) = b,
                    Err(error) => tracing::warn!(%error, "cannot read the ingestion backlog"),
                }
            }
        });
    }

    /// Stores an OTLP export (protobuf bytes) and queues it for the worker.
    pub async fn accept_otlp(&self, sender: &Sender, protobuf: Bytes) -> Result<(), AcceptError> {
        self.accept(sender, PayloadKind::OtlpTraces, protobuf).await
    }

    /// Stores a legacy ingestion batch (JSON) and queues it for the worker.
    pub async fn accept_batch(&self, sender: &Sender, json: Bytes) -> Result<(), AcceptError> {
        self.accept(sender, PayloadKind::IngestionBatch, json).await
    }

    async fn accept(&self, sender: &Sender, kind: PayloadKind, payload: Bytes) -> Result<(), AcceptError> {
        let bytes = payload.len() as u64;
        let result = self.store(sender, kind, payload).await;
        // Counted here, where acceptance is decided: a request's status says only that it was
        // refused, not whether the backlog or the stores refused it (docs/metrics.md).
        match &result {
            Ok(()) => {
                let kind = kind.as_str();
                metrics::counter!("loupe_ingestion_accepted_payloads_total", "kind" => kind).increment(1);
                metrics::counter!("loupe_ingestion_accepted_bytes_total", "kind" => kind).increment(bytes);
            }
            Err(error) => {
                let reason = match error {
                    AcceptError::Overloaded { .. } => "backlog_full",
                    AcceptError::Storage(_) => "storage",
                };
                metrics::counter!("loupe_ingestion_refused_payloads_total", "reason" => reason).increment(1);
            }
        }
        result
    }

    async fn store(&self, sender: &Sender, kind: PayloadKind, payload: Bytes) -> Result<(), AcceptError> {
        self.admit(&sender.project_id)?;
        let job = IngestionJob {
            kind,
            project_id: sender.project_id.clone(),
            blob_key: String::new(),
            part: None,
            public_key: sender.public_key.clone(),
            sdk_name: sender.sdk.name.clone(),
            sdk_version: sender.sdk.version.clone(),
            ingestion_version: sender.sdk.ingestion_version,
            scores_only: sender.scores_only,
            received_at_micros: Utc::now().timestamp_micros(),
        };
        let (done, stored) = oneshot::channel();
        let stopped = || AcceptError::Storage("the blob writers have stopped".to_owned());
        let submission =
            group_commit::Submission { job, payload, done, submitted: std::time::Instant::now() };
        self.writer.send(submission).await.map_err(|_| stopped())?;
        stored.await.map_err(|_| stopped())?.map_err(AcceptError::Storage)
    }
}

impl Acceptor {
    /// Back-pressure that is fair between projects: past `max_depth` queued payloads, a project
    /// is refused only if it holds at least its share of the backlog (`max_depth` divided among
    /// the projects with queued work). A project flooding the queue hears 503 while a quiet one
    /// is still accepted, so the backlog stays within about twice `max_depth` and the quiet
    /// project's payloads are read within the fair share of every read (`storage::queue`).
    fn admit(&self, project_id: &str) -> Result<(), AcceptError> {
        let backlog = self.backlog.read().unwrap_or_else(|e| e.into_inner());
        if backlog.total < self.max_depth {
            return Ok(());
        }
        let project = backlog.by_project.get(project_id).copied().unwrap_or(0);
        let share = self.max_depth / backlog.active_projects().max(1) as u64;
        if project >= share.max(1) {
            return Err(AcceptError::Overloaded { project });
        }
        Ok(())
    }
}

/// A new blob key for payloads of `kind` of one project, accepted `at`.
pub(crate) fn payload_key(kind: PayloadKind, project_id: &str, at: DateTime<Utc>) -> String {
    let (folder, extension) = match kind {
        PayloadKind::OtlpTraces => ("otel", "pb"),
        PayloadKind::IngestionBatch => ("ingestion", "json"),
    };
    blob_key(folder, project_id, at, extension)
}

/// `<folder>/<project>/<yyyy>/<mm>/<dd>/<hh>/<mm>/<uuid>.<ext>`: browsable by time, as upstream lays
/// out its event uploads.
fn blob_key(folder: &str, project_id: &str, at: DateTime<Utc>, extension: &str) -> String {
    format!(
        "{folder}/{project_id}/{:04}/{:02}/{:02}/{:02}/{:02}/{}.{extension}",
        at.year(),
        at.month(),
        at.day(),
        at.hour(),
        at.minute(),
        uuid::Uuid::now_v7()
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn blob_keys_are_laid_out_by_time() {
        let at = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let key = super::blob_key("otel", "p1", at, "pb");
        assert!(key.starts_with("otel/p1/2023/11/14/22/13/"), "{key}");
        assert!(key.ends_with(".pb"));
    }
}
