//! Group commit: payloads accepted at the same moment share one Redis round trip and, those not
//! carried in their stream entries (`carry`), one blob write.
//!
//! An S3 PUT costs the object store far more per request than per byte (on the 2-core bench
//! machine SeaweedFS took more CPU than web itself when every export was its own object). So
//! requests that arrive while earlier groups are being written wait in a channel, and the next
//! free writer takes everything waiting, up to a size cap. There is no timer: a lone request is
//! written at once and pays nothing for the grouping; grouping only happens when requests would
//! have queued anyway.
//!
//! A group holds one blob per project and payload kind: the payloads back to back, each stream
//! entry naming its byte range ([`BlobPart`]). A single payload is stored alone, without a range,
//! exactly as before group commit existed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use chrono::{DateTime, Utc};
use object_store::path::Path;
use object_store::{ObjectStoreExt, PutPayload};
use tokio::sync::{Semaphore, mpsc, oneshot};

use domain::config::QueueInline;
use storage::blob::BlobStore;
use storage::queue::{BlobPart, IngestionJob, IngestionQueue};

/// Payloads per group: the worker reads 64 stream entries at a time, so a group's entries are
/// usually read together and its blob fetched once.
const MAX_PARTS: usize = 64;
/// Bytes per group, so one blob stays a modest object to write and to read back.
const MAX_BYTES: usize = 16 << 20;
/// The longest a blob write may take, retries included. The store's client retries for up to
/// three minutes; a hung S3 would hold every request (and its body) that long. Past this the
/// clients hear 503 and retry; a blob that lands later is an orphan, never an acknowledged loss.
const WRITE_DEADLINE: Duration = Duration::from_secs(10);

/// One payload waiting to be written, and where to say how that went.
pub(super) struct Submission {
    /// Everything but `blob_key` and `part`, which the writer fills in.
    pub job: IngestionJob,
    pub payload: Bytes,
    pub done: oneshot::Sender<Result<(), String>>,
    /// When the request handed it over: the wait for a writer is part of its acknowledgement.
    pub submitted: Instant,
}

/// The acknowledgement path's stages, timed per payload, blob and group (docs/metrics.md): what
/// `loupe-bench ingest` splits its ack latency into.
const WAIT_SECONDS: &str = "loupe_ingestion_accept_wait_seconds";
const BLOB_SECONDS: &str = "loupe_ingestion_accept_blob_write_seconds";
const QUEUE_SECONDS: &str = "loupe_ingestion_accept_queue_append_seconds";
/// Payloads stored, by where: in their stream entry, or in blob storage (docs/metrics.md).
const STORED: &str = "loupe_ingestion_accept_stored_payloads_total";

/// Starts the writers; payloads sent to the returned channel are stored and queued in groups.
/// The writers stop once every sender is dropped and the channel is drained. `writers` groups are
/// written at once (`LANGFUSE_INGESTION_BLOB_WRITERS`): more lets a slow PUT not hold back the next
/// group; each one fewer means more requests grouped into the next, so fewer PUTs for the store.
pub(super) fn start(
    blobs: BlobStore,
    queue: IngestionQueue,
    writers: usize,
    inline: QueueInline,
) -> mpsc::Sender<Submission> {
    let writers = writers.max(1);
    let (sender, receiver) = mpsc::channel(writers * MAX_PARTS);
    tokio::spawn(run(blobs, queue, inline, receiver, Arc::new(Semaphore::new(writers))));
    sender
}

/// `writers` holds one permit per group being written.
async fn run(
    blobs: BlobStore,
    queue: IngestionQueue,
    inline: QueueInline,
    mut receiver: mpsc::Receiver<Submission>,
    writers: Arc<Semaphore>,
) {
    loop {
        // Take a writer first: while all are busy, arrivals accumulate into the next group.
        let Ok(permit) = writers.clone().acquire_owned().await else { return };
        let Some(first) = receiver.recv().await else { return };
        let mut bytes = first.payload.len();
        let mut group = vec![first];
        while group.len() < MAX_PARTS && bytes < MAX_BYTES {
            match receiver.try_recv() {
                Ok(next) => {
                    bytes += next.payload.len();
                    group.push(next);
                }
                Err(_) => break,
            }
        }
        let (blobs, queue) = (blobs.clone(), queue.clone());
        tokio::spawn(async move {
            let group = carry(&queue, inline, group).await;
            write_group(&blobs, &queue, group).await;
            drop(permit);
        });
    }
}

