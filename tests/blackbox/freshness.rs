//! No timer stands between an acknowledged payload and its visibility: with the longest collecting
//! time set to ten minutes, a span and a score are readable through every read API long before,
//! because the worker inserts as soon as the queue is drained. The second span arrives after the
//! first was stored, when the project's stream has left the active set: it must wake the idle
//! worker's blocked read. (How fast is measured by `just bench freshness`, not asserted here.)
//!
//! What sets the speed on an engine that runs one statement at a time is counted instead: each
//! span's flush reads what it merges onto in one statement (not one per table), and the v1 trace
//! costs web three statements (trace, then its observations with latency and cost beside its
//! scores), a score by id one.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::api::basic;
use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, http};
use crate::prometheus::scrape;

#[tokio::test]
async fn spans_and_scores_are_readable_without_waiting_for_a_timer() {
    let mut stack = Stack::new().await;
    for (k, v) in
        [("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "600000"), ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual")]
    {
        stack.env.insert(k.into(), v.into());
    }
    let mut web = App::spawn("web", &stack.env, free_port());
    web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    let mut worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
    let key = basic(PUBLIC_KEY, SECRET_KEY);
    let run = std::process::id().into();

    for n in 0..2 {
        let export = test_support::otlp::export(run, n, 1, 1);
        let trace: String = export.resource_spans[0].scope_spans[0].spans[0]
            .trace_id
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let sent = http()
            .post(format!("{}/api/public/otel/v1/traces", web.base_url))
            .header("Authorization", &key)
            .header("Content-Type", "application/x-protobuf")
            .body(prost::Message::encode_to_vec(&export))
            .send()
            .await
            .unwrap();
        assert!(sent.status().is_success(), "{}", sent.status());
        let score = format!("fresh-{n}");
        let batch = json!({"batch": [{
            "id": format!("event-{score}"), "type": "score-create", "timestamp": "2026-11-25T10:00:00.000Z",
            "body": {"id": score, "traceId": trace, "name": "fresh", "value": 1.0}
        }]});
        let scored = http()
            .post(format!("{}/api/public/ingestion", web.base_url))
            .header("Authorization", &key)
            .json(&batch)
            .send()
            .await
            .unwrap();
        assert_eq!(scored.status().as_u16(), 207);

        let base = &web.base_url;
        for url in [
            format!("{base}/api/public/v2/observations?traceId={trace}"),
            format!("{base}/api/public/v3/scores?traceId={trace}"),
            format!("{base}/api/public/traces/{trace}"),
            format!("{base}/api/public/v2/scores/{score}"),
        ] {
            visible(&url, &key, &worker).await;
        }

        // One merge read per span flush; the score's own flush (if it had one) merges nothing.
        let merge_reads = scrape(&worker).await.value("loupe_ingestion_merge_reads_total", &[]);
        assert_eq!(merge_reads, (n + 1) as f64, "one merge read per flush for traces and observations");
        for (url, statements) in [
            (format!("{base}/api/public/traces/{trace}"), 3.0),
            (format!("{base}/api/public/v2/scores/{score}"), 1.0),
        ] {
            let before = reads(&web).await;
            let response = http().get(&url).header("Authorization", &key).send().await.unwrap();
            assert_eq!(response.status(), 200, "{url}");
            assert_eq!(reads(&web).await - before, statements, "statements sent for {url}");
        }
    }
}

/// ClickHouse reads web has sent so far.
async fn reads(web: &App) -> f64 {
    scrape(web).await.value("loupe_clickhouse_statements_total", &[("work", "read")])
}

/// Polls a read until it shows something, for at most 30 s (far below the collecting time).
async fn visible(url: &str, key: &str, worker: &App) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let response = http().get(url).header("Authorization", key).send().await.unwrap();
        if response.status().is_success() {
            let body: Value = response.json().await.unwrap();
            if body.get("data").and_then(Value::as_array).is_none_or(|rows| !rows.is_empty()) {
                return;
            }
        }
        assert!(Instant::now() < deadline, "{url} shows nothing after 30 s\n{}", worker.log_tail());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
