//! An acknowledged span is never lost: not when the worker is killed, not when Redis restarts,
//! not while ClickHouse is unreachable. Each test sends synthetic OTLP exports, counts what the
//! server acknowledged, breaks something, and then waits (with a deadline) until exactly those
//! spans are stored once.

use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, http};
use crate::proxy::Proxy;

const TRACES_PER_EXPORT: u64 = 5;
const SPANS_PER_TRACE: u64 = 4;

/// Sends `exports` exports numbered from `first`; returns how many spans were acknowledged.
async fn send(web: &App, run: u64, first: u64, exports: u64) -> u64 {
    let auth = format!("Basic {}", STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}")));
    let mut acknowledged = 0;
    for i in first..first + exports {
        let body =
            test_support::otlp::export_bytes(run, i * TRACES_PER_EXPORT, TRACES_PER_EXPORT, SPANS_PER_TRACE);
        let response = http()
            .post(format!("{}/api/public/otel/v1/traces", web.base_url))
            .header("Authorization", &auth)
            .header("Content-Type", "application/x-protobuf")
            .body(body)
            .send()
            .await;
        if response.is_ok_and(|r| r.status() == 200) {
            acknowledged += TRACES_PER_EXPORT * SPANS_PER_TRACE;
        }
    }
    acknowledged
}

