//! The durable hand-off between web and worker: a Redis stream of references to payloads that
//! web has already written to blob storage.
//!
//! web appends (`XADD`) before acknowledging a client; workers read through a consumer group and
//! acknowledge-and-delete an entry only after its rows are in ClickHouse. Entries a crashed worker
//! had read stay pending and are claimed by another consumer once idle (`XAUTOCLAIM`). The stream
//! length is therefore the backlog, which is what back-pressure watches.

use std::collections::HashMap;
use std::time::Duration;

use deadpool_redis::Pool;
use deadpool_redis::redis::streams::{
    StreamAutoClaimOptions, StreamAutoClaimReply, StreamId, StreamReadOptions, StreamReadReply,
};
use deadpool_redis::redis::{self, AsyncCommands, Value};
use serde::{Deserialize, Serialize};

use crate::{Error, ErrorKind, Result};

mod deletions;

/// What web accepted: enough to find, decode and attribute the payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IngestionJob {
    pub kind: PayloadKind,
    pub project_id: String,
    pub blob_key: String,
    /// Where the payload sits when its blob holds several (web writes payloads accepted at the
    /// same moment as one blob); `None`: the whole blob. Entries written before this field
    /// existed deserialize as `None`, which is what they meant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<BlobPart>,
    pub public_key: String,
    pub sdk_name: Option<String>,
    pub sdk_version: Option<String>,
    pub ingestion_version: Option<u32>,
    /// Authenticated with a public key alone: only scores are accepted (reference/public-api.md §1.3).
    #[serde(default)]
    pub scores_only: bool,
    /// When web accepted it; becomes the rows' version column, so a re-processed job writes
    /// byte-identical rows and the newest-version-wins merge keeps exactly one.
    pub received_at_micros: i64,
}

/// A byte range of a blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlobPart {
    pub offset: u64,
    pub len: u64,
}

