use domain::config::RedisSettings;

#[tokio::test]
async fn ping_answers_and_a_dead_server_is_unavailable() {
    let live = RedisSettings {
        url: test_support::stack_var("REDIS_CONNECTION_STRING").into(),
        key_prefix: String::new(),
    };
    storage::redis::check(&storage::redis::connect(&live).unwrap()).await.unwrap();

    // Port 1 on loopback: nothing listens there.
    let dead = RedisSettings { url: "redis://127.0.0.1:1".to_owned().into(), key_prefix: String::new() };
    let error = storage::redis::check(&storage::redis::connect(&dead).unwrap()).await.unwrap_err();
    assert!(error.is_unavailable(), "{error}");
}

const DAY: i64 = 86_400_000_000;

/// Trace deletion marks: found by project and trace, the latest time wins, and only the days from
/// the oldest entry's acceptance on are asked about.
#[tokio::test]
async fn trace_deletion_marks_are_found_from_the_day_asked_on() {
    use std::collections::{BTreeMap, BTreeSet};

    let settings = RedisSettings {
        url: test_support::stack_var("REDIS_CONNECTION_STRING").into(),
        key_prefix: String::new(),
    };
    let stream = format!("test-{}:ingestion", uuid::Uuid::new_v4().simple());
    let queue = storage::queue::IngestionQueue::new(storage::redis::connect(&settings).unwrap(), stream);
    let now = 20_000 * DAY + 5;
    queue.mark_deleted("p", &["old".into()], now - 3 * DAY).await.unwrap();
    queue.mark_deleted("p", &["a".into(), "b".into()], now - DAY).await.unwrap();
    queue.mark_deleted("p", &["a".into()], now).await.unwrap();
    queue.mark_deleted("q", &["c".into()], now).await.unwrap();

    let asked: BTreeMap<&str, BTreeSet<&str>> =
        BTreeMap::from([("p", BTreeSet::from(["a", "b", "old", "never"])), ("r", BTreeSet::from(["c"]))]);
    let since_yesterday = queue.deleted_since(&asked, now - DAY, now).await.unwrap();
    let mut found: Vec<_> = since_yesterday.into_iter().collect();
    found.sort();
    assert_eq!(found, [(("p".into(), "a".into()), now), (("p".into(), "b".into()), now - DAY)]);

    let since_long_ago = queue.deleted_since(&asked, now - 30 * DAY, now).await.unwrap();
    assert_eq!(since_long_ago.get(&("p".into(), "old".into())), Some(&(now - 3 * DAY)));
    assert_eq!(since_long_ago.len(), 3, "{since_long_ago:?}");
    assert!(queue.deleted_since(&BTreeMap::new(), now, now).await.unwrap().is_empty());

    // Which projects deleted anything in the window: the worker encodes the others' rows at once.
    queue.mark_deleted("s", &["x".into()], now - 3 * DAY).await.unwrap();
    let projects = BTreeSet::from(["p", "q", "r", "s"]);
    let deleting = |since| queue.projects_with_deletions(&projects, since, now);
    assert_eq!(deleting(now - DAY).await.unwrap(), BTreeSet::from(["p".to_owned(), "q".to_owned()]));
    assert_eq!(
        deleting(now - 30 * DAY).await.unwrap(),
        BTreeSet::from(["p".to_owned(), "q".to_owned(), "s".to_owned()])
    );
    assert!(queue.projects_with_deletions(&BTreeSet::new(), now, now).await.unwrap().is_empty());
}

/// An idle worker's blocked read watches the streams that were active when it began to wait, so
/// a project whose stream becomes active rings the wake stream, which every read watches and
/// clears; appends to a stream already active ring nothing.
#[tokio::test]
async fn a_stream_that_becomes_active_rings_the_wake_stream_once() {
    use deadpool_redis::redis::AsyncCommands;

    let (pool, base, queue) = test_queue();
    queue.ensure_group().await.unwrap();
    let wake = format!("{base}:wake");
    let mut redis = pool.get().await.unwrap();
    let job = |n: u32| storage::queue::IngestionJob { blob_key: format!("blob-{n}"), ..queue_job("p", n) };

    queue.enqueue_all(&[&job(1)]).await.unwrap();
    let rung: usize = redis.xlen(&wake).await.unwrap();
    assert_eq!(rung, 1, "the stream's first entry rings the wake stream");
    queue.enqueue_all(&[&job(2)]).await.unwrap();
    let rung: usize = redis.xlen(&wake).await.unwrap();
    assert_eq!(rung, 1, "an active stream rings nothing more");

    let read = queue.read("worker", 10, std::time::Duration::from_millis(100)).await.unwrap();
    let blobs: Vec<String> = read.iter().map(|d| d.job.as_ref().unwrap().blob_key.clone()).collect();
    assert_eq!(blobs, ["blob-1", "blob-2"], "the wake entry is not a delivery");
    let rung: usize = redis.xlen(&wake).await.unwrap();
    assert_eq!(rung, 0, "a read clears the wake entries it saw");
    type Value = deadpool_redis::redis::Value;
    let (pending, ..): (u64, Value, Value, Value) = deadpool_redis::redis::cmd("XPENDING")
        .arg(&wake)
        .arg("loupe-workers")
        .query_async(&mut redis)
        .await
        .unwrap();
    assert_eq!(pending, 0, "wake entries are acknowledged");

    // Completed, the stream leaves the active set; its next entry rings again.
    let entries: Vec<_> = read.into_iter().map(|d| d.entry).collect();
    queue.complete(&entries).await.unwrap();
    queue.enqueue_all(&[&job(3)]).await.unwrap();
    let rung: usize = redis.xlen(&wake).await.unwrap();
    assert_eq!(rung, 1, "a retired stream that becomes active again rings again");
}

