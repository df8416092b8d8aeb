//! `GET /metrics` on the router the binary serves, driven in-process against the real test stack:
//! requests are counted under the route template they matched (never their path), by method and
//! status, and acceptance is counted by payload kind. The recorder is global to this test process,
//! so every assertion is on the change between two scrapes.

#![allow(clippy::unwrap_used)]

use axum::Router;
use axum::body::Body;
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE};
use axum::http::{Method, Request, StatusCode};
use base64::Engine;
use http_body_util::BodyExt;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use domain::config::{Config, Role};
use test_support::prometheus::Samples;
use test_support::{TestClickHouse, TestPostgres, stack_env};

const PUBLIC_KEY: &str = "pk-lf-prometheus";
const SECRET_KEY: &str = "sk-lf-prometheus";

async fn router(extra: &[(&str, &str)]) -> (Router, TestPostgres, TestClickHouse) {
    service::install_crypto_provider();
    let (pg, ch) = (TestPostgres::create().await, TestClickHouse::create().await);
    let mut env = stack_env(&pg, &ch);
    for (name, value) in [
        ("LANGFUSE_INIT_ORG_ID", "org-prometheus"),
        ("LANGFUSE_INIT_PROJECT_ID", "project-prometheus"),
        ("LANGFUSE_INIT_PROJECT_PUBLIC_KEY", PUBLIC_KEY),
        ("LANGFUSE_INIT_PROJECT_SECRET_KEY", SECRET_KEY),
        ("SALT", "prometheus-salt"),
    ]
    .iter()
    .chain(extra)
    {
        env.insert((*name).into(), (*value).into());
    }
    let config = Config::from_env_vars(Role::Web, env).unwrap_or_else(|e| panic!("{:?}", e.problems));
    let state = web::AppState::build(config, &CancellationToken::new()).await.unwrap();
    (web::router(state), pg, ch)
}

async fn call(router: &Router, method: Method, path: &str, body: Option<&str>) -> (StatusCode, String) {
    let mut request = Request::builder().method(method).uri(path);
    if let Some(body) = body {
        let basic = base64::engine::general_purpose::STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}"));
        request =
            request.header(AUTHORIZATION, format!("Basic {basic}")).header(CONTENT_TYPE, "application/json");
        let request = request.body(Body::from(body.to_owned())).unwrap();
        return answer(router, request).await;
    }
    answer(router, request.body(Body::empty()).unwrap()).await
}

async fn answer(router: &Router, request: Request<Body>) -> (StatusCode, String) {
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

async fn scrape(router: &Router) -> Samples {
    let request = Request::builder().uri("/metrics").body(Body::empty()).unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let content_type = response.headers()[CONTENT_TYPE].to_str().unwrap().to_owned();
    assert!(content_type.starts_with("text/plain; version=0.0.4"), "{content_type}");
    let text = String::from_utf8(response.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    Samples::parse(&text)
}

/// How much a series grew between two scrapes.
fn delta(before: &Samples, after: &Samples, name: &str, labels: &[(&str, &str)]) -> f64 {
    after.value(name, labels) - before.value(name, labels)
}

#[tokio::test]
async fn requests_are_counted_by_route_template_method_and_status() {
    let (router, _pg, _ch) = router(&[]).await;
    let before = scrape(&router).await;

    for _ in 0..2 {
        let (status, _) = call(&router, Method::GET, "/api/public/traces/trace-id-in-a-path", None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    let (status, body) = call(&router, Method::GET, "/api/public/health", None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _) = call(&router, Method::GET, "/no/such/route-id-in-a-path", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // A score is stored; a trace is refused in the (default) events_only write mode: one payload
    // accepted, one event rejected inside a 207.
    let batch = r#"{"batch":[
        {"id":"e1","type":"score-create","timestamp":"2026-01-01T00:00:00.000Z","body":{"id":"s1","traceId":"t1","name":"quality","value":1}},
        {"id":"e2","type":"trace-create","timestamp":"2026-01-01T00:00:00.000Z","body":{"id":"t1","name":"n"}}]}"#;
    let (status, body) = call(&router, Method::POST, "/api/public/ingestion", Some(batch)).await;
    assert_eq!(status, StatusCode::MULTI_STATUS, "{body}");

    let after = scrape(&router).await;
    let requests = "loupe_http_requests_total";
    let trace = [("route", "/api/public/traces/{traceId}"), ("method", "GET"), ("status", "401")];
    assert_eq!(delta(&before, &after, requests, &trace), 2.0);
    let health = [("route", "/api/public/health"), ("method", "GET"), ("status", "200")];
    assert_eq!(delta(&before, &after, requests, &health), 1.0);
    let unmatched = [("route", "unmatched"), ("method", "GET"), ("status", "404")];
    assert_eq!(delta(&before, &after, requests, &unmatched), 1.0);
    let ingestion = [("route", "/api/public/ingestion"), ("method", "POST"), ("status", "207")];
    assert_eq!(delta(&before, &after, requests, &ingestion), 1.0);
    let timed = [("route", "/api/public/traces/{traceId}"), ("method", "GET")];
    assert_eq!(delta(&before, &after, "loupe_http_request_duration_seconds_count", &timed), 2.0);
    let kind = [("kind", "ingestion_batch")];
    assert_eq!(delta(&before, &after, "loupe_ingestion_accepted_payloads_total", &kind), 1.0);
    assert!(delta(&before, &after, "loupe_ingestion_accepted_bytes_total", &kind) > 0.0);
    let rejected = [("kind", "batch_event")];
    assert_eq!(delta(&before, &after, "loupe_ingestion_rejected_events_total", &rejected), 1.0);

    // Paths never become labels, and the scrape does not count itself.
    for (name, labels, _) in after.iter() {
        let shown = format!("{name} {labels:?}");
        assert!(!shown.contains("id-in-a-path"), "a raw path became a label: {shown}");
        assert_ne!(labels.get("route").map(String::as_str), Some("/metrics"), "{shown}");
    }
}

#[tokio::test]
async fn metrics_can_be_turned_off() {
    let (router, _pg, _ch) = router(&[("LANGFUSE_METRICS_ENABLED", "false")]).await;
    let (status, body) = call(&router, Method::GET, "/metrics", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(body.contains("No such endpoint"), "{body}");
}
