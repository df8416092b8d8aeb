//! The web side of ingestion: a payload is durable before the client hears "accepted".
//!
//! Order matters: the payload goes to blob storage first, then a reference to it onto the Redis
//! stream, and only then does the caller answer 2xx. A crash between the two steps leaves an
//! orphaned blob, never an acknowledged event without data. Payloads accepted at the same moment
//! are written together (`group_commit`).

mod group_commit;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use chrono::{DateTime, Datelike, Timelike, Utc};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use domain::sdk::SdkInfo;
use storage::blob::BlobStore;
use storage::queue::{IngestionJob, IngestionQueue, PayloadKind};

#[derive(Debug, thiserror::Error)]
pub enum AcceptError {
    /// The backlog is beyond the configured depth: the client should retry later.
    #[error("ingestion backlog is full ({depth} payloads waiting); retry later")]
    Overloaded { depth: u64 },
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
    /// The last observed stream length, refreshed in the background so the hot path does not pay
    /// a Redis round trip for it.
    depth: Arc<AtomicU64>,
}

impl Acceptor {
    /// Starts the blob writers, so this must be called inside the Tokio runtime.
    pub fn new(blobs: BlobStore, queue: IngestionQueue, max_depth: u64) -> Self {
        let writer = group_commit::start(blobs, queue.clone());
        Self { writer, queue, max_depth, depth: Arc::new(AtomicU64::new(0)) }
    }

    /// Keeps the backlog reading fresh until `shutdown`.
    pub fn watch_backlog(&self, shutdown: CancellationToken) {
        let (queue, depth) = (self.queue.clone(), self.depth.clone());
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(250));
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = tick.tick() => {}
                }
                match queue.depth().await {
                    Ok(d) => depth.store(d, Ordering::Relaxed),
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
                let kind = kind_label(kind);
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
        let depth = self.depth.load(Ordering::Relaxed);
        if depth >= self.max_depth {
            return Err(AcceptError::Overloaded { depth });
        }
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
        self.writer.send(group_commit::Submission { job, payload, done }).await.map_err(|_| stopped())?;
        stored.await.map_err(|_| stopped())?.map_err(AcceptError::Storage)
    }
}

/// The `kind` label of the acceptance counters.
fn kind_label(kind: PayloadKind) -> &'static str {
    match kind {
        PayloadKind::OtlpTraces => "otlp_traces",
        PayloadKind::IngestionBatch => "ingestion_batch",
    }
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