/// Waits until `expected` distinct spans are stored; returns (distinct spans, rows after FINAL).
async fn stored(stack: &Stack, expected: u64, limit: Duration) -> (u64, u64) {
    let deadline = Instant::now() + limit;
    loop {
        let counts: (u64, u64) = stack
            .ch
            .client()
            .query("SELECT uniqExact(span_id), count() FROM events_full FINAL")
            .fetch_one()
            .await
            .unwrap_or((0, 0));
        if counts.0 >= expected || Instant::now() > deadline {
            return counts;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn fast_worker(stack: &mut Stack) {
    for (k, v) in [
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
        ("LANGFUSE_INGESTION_BATCH_MAX_ROWS", "200"),
        ("LANGFUSE_INGESTION_CLAIM_IDLE_SECONDS", "3"),
    ] {
        stack.env.insert(k.into(), v.into());
    }
}

async fn kill(app: &mut App) {
    app.child.start_kill().unwrap();
    app.child.wait().await.unwrap();
}

#[tokio::test]
async fn killing_the_worker_mid_stream_loses_nothing() {
    let mut stack = Stack::new().await;
    fast_worker(&mut stack);
    let mut web = App::spawn("web", &stack.env, free_port());
    web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    let worker_port = free_port();
    let mut worker = App::spawn("worker", &stack.env, worker_port);
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;

    let mut acknowledged = 0;
    for round in 0..4 {
        acknowledged += send(&web, 1, round * 30, 30).await;
        // SIGKILL: no flush, no acknowledgement; whatever it had read stays pending.
        kill(&mut worker).await;
        acknowledged += send(&web, 1, round * 30 + 1_000, 10).await;
        worker = App::spawn("worker", &stack.env, worker_port);
        worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
    }
    assert!(acknowledged > 0);
    let (distinct, after_final) = stored(&stack, acknowledged, Duration::from_secs(90)).await;
    assert_eq!(
        distinct,
        acknowledged,
        "acknowledged spans missing after worker kills\n{}",
        worker.log_tail()
    );
    assert_eq!(after_final, acknowledged, "a span is stored more than once after FINAL");
}

#[tokio::test]
async fn clickhouse_outage_keeps_acknowledging_and_drains_after() {
    let mut stack = Stack::new().await;
    fast_worker(&mut stack);
    let proxy = Proxy::start(&test_support::stack_var("CLICKHOUSE_URL")).await;
    let mut web = App::spawn("web", &stack.env, free_port());
    web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    let mut worker_env = stack.env.clone();
    worker_env.insert("CLICKHOUSE_URL".into(), proxy.url());
    let mut worker = App::spawn("worker", &worker_env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;

    proxy.set_down(true);
    let outage = Instant::now();
    let mut acknowledged = 0;
    let mut first = 0;
    // Keep sending for the whole outage: every export must still be acknowledged.
    while outage.elapsed() < Duration::from_secs(30) {
        let sent = send(&web, 2, first, 5).await;
        assert_eq!(
            sent,
            5 * TRACES_PER_EXPORT * SPANS_PER_TRACE,
            "ingestion stopped acknowledging during the outage"
        );
        acknowledged += sent;
        first += 5;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let during: u64 = stack.ch.client().query("SELECT count() FROM events_full").fetch_one().await.unwrap();
    assert_eq!(during, 0, "the worker wrote through a proxy that was down");
    proxy.set_down(false);
    let (distinct, after_final) = stored(&stack, acknowledged, Duration::from_secs(90)).await;
    assert_eq!(distinct, acknowledged, "backlog did not drain\n{}", worker.log_tail());
    assert_eq!(after_final, acknowledged);
}

#[tokio::test]
async fn a_blob_storage_outage_refuses_instead_of_acknowledging() {
    // Nothing is acknowledged that is not in blob storage: while S3 is unreachable web answers
    // 503 to every export, concurrent ones sharing a failed blob write included; after it
    // recovers, exactly the acknowledged spans are stored. (Every payload goes through blob
    // storage here; the next test is the payloads carried in their queue entries.)
    let mut stack = Stack::new().await;
    fast_worker(&mut stack);
    stack.env.insert("LANGFUSE_INGESTION_QUEUE_INLINE_MAX_BYTES".into(), "0".into());
    let proxy = Proxy::start(&test_support::stack_var("LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT")).await;
    let mut web_env = stack.env.clone();
    web_env.insert("LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT".into(), proxy.url());
    let mut web = App::spawn("web", &web_env, free_port());
    web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    let mut worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;

    let before = send(&web, 3, 0, 4).await;
    assert_eq!(before, 4 * TRACES_PER_EXPORT * SPANS_PER_TRACE);
    proxy.set_down(true);
    let during: Vec<u64> = futures::future::join_all((0..8).map(|i| send(&web, 3, 100 + i * 10, 2))).await;
    assert_eq!(during.iter().sum::<u64>(), 0, "acknowledged while blob storage was down: {during:?}");
    let status = |first: u64| {
        let url = format!("{}/api/public/otel/v1/traces", web.base_url);
        async move {
            http()
                .post(url)
                .header(
                    "Authorization",
                    format!("Basic {}", STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}"))),
                )
                .header("Content-Type", "application/x-protobuf")
                .body(test_support::otlp::export_bytes(3, first, 1, 1))
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(status(900).await, 503);
    proxy.set_down(false);
    // A store that accepts connections and never answers: clients hear 503 within the write
    // deadline instead of waiting out the S3 client's three minutes of retries.
    proxy.set_hung(true);
    let asked = Instant::now();
    assert_eq!(status(901).await, 503, "acknowledged while blob storage hung");
    assert!(
        asked.elapsed() < Duration::from_secs(20),
        "a hung blob store held a request {:?}",
        asked.elapsed()
    );
    proxy.set_hung(false);
    let after = send(&web, 3, 50, 4).await;
    assert_eq!(after, 4 * TRACES_PER_EXPORT * SPANS_PER_TRACE, "acceptance did not recover");
    let acknowledged = before + after;
    let (distinct, after_final) = stored(&stack, acknowledged, Duration::from_secs(60)).await;
    assert_eq!((distinct, after_final), (acknowledged, acknowledged), "{}", worker.log_tail());
}

#[tokio::test]
async fn payloads_carried_in_their_queue_entries_are_acknowledged_without_blob_storage() {
    // With S3 unreachable, an export small enough to travel in its Redis entry is acknowledged
    // and stored; a larger one, or one past the bound on the bytes entries carry, needs its blob
    // and hears 503. Once S3 is back, exactly the acknowledged spans are stored.
    let mut stack = Stack::new().await;
    fast_worker(&mut stack);
    let one_export = test_support::otlp::export_bytes(4, 0, TRACES_PER_EXPORT, SPANS_PER_TRACE).len();
    let big = test_support::otlp::export_bytes(4, 1000, 4 * TRACES_PER_EXPORT, SPANS_PER_TRACE);
    assert!(big.len() > 2 * one_export);
    let inline_max = (2 * one_export).to_string();
    let inline_total = (3 * one_export + one_export / 2).to_string();
    let proxy = Proxy::start(&test_support::stack_var("LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT")).await;
    let mut web_env = stack.env.clone();
    web_env.insert("LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT".into(), proxy.url());
    web_env.insert("LANGFUSE_INGESTION_QUEUE_INLINE_MAX_BYTES".into(), inline_max);
    web_env.insert("LANGFUSE_INGESTION_QUEUE_INLINE_TOTAL_BYTES".into(), inline_total);
    let mut web = App::spawn("web", &web_env, free_port());
    web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    let post = |body: Vec<u8>| {
        let url = format!("{}/api/public/otel/v1/traces", web.base_url);
        async move {
            let auth = format!("Basic {}", STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}")));
            let request = http().post(url).header("Authorization", auth);
            let request = request.header("Content-Type", "application/x-protobuf").body(body);
            request.send().await.unwrap().status().as_u16()
        }
    };

    proxy.set_down(true);
    // No worker yet: the entries stay queued, so the bound is reached after three exports.
    let carried = send(&web, 4, 0, 5).await;
    assert_eq!(carried, 3 * TRACES_PER_EXPORT * SPANS_PER_TRACE, "three fit the bound, two needed S3");
    assert_eq!(post(big.to_vec()).await, 503, "an export over the size went to the unreachable S3");
    proxy.set_down(false);
    assert_eq!(post(big.to_vec()).await, 200, "S3 is back for the large export");
    let big_spans = 4 * TRACES_PER_EXPORT * SPANS_PER_TRACE;

    let mut worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
    let acknowledged = carried + big_spans;
    let (distinct, after_final) = stored(&stack, acknowledged, Duration::from_secs(60)).await;
    assert_eq!((distinct, after_final), (acknowledged, acknowledged), "{}", worker.log_tail());
    // Processed, the entries no longer hold their payloads: with S3 down again, there is room
    // for the next ones.
    proxy.set_down(true);
    let deadline = Instant::now() + Duration::from_secs(30);
    while send(&web, 4, 100, 1).await == 0 {
        assert!(Instant::now() < deadline, "the bound was not released after the worker caught up");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let acknowledged = acknowledged + TRACES_PER_EXPORT * SPANS_PER_TRACE;
    let (distinct, _) = stored(&stack, acknowledged, Duration::from_secs(60)).await;
    assert_eq!(distinct, acknowledged, "{}", worker.log_tail());
}

/// A Redis of this test's own, so it can be killed without disturbing the others.
struct OwnRedis {
    port: u16,
    dir: std::path::PathBuf,
    process: Option<tokio::process::Child>,
}

impl OwnRedis {
    async fn start(port: u16, dir: std::path::PathBuf) -> Self {
        std::fs::create_dir_all(&dir).unwrap();
        let process = tokio::process::Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", ""])
            .args(["--appendonly", "yes", "--appendfsync", "always"])
            .arg("--dir")
            .arg(&dir)
            .stdout(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("redis-server is installed by the local stack");
        let deadline = Instant::now() + Duration::from_secs(10);
        while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
            assert!(Instant::now() < deadline, "redis did not start");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Self { port, dir, process: Some(process) }
    }

    /// SIGKILL: only what the append-only file holds survives.
    async fn crash(&mut self) {
        if let Some(mut process) = self.process.take() {
            process.start_kill().unwrap();
            process.wait().await.unwrap();
        }
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[tokio::test]
async fn redis_crash_with_append_only_file_loses_nothing() {
    let mut stack = Stack::new().await;
    fast_worker(&mut stack);
    let port = free_port();
    let dir = std::env::temp_dir().join(format!("loupe-redis-{port}"));
    let mut redis = OwnRedis::start(port, dir.clone()).await;
    stack.env.insert("REDIS_CONNECTION_STRING".into(), format!("redis://127.0.0.1:{port}"));
    let mut web = App::spawn("web", &stack.env, free_port());
    web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;

    // No worker yet: everything acknowledged now lives only in Redis (and blob storage).
    let acknowledged = send(&web, 3, 0, 20).await;
    assert_eq!(acknowledged, 20 * TRACES_PER_EXPORT * SPANS_PER_TRACE);
    redis.crash().await;
    let _restarted = OwnRedis::start(redis.port, dir).await;

    let worker = App::spawn("worker", &stack.env, free_port());
    let (distinct, after_final) = stored(&stack, acknowledged, Duration::from_secs(90)).await;
    assert_eq!(
        distinct,
        acknowledged,
        "spans acknowledged before the Redis crash were lost\n{}",
        worker.log_tail()
    );
    assert_eq!(after_final, acknowledged);
}
