//! The durable hand-off between web and worker: Redis streams of payloads, each entry carrying its
//! payload (up to a size, within a bound on all such bytes) or naming the blob web wrote it to.
//!
//! Each project has its own stream (`<base>:q:<project>`), listed in the set of active streams
//! (`<base>:queues`) while anything is queued or pending in it. web appends (`XADD`) before
//! acknowledging a client; workers read all active streams at once through one consumer group,
//! taking at most a fair share of each per read, so a project with a flood of payloads queued
//! ahead cannot hold back another's (ARCHITECTURE.md, "fairness"). Workers acknowledge-and-delete
//! an entry only after its rows are inserted. Entries a crashed worker had read stay pending and
//! are claimed by another consumer once idle (`XAUTOCLAIM`). The streams' total length is
//! therefore the backlog, which is what back-pressure watches.
//!
//! Earlier releases appended to the base stream itself (`<base>`), then to `<base>:p:<project>`
//! streams listed in `<base>:active`, whose entries always name a blob. Both are still read and
//! completed, so an upgrade loses nothing; and a worker of those releases, which reads only them,
//! never meets an entry carrying its payload, which it would take for a missing blob.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use bytes::Bytes;
use deadpool_redis::Pool;
use deadpool_redis::redis::streams::{
    StreamAutoClaimReply, StreamId, StreamRangeReply, StreamReadOptions, StreamReadReply,
};
use deadpool_redis::redis::{self, AsyncCommands, Value};
use serde::{Deserialize, Serialize};

use crate::{Error, ErrorKind, Result};

mod backlog;
mod deletions;
mod scripts;

pub use backlog::Backlog;

/// What web accepted: enough to find, decode and attribute the payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IngestionJob {
    pub kind: PayloadKind,
    pub project_id: String,
    /// Where the payload is stored; empty when the entry carries it ([`Delivery::payload`]).
    pub blob_key: String,
    /// Where the payload sits when its blob holds several (web writes payloads accepted at the
    /// same moment as one blob); `None`: the whole blob. Entries written before this field
    /// existed deserialize as `None`, which is what they meant; web now names the range of every
    /// payload, so the worker can size its batches before reading them.
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

impl IngestionJob {
    /// Where its payload is, for messages: its blob key, or that its entry carries it.
    pub fn payload_place(&self) -> &str {
        if self.blob_key.is_empty() { "(carried in its queue entry)" } else { &self.blob_key }
    }
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

impl PayloadKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OtlpTraces => "otlp_traces",
            Self::IngestionBatch => "ingestion_batch",
        }
    }
}

/// Where an entry sits: its stream and its id there, what acknowledging it takes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EntryRef {
    pub stream: String,
    pub id: String,
}

/// A job read from a stream, with the reference to acknowledge it by.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub entry: EntryRef,
    /// The entry's job, or why it cannot be read (with the entry's raw text, for the dead letter).
    pub job: Result<IngestionJob, Unreadable>,
    /// The payload, when the entry carries it instead of naming a blob.
    pub payload: Option<Bytes>,
}

/// An entry whose job field is missing or not a job.
#[derive(Debug, Clone)]
pub struct Unreadable {
    pub reason: String,
    pub raw: String,
}

#[derive(Clone)]
pub struct IngestionQueue {
    pool: Pool,
    /// `<prefix>ingestion`: the base of every key, and the stream of releases before per-project streams.
    base: String,
    group: String,
}

const JOB_FIELD: &str = "job";
/// The field of an entry that carries its payload.
const PAYLOAD_FIELD: &str = "payload";

/// The redis client gives every reply 500 ms; a blocking read must return well within that or it
/// is reported as a timeout.
pub const MAX_BLOCK: Duration = Duration::from_millis(300);