impl BlobPart {
    pub fn end(&self) -> u64 {
        self.offset + self.len
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PayloadKind {
    /// An `ExportTraceServiceRequest`, protobuf-encoded.
    OtlpTraces,
    /// A legacy `/api/public/ingestion` batch, JSON.
    IngestionBatch,
}

/// A job read from the stream, with the id to acknowledge it by.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub id: String,
    pub job: Result<IngestionJob, String>,
}

#[derive(Clone)]
pub struct IngestionQueue {
    pool: Pool,
    stream: String,
    group: String,
}

const JOB_FIELD: &str = "job";

/// The redis client gives every reply 500 ms; a blocking read must return well within that or it
/// is reported as a timeout.
pub const MAX_BLOCK: Duration = Duration::from_millis(300);

fn unavailable(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Error {
    Error::with_source(ErrorKind::Unavailable, "redis", e)
}

impl IngestionQueue {
    pub fn new(pool: Pool, stream: impl Into<String>) -> Self {
        Self { pool, stream: stream.into(), group: "loupe-workers".to_owned() }
    }

    async fn connection(&self) -> Result<deadpool_redis::Connection> {
        self.pool.get().await.map_err(unavailable)
    }

    /// Creates the stream and its consumer group if missing.
    pub async fn ensure_group(&self) -> Result<()> {
        let mut connection = self.connection().await?;
        let created: redis::RedisResult<()> =
            connection.xgroup_create_mkstream(&self.stream, &self.group, "0").await;
        match created {
            Ok(()) => Ok(()),
            Err(e) if e.code() == Some("BUSYGROUP") => Ok(()),
            Err(e) => Err(unavailable(e)),
        }
    }

    /// Appends several entries, in order, in one round trip. On an error some may have been
    /// appended: callers treat them all as not accepted, and a client's retry only writes rows
    /// that collapse with the first ones.
    pub async fn enqueue_all(&self, jobs: &[&IngestionJob]) -> Result<()> {
        if jobs.is_empty() {
            return Ok(());
        }
        let mut pipe = redis::pipe();
        for job in jobs {
            pipe.xadd(&self.stream, "*", &[(JOB_FIELD, encode(job)?)]).ignore();
        }
        let mut connection = self.connection().await?;
        pipe.query_async::<()>(&mut connection).await.map_err(unavailable)
    }

    /// Entries not yet fully processed (read or unread).
    pub async fn depth(&self) -> Result<u64> {
        let mut connection = self.connection().await?;
        connection.xlen(&self.stream).await.map_err(unavailable)
    }

    /// New entries for `consumer`, waiting up to `block` (at most [`MAX_BLOCK`]) for the first one.
    pub async fn read(&self, consumer: &str, count: usize, block: Duration) -> Result<Vec<Delivery>> {
        let block = block.min(MAX_BLOCK);
        let options = StreamReadOptions::default()
            .group(&self.group, consumer)
            .count(count)
            .block(block.as_millis() as usize);
        let mut connection = self.connection().await?;
        let reply: Option<StreamReadReply> =
            connection.xread_options(&[&self.stream], &[">"], &options).await.map_err(unavailable)?;
        Ok(reply.into_iter().flat_map(|r| r.keys).flat_map(|k| k.ids).map(delivery).collect())
    }

    /// Entries `consumer` read earlier but never acknowledged (it crashed or was stopped): a
    /// restarted worker finishes these first instead of waiting for them to go stale.
    pub async fn read_own_pending(&self, consumer: &str, count: usize) -> Result<Vec<Delivery>> {
        let options = StreamReadOptions::default().group(&self.group, consumer).count(count);
        let mut connection = self.connection().await?;
        let reply: Option<StreamReadReply> =
            connection.xread_options(&[&self.stream], &["0"], &options).await.map_err(unavailable)?;
        Ok(reply.into_iter().flat_map(|r| r.keys).flat_map(|k| k.ids).map(delivery).collect())
    }

    /// Takes over entries another consumer read but did not acknowledge within `min_idle`.
    pub async fn claim_stale(
        &self,
        consumer: &str,
        min_idle: Duration,
        count: usize,
    ) -> Result<Vec<Delivery>> {
        let mut connection = self.connection().await?;
        let options = StreamAutoClaimOptions::default().count(count);
        let reply: StreamAutoClaimReply = connection
            .xautoclaim_options(
                &self.stream,
                &self.group,
                consumer,
                min_idle.as_millis() as u64,
                "0-0",
                options,
            )
            .await
            .map_err(unavailable)?;
        Ok(reply.claimed.into_iter().map(delivery).collect())
    }

    /// Parks an entry that can never be processed on `<stream>:dead` with the reason, then
    /// acknowledges it: visible to operators, replayable, and out of the backlog.
    pub async fn dead_letter(&self, delivery: &Delivery, reason: &str) -> Result<()> {
        let job = match &delivery.job {
            Ok(job) => serde_json::to_string(job).unwrap_or_default(),
            Err(_) => String::new(),
        };
        let mut connection = self.connection().await?;
        let dead = format!("{}:dead", self.stream);
        let fields = [("entry", delivery.id.as_str()), (JOB_FIELD, job.as_str()), ("reason", reason)];
        connection.xadd::<_, _, _, _, String>(&dead, "*", &fields).await.map_err(unavailable)?;
        drop(connection);
        self.complete(std::slice::from_ref(&delivery.id)).await
    }

    /// Acknowledges and deletes processed entries in one round trip.
    pub async fn complete(&self, ids: &[String]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut connection = self.connection().await?;
        redis::pipe()
            .atomic()
            .xack(&self.stream, &self.group, ids)
            .ignore()
            .xdel(&self.stream, ids)
            .ignore()
            .query_async::<()>(&mut connection)
            .await
            .map_err(unavailable)
    }
}

fn encode(job: &IngestionJob) -> Result<String> {
    serde_json::to_string(job)
        .map_err(|e| Error::with_source(ErrorKind::Internal, "cannot encode ingestion job", e))
}

fn delivery(entry: StreamId) -> Delivery {
    let job = parse_job(&entry.map);
    Delivery { id: entry.id, job }
}

fn parse_job(fields: &HashMap<String, Value>) -> Result<IngestionJob, String> {
    let raw = match fields.get(JOB_FIELD) {
        Some(Value::BulkString(bytes)) => bytes.as_slice(),
        Some(Value::SimpleString(text)) => text.as_bytes(),
        _ => return Err("stream entry has no job field".to_owned()),
    };
    serde_json::from_slice(raw).map_err(|e| format!("undecodable job: {e}"))
}