/// Appends the entries of the group's payloads small enough to travel in them, while the queue's
/// bound on such bytes allows, and answers those; returns the rest, for blob storage. An entry
/// names its payload's length as a blob part would, which is what the worker sizes batches by.
async fn carry(queue: &IngestionQueue, inline: QueueInline, group: Vec<Submission>) -> Vec<Submission> {
    let started = Instant::now();
    for submission in &group {
        metrics::histogram!(WAIT_SECONDS).record(started.duration_since(submission.submitted).as_secs_f64());
    }
    let (mut carried, mut rest): (Vec<_>, Vec<_>) =
        group.into_iter().partition(|s| s.payload.len() <= inline.max_payload_bytes && !s.payload.is_empty());
    if carried.is_empty() {
        return rest;
    }
    for submission in &mut carried {
        submission.job.part = Some(BlobPart { offset: 0, len: submission.payload.len() as u64 });
    }
    let jobs: Vec<(&IngestionJob, &Bytes)> = carried.iter().map(|s| (&s.job, &s.payload)).collect();
    let result = queue.enqueue_carrying(&jobs, inline.total_bytes).await.map_err(|e| e.to_string());
    metrics::histogram!(QUEUE_SECONDS, "outcome" => outcome(&result)).record(started.elapsed().as_secs_f64());
    let appended = match result {
        Ok(appended) => appended,
        Err(message) => {
            answer(carried, Err(message));
            return rest;
        }
    };
    let mut answered = Vec::new();
    for (mut submission, appended) in carried.into_iter().zip(appended) {
        if appended {
            answered.push(submission);
        } else {
            submission.job.part = None;
            rest.push(submission);
        }
    }
    metrics::counter!(STORED, "in" => "queue_entry").increment(answered.len() as u64);
    answer(answered, Ok(()));
    rest
}

/// Stores the group's blobs, appends the entries of those that were stored, then answers each
/// submission. A submission hears `Ok` only when its payload and its entry are both durable.
async fn write_group(blobs: &BlobStore, queue: &IngestionQueue, group: Vec<Submission>) {
    if group.is_empty() {
        return;
    }
    let (now, started) = (Utc::now(), Instant::now());
    let blob_groups = by_blob(group);
    let (payloads, blob_count) = (blob_groups.iter().map(Vec::len).sum::<usize>(), blob_groups.len());
    let stored =
        futures::future::join_all(blob_groups.into_iter().map(|parts| store(blobs, parts, now))).await;
    let stored_ms = started.elapsed().as_millis() as u64;
    let mut queued = Vec::new();
    for (parts, result) in stored {
        match result {
            Ok(()) => queued.extend(parts),
            Err(message) => answer(parts, Err(message)),
        }
    }
    let jobs: Vec<&IngestionJob> = queued.iter().map(|s| &s.job).collect();
    let appending = Instant::now();
    let result = queue.enqueue_all(&jobs).await.map_err(|e| e.to_string());
    if !jobs.is_empty() {
        metrics::histogram!(QUEUE_SECONDS, "outcome" => outcome(&result))
            .record(appending.elapsed().as_secs_f64());
    }
    tracing::debug!(
        payloads,
        blobs = blob_count,
        stored_ms,
        queued_ms = started.elapsed().as_millis() as u64 - stored_ms,
        "accepted payloads written"
    );
    if result.is_ok() {
        metrics::counter!(STORED, "in" => "blob").increment(queued.len() as u64);
    }
    answer(queued, result);
}

fn outcome<T>(result: &Result<T, String>) -> &'static str {
    if result.is_ok() { "ok" } else { "error" }
}

fn answer(parts: Vec<Submission>, result: Result<(), String>) {
    for part in parts {
        // The request may have gone away meanwhile; its payload is durable all the same.
        let _ = part.done.send(result.clone());
    }
}

/// Splits a group into one list per blob: one project and payload kind each, arrival order kept.
fn by_blob(group: Vec<Submission>) -> Vec<Vec<Submission>> {
    let mut blobs: Vec<Vec<Submission>> = Vec::new();
    for submission in group {
        let same = |parts: &&mut Vec<Submission>| {
            parts[0].job.project_id == submission.job.project_id && parts[0].job.kind == submission.job.kind
        };
        match blobs.iter_mut().find(same) {
            Some(parts) => parts.push(submission),
            None => blobs.push(vec![submission]),
        }
    }
    blobs
}

