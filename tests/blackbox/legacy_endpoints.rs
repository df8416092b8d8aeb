//! The legacy single-object writers and the batch endpoint's request-level errors.

use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, http};

async fn started(mode: &str) -> (Stack, App, App) {
    let mut stack = Stack::new().await;
    stack.env.insert("LANGFUSE_MIGRATION_V4_WRITE_MODE".into(), mode.into());
    stack.env.insert("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS".into(), "100".into());
    let mut web = App::spawn("web", &stack.env, free_port());
    web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    let mut worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
    (stack, web, worker)
}

async fn post(web: &App, path: &str, auth: &str, body: Value) -> (u16, Value) {
    let response = http()
        .post(format!("{}{path}", web.base_url))
        .header("Authorization", auth)
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn basic() -> String {
    format!("Basic {}", STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}")))
}

#[tokio::test]
async fn single_object_writers_store_what_they_acknowledge() {
    let (stack, web, _worker) = started("legacy").await;
    let (status, body) =
        post(&web, "/api/public/traces", &basic(), json!({"name": "single", "userId": "u-1"})).await;
    assert_eq!(status, 200, "{body}");
    let trace_id = body["id"].as_str().unwrap().to_owned();
    let (status, body) = post(
        &web,
        "/api/public/generations",
        &basic(),
        json!({"traceId": trace_id, "name": "gen", "model": "gpt-4o", "usage": {"input": 3, "output": 4}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) =
        post(&web, "/api/public/spans", &basic(), json!({"traceId": trace_id, "level": "LOUD"})).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["error"].as_str().unwrap().contains("level"), "{body}");
    let (status, body) = post(
        &web,
        "/api/public/scores",
        &basic(),
        json!({"traceId": trace_id, "name": "quality", "value": 0.5}),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mut stored = Vec::new();
        for sql in [
            "SELECT count() FROM traces FINAL WHERE id = ? AND user_id = 'u-1'",
            "SELECT count() FROM observations FINAL WHERE trace_id = ? AND type = 'GENERATION'",
            "SELECT count() FROM scores FINAL WHERE trace_id = ?",
        ] {
            stored.push(stack.ch.client().query(sql).bind(&trace_id).fetch_one::<u64>().await.unwrap());
        }
        if stored == [1, 1, 1] {
            break;
        }
        assert!(Instant::now() < deadline, "stored {stored:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn events_only_hides_single_writers_and_the_batch_refuses_bad_requests() {
    let (_stack, web, _worker) = started("events_only").await;
    let (status, _) = post(&web, "/api/public/traces", &basic(), json!({"name": "x"})).await;
    assert_eq!(status, 404);
    let (status, body) = post(&web, "/api/public/ingestion", &basic(), json!({"batch": "nope"})).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["message"], "Invalid request data");
    let (status, body) = post(&web, "/api/public/ingestion", &basic(), json!({"batch": []})).await;
    assert_eq!((status, body), (207, json!({"successes": [], "errors": []})));
    // Nesting past the JSON cap (docs/limits.md) refuses the request as a whole, saying why.
    let deep = format!(r#"{{"batch":{}{}}}"#, "[".repeat(100_000), "]".repeat(100_000));
    let response = http()
        .post(format!("{}/api/public/ingestion", web.base_url))
        .header("Authorization", basic())
        .header("Content-Type", "application/json")
        .body(deep)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let body: Value = response.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().contains("JSON nested deeper than 127 levels"), "{body}");
    // A public key alone may send scores, and nothing else.
    let bearer = format!("Bearer {PUBLIC_KEY}");
    let batch = json!({"batch": [
        {"id": "e1", "type": "score-create", "timestamp": "2026-11-21T10:00:00Z",
         "body": {"id": "s1", "traceId": "t1", "name": "q", "value": 1}},
        {"id": "e2", "type": "trace-create", "timestamp": "2026-11-21T10:00:00Z", "body": {"id": "t1"}}
    ]});
    let (status, body) = post(&web, "/api/public/ingestion", &bearer, batch).await;
    assert_eq!(status, 207, "{body}");
    assert_eq!(body["successes"][0]["id"], "e1", "{body}");
    assert_eq!(body["errors"][0]["id"], "e2", "{body}");
    assert!(matches!(body["errors"][0]["status"].as_u64(), Some(400 | 401)), "{body}");
}