pub(crate) fn unavailable(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Error {
    Error::with_source(ErrorKind::Unavailable, "redis", e)
}

impl IngestionQueue {
    pub fn new(pool: Pool, base: impl Into<String>) -> Self {
        Self { pool, base: base.into(), group: "loupe-workers".to_owned() }
    }

    async fn connection(&self) -> Result<deadpool_redis::Connection> {
        self.pool.get().await.map_err(unavailable)
    }

    fn active_key(&self) -> String {
        format!("{}:queues", self.base)
    }

    /// The set of active `<base>:p:` streams of earlier releases, drained and retired as before.
    fn earlier_active_key(&self) -> String {
        format!("{}:active", self.base)
    }

    /// The bytes of payloads entries carry: per stream, and in all under `*` (`scripts::APPEND`).
    fn inline_key(&self) -> String {
        format!("{}:inline", self.base)
    }

    /// The stream that wakes blocked reads when a project stream becomes active.
    fn wake_key(&self) -> String {
        format!("{}:wake", self.base)
    }

    fn attempts_key(&self) -> String {
        format!("{}:attempts", self.base)
    }

    /// Counts one more delivery of each entry and returns the counts, this one included: a payload
    /// that crashes its worker, or keeps failing, is seen coming back however it comes back (a
    /// restart's own pending entries, another worker's claim). Forgotten when it is completed.
    pub async fn count_delivery(&self, entries: &[&EntryRef]) -> Result<Vec<u32>> {
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        let key = self.attempts_key();
        let mut pipe = redis::pipe();
        for entry in entries {
            pipe.hincr(&key, format!("{} {}", entry.stream, entry.id), 1);
        }
        let mut connection = self.connection().await?;
        let counts: Vec<i64> = pipe.query_async(&mut connection).await.map_err(unavailable)?;
        Ok(counts.into_iter().map(|n| u32::try_from(n).unwrap_or(u32::MAX)).collect())
    }

    /// The stream of one project's entries.
    pub fn project_stream(&self, project_id: &str) -> String {
        format!("{}:q:{project_id}", self.base)
    }

    /// Creates the base and wake streams and their consumer group if missing (project streams get
    /// theirs with their first entry).
    pub async fn ensure_group(&self) -> Result<()> {
        let mut connection = self.connection().await?;
        create_group(&mut connection, &self.base, &self.group).await?;
        create_group(&mut connection, &self.wake_key(), &self.group).await
    }

    /// Appends several entries, each to its project's stream and in order, in one round trip. On an
    /// error some may have been appended: callers treat them all as not accepted, and a client's
    /// retry only writes rows that collapse with the first ones.
    pub async fn enqueue_all(&self, jobs: &[&IngestionJob]) -> Result<()> {
        if jobs.is_empty() {
            return Ok(());
        }
        let mut pipe = redis::pipe();
        for job in jobs {
            self.append(&mut pipe, job)?.ignore();
        }
        let mut connection = self.connection().await?;
        pipe.query_async::<()>(&mut connection).await.map_err(unavailable)
    }

    /// Appends entries that carry their payloads, in one round trip, as long as all entries'
    /// payloads stay within `total_bytes`; says which were appended. A refused one was not: its
    /// payload goes to blob storage and [`Self::enqueue_all`]. On an error, as there.
    pub async fn enqueue_carrying(
        &self,
        jobs: &[(&IngestionJob, &Bytes)],
        total_bytes: u64,
    ) -> Result<Vec<bool>> {
        if jobs.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for (job, payload) in jobs {
            self.append(&mut pipe, job)?.arg(PAYLOAD_FIELD).arg(payload.as_ref()).arg(total_bytes);
        }
        let mut connection = self.connection().await?;
        let ids: Vec<Value> = pipe.query_async(&mut connection).await.map_err(unavailable)?;
        Ok(ids.iter().map(|id| !matches!(id, Value::Int(0))).collect())
    }

    /// Adds the append script for `job` to `pipe`; the caller may add the payload's arguments.
    fn append<'p>(
        &self,
        pipe: &'p mut redis::Pipeline,
        job: &IngestionJob,
    ) -> Result<&'p mut redis::Pipeline> {
        let (stream, job) = (self.project_stream(&job.project_id), encode(job)?);
        Ok(pipe
            .cmd("EVAL")
            .arg(scripts::APPEND)
            .arg(4)
            .arg(stream)
            .arg(self.active_key())
            .arg(self.wake_key())
            .arg(self.inline_key())
            .arg(&self.group)
            .arg(JOB_FIELD)
            .arg(job))
    }

    /// The streams to read: the base stream and every active project stream, this release's and
    /// earlier ones'.
    async fn streams(&self, connection: &mut deadpool_redis::Connection) -> Result<Vec<String>> {
        let mut streams: Vec<String> =
            connection.sunion(&[self.active_key(), self.earlier_active_key()]).await.map_err(unavailable)?;
        streams.retain(|s| s != &self.base);
        streams.sort();
        streams.insert(0, self.base.clone());
        Ok(streams)
    }

    /// New entries for `consumer`, waiting up to `block` (at most [`MAX_BLOCK`]; zero: not at all)
    /// for the first one. Each stream gives at most its share of `count` (and at least one entry),
    /// so every project with queued work is served in every read, however much another has queued.
    ///
    /// A blocked read watches the streams that were active when it started, plus the wake stream:
    /// a project whose stream becomes active meanwhile posts there (`scripts::APPEND`), so its
    /// first entry ends the wait at once instead of at the next read. The wake entry itself is
    /// acknowledged and deleted here, and the read returns (empty, or with what else arrived);
    /// the caller's next read includes the new stream.
    pub async fn read(&self, consumer: &str, count: usize, block: Duration) -> Result<Vec<Delivery>> {
        let block = (!block.is_zero()).then(|| block.min(MAX_BLOCK));
        self.read_from(consumer, count, block, ">").await
    }

    /// Entries `consumer` read earlier but never acknowledged (it crashed or was stopped): a
    /// restarted worker finishes these first instead of waiting for them to go stale.
    pub async fn read_own_pending(&self, consumer: &str, count: usize) -> Result<Vec<Delivery>> {
        self.read_from(consumer, count, None, "0").await
    }

    async fn read_from(
        &self,
        consumer: &str,
        count: usize,
        block: Option<Duration>,
        from: &str,
    ) -> Result<Vec<Delivery>> {
        let mut connection = self.connection().await?;
        let mut streams = self.streams(&mut connection).await?;
        let wake = self.wake_key();
        streams.push(wake.clone());
        let share = (count / streams.len()).max(1);
        let mut options = StreamReadOptions::default().group(&self.group, consumer).count(share);
        if let Some(block) = block {
            options = options.block(block.as_millis() as usize);
        }
        let ids = vec![from; streams.len()];
        let reply: redis::RedisResult<Option<StreamReadReply>> =
            connection.xread_options(&streams, &ids, &options).await;
        let reply = match reply {
            Err(e) if e.code() == Some("NOGROUP") => {
                // A stream whose group is gone (Redis restored from an older snapshot, or the
                // stream of a release before groups were made per stream): make it and read next turn.
                for stream in &streams {
                    create_group(&mut connection, stream, &self.group).await?;
                }
                return Ok(Vec::new());
            }
            other => other.map_err(unavailable)?,
        };
        let (wakes, keys): (Vec<_>, Vec<_>) =
            reply.into_iter().flat_map(|r| r.keys).partition(|key| key.key == wake);
        let woken: Vec<String> = wakes.into_iter().flat_map(|k| k.ids).map(|entry| entry.id).collect();
        if !woken.is_empty() {
            let mut pipe = redis::pipe();
            pipe.xack(&wake, &self.group, &woken).ignore().xdel(&wake, &woken).ignore();
            pipe.query_async::<()>(&mut connection).await.map_err(unavailable)?;
        }
        Ok(keys
            .into_iter()
            .flat_map(|key| {
                let stream = key.key;
                key.ids.into_iter().map(move |entry| delivery(&stream, entry))
            })
            .collect())
    }

    /// Takes over entries another consumer read but did not acknowledge within `min_idle`, a share
    /// of `count` from each stream, in one round trip.
    pub async fn claim_stale(
        &self,
        consumer: &str,
        min_idle: Duration,
        count: usize,
    ) -> Result<Vec<Delivery>> {
        let mut connection = self.connection().await?;
        let streams = self.streams(&mut connection).await?;
        let share = (count / streams.len()).max(1);
        let mut pipe = redis::pipe();
        for stream in &streams {
            pipe.cmd("XAUTOCLAIM")
                .arg(stream)
                .arg(&self.group)
                .arg(consumer)
                .arg(min_idle.as_millis() as u64)
                .arg("0-0")
                .arg("COUNT")
                .arg(share);
        }
        let replies: Vec<redis::RedisResult<StreamAutoClaimReply>> =
            match pipe.query_async(&mut connection).await {
                Ok(replies) => replies,
                // One stream without its group fails the whole pipeline; the next read makes it.
                Err(e) if e.code() == Some("NOGROUP") => return Ok(Vec::new()),
                Err(e) => return Err(unavailable(e)),
            };
        let mut claimed = Vec::new();
        for (stream, reply) in streams.iter().zip(replies) {
            claimed.extend(reply.map_err(unavailable)?.claimed.into_iter().map(|e| delivery(stream, e)));
        }
        Ok(claimed)
    }

    /// Acknowledges and deletes processed entries, one script per stream in one round trip; a
    /// stream left with nothing queued or pending leaves the active set.
    pub async fn complete(&self, entries: &[EntryRef]) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let mut by_stream: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for entry in entries {
            by_stream.entry(&entry.stream).or_default().push(&entry.id);
        }
        let keys = [self.active_key(), self.earlier_active_key(), self.attempts_key(), self.inline_key()];
        let mut pipe = redis::pipe();
        for (stream, ids) in by_stream {
            pipe.cmd("EVAL")
                .arg(scripts::COMPLETE)
                .arg(5)
                .arg(stream)
                .arg(&keys)
                .arg(&self.group)
                .arg(PAYLOAD_FIELD)
                .arg(ids)
                .ignore();
        }
        let mut connection = self.connection().await?;
        pipe.query_async::<()>(&mut connection).await.map_err(unavailable)
    }

    /// Appends a job again (an operator's replay of a dead letter), as web would have.
    pub async fn requeue(&self, job: &IngestionJob) -> Result<()> {
        self.enqueue_all(&[job]).await
    }

    /// The payload an entry carries, while the entry is queued or pending; `None` when it names a
    /// blob instead, or is gone.
    pub async fn carried_payload(&self, entry: &EntryRef) -> Result<Option<Bytes>> {
        let mut connection = self.connection().await?;
        let reply: StreamRangeReply =
            connection.xrange(&entry.stream, &entry.id, &entry.id).await.map_err(unavailable)?;
        Ok(reply.ids.into_iter().next().and_then(|mut found| take_payload(&mut found.map)))
    }

    /// The bytes of payloads queued entries carry, in all (what `LANGFUSE_INGESTION_QUEUE_INLINE_TOTAL_BYTES` bounds).
    pub async fn carried_bytes(&self) -> Result<u64> {
        let mut connection = self.connection().await?;
        let held: Option<i64> = connection.hget(self.inline_key(), "*").await.map_err(unavailable)?;
        Ok(held.map_or(0, |n| u64::try_from(n).unwrap_or(0)))
    }
}