/// Writes one blob for `parts` (all of one project and kind) and records each part's place in it.
async fn store(
    blobs: &BlobStore,
    mut parts: Vec<Submission>,
    now: DateTime<Utc>,
) -> (Vec<Submission>, Result<(), String>) {
    let key = super::payload_key(parts[0].job.kind, &parts[0].job.project_id, now);
    // Every entry names its byte range, even alone in its blob: the worker sizes its batches by
    // these lengths before it reads a byte.
    let mut offset = 0;
    for part in &mut parts {
        let len = part.payload.len() as u64;
        part.job.part = Some(BlobPart { offset, len });
        offset += len;
    }
    let payload = if let [single] = parts.as_slice() {
        PutPayload::from_bytes(single.payload.clone())
    } else {
        parts.iter().map(|p| p.payload.clone()).collect()
    };
    for part in &mut parts {
        part.job.blob_key.clone_from(&key);
    }
    let location = Path::from(key.as_str());
    let (write, writing) = (blobs.store().put(&location, payload), Instant::now());
    let result = match tokio::time::timeout(WRITE_DEADLINE, write).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(format!("blob storage: {e}")),
        Err(_) => Err(format!("blob storage: no answer within {WRITE_DEADLINE:?}")),
    };
    metrics::histogram!(BLOB_SECONDS, "outcome" => outcome(&result)).record(writing.elapsed().as_secs_f64());
    (parts, result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use storage::queue::PayloadKind;

    fn submission(project: &str, kind: PayloadKind) -> Submission {
        let job = IngestionJob {
            kind,
            project_id: project.into(),
            blob_key: String::new(),
            part: None,
            public_key: "pk".into(),
            sdk_name: None,
            sdk_version: None,
            ingestion_version: None,
            scores_only: false,
            received_at_micros: 0,
        };
        Submission {
            job,
            payload: Bytes::from_static(b"x"),
            done: oneshot::channel().0,
            submitted: Instant::now(),
        }
    }

    #[test]
    fn a_group_is_split_by_project_and_kind_in_arrival_order() {
        let group = vec![
            submission("a", PayloadKind::OtlpTraces),
            submission("b", PayloadKind::OtlpTraces),
            submission("a", PayloadKind::IngestionBatch),
            submission("a", PayloadKind::OtlpTraces),
        ];
        let blobs = by_blob(group);
        let shape: Vec<Vec<(&str, PayloadKind)>> = blobs
            .iter()
            .map(|parts| parts.iter().map(|p| (p.job.project_id.as_str(), p.job.kind)).collect())
            .collect();
        assert_eq!(
            shape,
            vec![
                vec![("a", PayloadKind::OtlpTraces), ("a", PayloadKind::OtlpTraces)],
                vec![("b", PayloadKind::OtlpTraces)],
                vec![("a", PayloadKind::IngestionBatch)],
            ]
        );
    }

    /// Needs the test stack's Redis (`REDIS_CONNECTION_STRING`): the entries are really appended.
    #[tokio::test]
    async fn payloads_arriving_while_every_writer_is_busy_share_the_next_blob() {
        let dir = std::env::temp_dir().join(format!("loupe-group-commit-{}", uuid::Uuid::now_v7()));
        let blobs = BlobStore::connect(&domain::config::BlobSettings::LocalDir(dir.clone())).unwrap();
        let url = test_support::stack_var("REDIS_CONNECTION_STRING");
        let redis = domain::config::RedisSettings { url: url.into(), key_prefix: String::new() };
        let base = format!("group-commit-test-{}:ingestion", uuid::Uuid::now_v7());
        let queue = IngestionQueue::new(storage::redis::connect(&redis).unwrap(), base);
        // One writer (`LANGFUSE_INGESTION_BLOB_WRITERS=1`), and it is busy.
        let (sender, receiver) = mpsc::channel(MAX_PARTS);
        let writers = Arc::new(Semaphore::new(1));
        let busy = writers.clone().acquire_owned().await.unwrap();
        let inline = QueueInline { max_payload_bytes: 0, total_bytes: 1 };
        tokio::spawn(run(blobs, queue, inline, receiver, writers));
        let mut answers = Vec::new();
        for payload in ["a", "bb", "ccc"] {
            let (done, answer) = oneshot::channel();
            let mut waiting = submission("p", PayloadKind::OtlpTraces);
            (waiting.payload, waiting.done) = (Bytes::from(payload), done);
            sender.send(waiting).await.unwrap();
            answers.push(answer);
        }
        drop(busy);
        for answer in answers {
            let answered = tokio::time::timeout(Duration::from_secs(10), answer).await;
            answered.expect("answered within 10 s").unwrap().expect("stored and queued");
        }
        let files: Vec<_> = walk(&dir);
        assert_eq!(files.len(), 1, "one PUT for the three payloads: {files:?}");
        assert_eq!(std::fs::read(&files[0]).unwrap(), b"abbccc");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// Needs the test stack's Redis. Payloads up to the size travel in their entries while the
    /// bound on all such bytes allows; the rest are handed back for blob storage, unanswered.
    #[tokio::test]
    async fn small_payloads_travel_in_their_entries_within_the_bound_and_the_rest_wait_for_a_blob() {
        let url = test_support::stack_var("REDIS_CONNECTION_STRING");
        let redis = domain::config::RedisSettings { url: url.into(), key_prefix: String::new() };
        let base = format!("group-commit-test-{}:ingestion", uuid::Uuid::now_v7());
        let queue = IngestionQueue::new(storage::redis::connect(&redis).unwrap(), base);
        queue.ensure_group().await.unwrap();
        let inline = QueueInline { max_payload_bytes: 4, total_bytes: 6 };
        let mut answers = Vec::new();
        let mut group = Vec::new();
        for payload in ["aa", "eeeeee", "bbb", "cc"] {
            let (done, answer) = oneshot::channel();
            let mut waiting = submission("p", PayloadKind::OtlpTraces);
            (waiting.payload, waiting.done) = (Bytes::from(payload), done);
            group.push(waiting);
            answers.push((payload, answer));
        }
        let rest = carry(&queue, inline, group).await;
        let left: Vec<&[u8]> = rest.iter().map(|s| s.payload.as_ref()).collect();
        assert_eq!(left, [&b"eeeeee"[..], b"cc"], "too large, then past the bound of 6 bytes");
        assert!(rest.iter().all(|s| s.job.part.is_none() && s.job.blob_key.is_empty()));
        assert_eq!(queue.carried_bytes().await.unwrap(), 5);
        for (payload, mut answer) in answers {
            let answered = answer.try_recv();
            match payload {
                "aa" | "bbb" => assert_eq!(answered, Ok(Ok(())), "{payload} is acknowledged"),
                _ => assert!(answered.is_err(), "{payload} waits for its blob"),
            }
        }
        let read = queue.read("worker", 10, Duration::ZERO).await.unwrap();
        let carried: Vec<(Option<&[u8]>, Option<BlobPart>)> =
            read.iter().map(|d| (d.payload.as_deref(), d.job.as_ref().unwrap().part)).collect();
        let whole = |len| Some(BlobPart { offset: 0, len });
        assert_eq!(carried, [(Some(&b"aa"[..]), whole(2)), (Some(&b"bbb"[..]), whole(3))]);
    }

    fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() { files.extend(walk(&path)) } else { files.push(path) }
        }
        files
    }

    #[tokio::test]
    async fn parts_are_laid_back_to_back_and_a_single_payload_names_its_whole_range() {
        let dir = std::env::temp_dir().join(format!("loupe-group-commit-{}", uuid::Uuid::now_v7()));
        let blobs = BlobStore::connect(&domain::config::BlobSettings::LocalDir(dir.clone())).unwrap();
        let mut parts =
            vec![submission("p", PayloadKind::OtlpTraces), submission("p", PayloadKind::OtlpTraces)];
        parts[0].payload = Bytes::from_static(b"first");
        parts[1].payload = Bytes::from_static(b"second!");
        let (parts, result) = store(&blobs, parts, Utc::now()).await;
        result.unwrap();
        assert_eq!(parts[0].job.blob_key, parts[1].job.blob_key);
        assert_eq!(parts[0].job.part, Some(BlobPart { offset: 0, len: 5 }));
        assert_eq!(parts[1].job.part, Some(BlobPart { offset: 5, len: 7 }));
        let stored = blobs.store().get(&Path::from(parts[0].job.blob_key.as_str())).await.unwrap();
        assert_eq!(stored.bytes().await.unwrap().as_ref(), b"firstsecond!");

        let (single, result) =
            store(&blobs, vec![submission("p", PayloadKind::OtlpTraces)], Utc::now()).await;
        result.unwrap();
        let len = single[0].payload.len() as u64;
        assert_eq!(single[0].job.part, Some(BlobPart { offset: 0, len }), "sized for the worker's batches");
        assert_ne!(single[0].job.blob_key, parts[0].job.blob_key);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
