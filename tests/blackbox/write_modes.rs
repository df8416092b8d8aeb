//! Every recorded client replayed in each write mode: the data lands in the tables that mode
//! writes, and nowhere else (spec/v4-migration-spec.md §3.1, DESIGN.md §5).

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, http};
use crate::fixtures::{self, Recorded};

struct Replayed {
    stack: Stack,
    /// (fixture, path, status, response body) of every request.
    answers: Vec<(String, String, u16, Value)>,
}

async fn replay_all(mode: &str) -> Replayed {
    let mut stack = Stack::new().await;
    stack.env.insert("LANGFUSE_MIGRATION_V4_WRITE_MODE".into(), mode.into());
    stack.env.insert("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS".into(), "100".into());
    if mode == "dual" {
        stack.env.insert("LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR".into(), "dual_write".into());
    }
    let mut web = App::spawn("web", &stack.env, free_port());
    web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    let mut worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
    let auth = format!("Basic {}", STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}")));
    let mut answers = Vec::new();
    for name in fixtures::all() {
        for Recorded { path, content_type, headers, body, .. } in fixtures::requests(&name) {
            let mut request = http()
                .post(format!("{}{path}", web.base_url))
                .header("Authorization", &auth)
                .header("Content-Type", &content_type);
            for (k, v) in headers.iter().filter(|(k, _)| !k.eq_ignore_ascii_case("content-type")) {
                request = request.header(k, v);
            }
            let response = request.body(body).send().await.unwrap();
            let status = response.status().as_u16();
            answers.push((name.clone(), path, status, response.json().await.unwrap_or(Value::Null)));
        }
    }
    // Done when the worker reports an empty backlog: entries leave the stream once written.
    worker.drained().await;
    Replayed { stack, answers }
}

async fn count(stack: &Stack, sql: &str) -> u64 {
    stack.ch.client().query(sql).fetch_one().await.unwrap()
}

fn assert_statuses(replayed: &Replayed, expect: impl Fn(&str) -> u16) {
    for (name, path, status, body) in &replayed.answers {
        assert_eq!(*status, expect(path), "{name} {path}: {body}");
    }
}

#[tokio::test]
async fn legacy_mode_writes_only_the_v3_tables() {
    let r = replay_all("legacy").await;
    assert_statuses(&r, |path| match path {
        "/api/public/ingestion" => 207,
        "/api/public/scores" => 202,
        _ => 200,
    });
    for (name, path, _, body) in &r.answers {
        if path == "/api/public/ingestion" {
            assert_eq!(body["errors"], Value::Array(vec![]), "{name}: {body}");
        }
    }
    assert_eq!(count(&r.stack, "SELECT count() FROM events_full").await, 0);
    assert_eq!(count(&r.stack, "SELECT count() FROM observations_batch_staging").await, 0);
    let traces = count(&r.stack, "SELECT count() FROM traces FINAL WHERE name = 'capture-trace'").await;
    assert_eq!(traces, fixtures::all().len() as u64, "one capture-trace per client");
    let with_user = count(
        &r.stack,
        "SELECT count() FROM traces FINAL WHERE name = 'capture-trace' AND user_id = 'user-123'",
    )
    .await;
    assert_eq!(with_user, traces, "every client's trace has its user");
    let generations =
        count(&r.stack, "SELECT count() FROM observations FINAL WHERE type = 'GENERATION'").await;
    assert!(generations >= fixtures::all().len() as u64, "{generations} generations");
    let orphans = count(
        &r.stack,
        "SELECT count() FROM observations FINAL WHERE trace_id NOT IN (SELECT id FROM traces)",
    )
    .await;
    assert_eq!(orphans, 0, "every observation's trace exists");
    assert!(count(&r.stack, "SELECT count() FROM scores FINAL").await > 0);

    // The clients seen are recorded for cutover readiness.
    let pool = r.stack.pg.pool().await;
    let seen: Vec<(String, String)> =
        sqlx::query_as("SELECT sdk_name, sdk_version FROM sdk_usage ORDER BY 1, 2")
            .fetch_all(&pool)
            .await
            .unwrap();
    for expected in
        [("python", "2.60.10"), ("python", "5.0.4"), ("langfuse-js", "3.39.2"), ("unknown", "unknown")]
    {
        assert!(
            seen.iter().any(|(n, v)| (n.as_str(), v.as_str()) == expected),
            "{expected:?} not recorded in sdk_usage: {seen:?}"
        );
    }
}

#[tokio::test]
async fn dual_mode_writes_v3_tables_and_events_directly_or_through_staging() {
    let r = replay_all("dual").await;
    let traces = count(&r.stack, "SELECT count() FROM traces FINAL WHERE name = 'capture-trace'").await;
    assert_eq!(traces, fixtures::all().len() as u64);
    // Compatible producers (Python ≥ 4.7, JS ≥ 5.4) are written to events_full at once…
    let producers: Vec<(String, String)> = r
        .stack
        .ch
        .client()
        .query("SELECT DISTINCT ingestion_sdk_name, ingestion_sdk_version FROM events_full")
        .fetch_all()
        .await
        .unwrap();
    assert!(!producers.is_empty(), "no direct writes at all");
    for (name, version) in &producers {
        let sdk = domain::sdk::SdkInfo {
            name: Some(name.clone()),
            version: Some(version.clone()),
            ingestion_version: None,
        };
        assert!(
            sdk.propagates_trace_attributes(),
            "{name} {version} was written directly but is not compatible"
        );
    }
    // …the others are staged for propagation, with their traces as `t-` roots.
    let staged_roots =
        count(&r.stack, "SELECT count() FROM observations_batch_staging FINAL WHERE startsWith(id, 't-')")
            .await;
    assert!(staged_roots > 0);
    let staged_direct = count(
        &r.stack,
        "SELECT count() FROM observations_batch_staging FINAL WHERE trace_id IN (SELECT trace_id FROM events_full)",
    )
    .await;
    assert_eq!(staged_direct, 0, "direct producers must not also be staged");
    assert!(count(&r.stack, "SELECT count() FROM scores FINAL").await > 0);
}

#[tokio::test]
async fn events_only_mode_writes_events_and_refuses_legacy_tracing() {
    let r = replay_all("events_only").await;
    for (name, path, status, body) in &r.answers {
        match path.as_str() {
            "/api/public/ingestion" => {
                assert_eq!(*status, 207, "{name}");
                for error in body["errors"].as_array().unwrap() {
                    assert_eq!(error["status"], 400, "{name}: {error}");
                    assert_eq!(error["message"], "Event type not accepted", "{name}: {error}");
                }
            }
            _ => assert!(*status < 300, "{name} {path}: {status} {body}"),
        }
    }
    let batch_only_clients = r
        .answers
        .iter()
        .filter(|(name, path, _, body)| {
            path == "/api/public/ingestion"
                && name.contains("2.60")
                && !body["errors"].as_array().unwrap().is_empty()
        })
        .count();
    assert!(batch_only_clients > 0, "python 2.x tracing must be refused in events_only");
    assert_eq!(count(&r.stack, "SELECT count() FROM traces").await, 0);
    assert_eq!(count(&r.stack, "SELECT count() FROM observations").await, 0);
    let otel_spans: u64 = fixtures::all()
        .iter()
        .flat_map(|n| fixtures::requests(n))
        .filter(|q| q.path == "/api/public/otel/v1/traces")
        .map(|q| q.spans as u64)
        .sum();
    assert_eq!(count(&r.stack, "SELECT count() FROM events_full FINAL").await, otel_spans);
    assert!(count(&r.stack, "SELECT count() FROM scores FINAL").await > 0);
}