async fn create_group(connection: &mut deadpool_redis::Connection, stream: &str, group: &str) -> Result<()> {
    let created: redis::RedisResult<()> = connection.xgroup_create_mkstream(stream, group, "0").await;
    match created {
        Ok(()) => Ok(()),
        Err(e) if e.code() == Some("BUSYGROUP") => Ok(()),
        Err(e) => Err(unavailable(e)),
    }
}

fn encode(job: &IngestionJob) -> Result<String> {
    serde_json::to_string(job)
        .map_err(|e| Error::with_source(ErrorKind::Internal, "cannot encode ingestion job", e))
}

fn delivery(stream: &str, mut entry: StreamId) -> Delivery {
    let (payload, job) = (take_payload(&mut entry.map), parse_job(&entry.map));
    Delivery { entry: EntryRef { stream: stream.to_owned(), id: entry.id }, job, payload }
}

/// Moves the payload out of an entry's fields, without copying it.
fn take_payload(fields: &mut HashMap<String, Value>) -> Option<Bytes> {
    match fields.remove(PAYLOAD_FIELD) {
        Some(Value::BulkString(bytes)) => Some(Bytes::from(bytes)),
        _ => None,
    }
}

fn parse_job(fields: &HashMap<String, Value>) -> Result<IngestionJob, Unreadable> {
    let raw = match fields.get(JOB_FIELD) {
        Some(Value::BulkString(bytes)) => bytes.as_slice(),
        Some(Value::SimpleString(text)) => text.as_bytes(),
        _ => {
            let raw = format!("{:?}", fields.keys().collect::<Vec<_>>());
            return Err(Unreadable { reason: "stream entry has no job field".to_owned(), raw });
        }
    };
    serde_json::from_slice(raw).map_err(|e| Unreadable {
        reason: format!("undecodable job: {e}"),
        raw: String::from_utf8_lossy(raw).into_owned(),
    })
}