fn queue_job(project: &str, n: u32) -> storage::queue::IngestionJob {
    storage::queue::IngestionJob {
        kind: storage::queue::PayloadKind::OtlpTraces,
        project_id: project.into(),
        blob_key: String::new(),
        part: None,
        public_key: "pk".into(),
        sdk_name: None,
        sdk_version: None,
        ingestion_version: None,
        scores_only: false,
        received_at_micros: i64::from(n),
    }
}

fn test_queue() -> (deadpool_redis::Pool, String, storage::queue::IngestionQueue) {
    let settings = RedisSettings {
        url: test_support::stack_var("REDIS_CONNECTION_STRING").into(),
        key_prefix: String::new(),
    };
    let pool = storage::redis::connect(&settings).unwrap();
    let base = format!("test-{}:ingestion", uuid::Uuid::new_v4().simple());
    let queue = storage::queue::IngestionQueue::new(pool.clone(), base.clone());
    (pool, base, queue)
}

/// Entries carry payloads while the bytes all entries carry stay within the bound; one that would
/// pass it is refused and not appended (web writes it to blob storage instead). Completing an
/// entry releases its bytes, and a retired stream drops whatever count it had left.
#[tokio::test]
async fn entries_carry_payloads_within_their_bound_and_release_them_when_completed() {
    use bytes::Bytes;
    use deadpool_redis::redis::AsyncCommands;

    let (pool, base, queue) = test_queue();
    queue.ensure_group().await.unwrap();
    let mut redis = pool.get().await.unwrap();
    let (first, second, third) = (queue_job("p", 1), queue_job("p", 2), queue_job("p", 3));
    let ten = Bytes::from_static(b"0123456789");
    let appended =
        queue.enqueue_carrying(&[(&first, &ten), (&second, &ten), (&third, &ten)], 25).await.unwrap();
    assert_eq!(appended, [true, true, false], "the third would carry 30 bytes of 25");
    let stream = queue.project_stream("p");
    let queued: usize = redis.xlen(&stream).await.unwrap();
    assert_eq!(queued, 2, "a refused entry is not appended");
    assert_eq!(queue.carried_bytes().await.unwrap(), 20);

    let read = queue.read("worker", 10, std::time::Duration::from_millis(100)).await.unwrap();
    assert_eq!(read.len(), 2);
    let jobs: Vec<i64> = read.iter().map(|d| d.job.as_ref().unwrap().received_at_micros).collect();
    assert_eq!(jobs, [1, 2]);
    for delivery in &read {
        assert_eq!(delivery.payload.as_deref(), Some(&b"0123456789"[..]));
    }
    assert_eq!(queue.carried_payload(&read[0].entry).await.unwrap().as_deref(), Some(&b"0123456789"[..]));

    queue.complete(std::slice::from_ref(&read[0].entry)).await.unwrap();
    assert_eq!(queue.carried_bytes().await.unwrap(), 10, "completing an entry releases its bytes");
    assert_eq!(queue.carried_payload(&read[0].entry).await.unwrap(), None, "a completed entry is gone");
    // A count left behind (an entry removed some other way) ends with its stream.
    let inline = format!("{base}:inline");
    let _: i64 = redis.hincr(&inline, &stream, 7).await.unwrap();
    let _: i64 = redis.hincr(&inline, "*", 7).await.unwrap();
    queue.complete(std::slice::from_ref(&read[1].entry)).await.unwrap();
    assert_eq!(queue.carried_bytes().await.unwrap(), 0, "a retired stream's count is dropped");
    let active: Vec<String> = redis.smembers(format!("{base}:queues")).await.unwrap();
    assert!(active.is_empty(), "the stream is retired: {active:?}");

    let appended = queue.enqueue_carrying(&[(&third, &ten)], 25).await.unwrap();
    assert_eq!(appended, [true], "room again once the worker caught up");
}

/// Entries an earlier release appended (`<base>:p:<project>` streams listed in `<base>:active`,
/// always naming a blob) are still read, counted in the backlog and retired when completed.
#[tokio::test]
async fn streams_of_earlier_releases_are_read_counted_and_retired() {
    use deadpool_redis::redis::AsyncCommands;

    let (pool, base, queue) = test_queue();
    queue.ensure_group().await.unwrap();
    let mut redis = pool.get().await.unwrap();
    let earlier = format!("{base}:p:old");
    let mut job = queue_job("old", 1);
    job.blob_key = "otel/old/blob.pb".into();
    let _: () = redis.xgroup_create_mkstream(&earlier, "loupe-workers", "0").await.unwrap();
    let _: String =
        redis.xadd(&earlier, "*", &[("job", serde_json::to_string(&job).unwrap())]).await.unwrap();
    let _: i64 = redis.sadd(format!("{base}:active"), &earlier).await.unwrap();

    let backlog = queue.backlog().await.unwrap();
    assert_eq!((backlog.total, backlog.by_project.get("old").copied()), (1, Some(1)));
    let read = queue.read("worker", 10, std::time::Duration::ZERO).await.unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].job.as_ref().unwrap(), &job);
    assert_eq!(read[0].payload, None, "it names its blob");
    queue.complete(&[read[0].entry.clone()]).await.unwrap();
    let active: Vec<String> = redis.smembers(format!("{base}:active")).await.unwrap();
    assert!(active.is_empty(), "completed, the earlier stream is retired: {active:?}");
    assert_eq!(queue.backlog().await.unwrap().total, 0);
}
