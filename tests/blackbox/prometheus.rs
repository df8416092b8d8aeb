//! `GET /metrics` of the running binaries (docs/metrics.md): web counts HTTP and gRPC calls under
//! their route templates and what it accepted; the worker samples the backlog and the migration
//! jobs at scrape time, and answers in bounded time when Redis does not.

use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_client::TraceServiceClient;
use test_support::prometheus::Samples;

use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, http};

const GRPC_ROUTE: &str = "grpc:/opentelemetry.proto.collector.trace.v1.TraceService/Export";

pub(crate) async fn scrape(app: &App) -> Samples {
    let response = http().get(format!("{}/metrics", app.base_url)).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(content_type.starts_with("text/plain; version=0.0.4"), "{content_type}");
    Samples::parse(&response.text().await.unwrap())
}

#[tokio::test]
async fn web_and_worker_serve_their_metrics() {
    let mut stack = Stack::new().await;
    stack.env.insert("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS".into(), "100".into());
    let mut web = App::spawn("web", &stack.env, free_port());
    web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    let mut worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;

    // OTLP over gRPC: refused without credentials, then accepted.
    let grpc_port = &stack.env["LANGFUSE_OTEL_GRPC_PORT"];
    let mut client = TraceServiceClient::connect(format!("http://127.0.0.1:{grpc_port}")).await.unwrap();
    let export = test_support::otlp::export(7, 0, 2, 3);
    let refused = client.export(export.clone()).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unauthenticated);
    let mut request = tonic::Request::new(export);
    let basic = format!("Basic {}", STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}")));
    request.metadata_mut().insert("authorization", basic.parse().unwrap());
    client.export(request).await.unwrap();
    // And an HTTP read without credentials, whose path holds an id.
    let response =
        http().get(format!("{}/api/public/traces/some-trace-id", web.base_url)).send().await.unwrap();
    assert_eq!(response.status(), 401);

    let samples = scrape(&web).await;
    let requests = "loupe_http_requests_total";
    let grpc = |status| [("route", GRPC_ROUTE), ("method", "POST"), ("status", status)];
    assert_eq!(samples.get(requests, &grpc("OK")), Some(1.0));
    assert_eq!(samples.get(requests, &grpc("Unauthenticated")), Some(1.0));
    let read = [("route", "/api/public/traces/{traceId}"), ("method", "GET"), ("status", "401")];
    assert_eq!(samples.get(requests, &read), Some(1.0));
    let health = [("route", "/api/public/health"), ("method", "GET"), ("status", "200")];
    assert!(samples.value(requests, &health) >= 1.0, "the readiness polls are counted");
    let accepted = [("kind", "otlp_traces")];
    assert_eq!(samples.get("loupe_ingestion_accepted_payloads_total", &accepted), Some(1.0));

    // The worker: the backlog read at scrape time, down to 0 once the export is written.
    worker.drained().await;
    let samples = scrape(&worker).await;
    assert_eq!(samples.get("loupe_ingestion_queue_depth", &[]), Some(0.0));
    assert_eq!(samples.get("loupe_ingestion_queue_lag_seconds", &[]), Some(0.0));
    assert_eq!(samples.get("loupe_ingestion_dead_letters_open", &[]), Some(0.0));
    assert_eq!(
        samples.get("loupe_ingestion_flushed_entries_total", &[]),
        Some(1.0),
        "the export's one entry"
    );
    assert_eq!(samples.get("loupe_ingestion_flush_seconds_count", &[("outcome", "ok")]), Some(1.0));
    assert_eq!(samples.get("loupe_propagation_enabled", &[]), Some(1.0), "events_only still drains staging");
    assert_eq!(samples.get("loupe_propagation_pending_partitions", &[]), Some(0.0));
    assert_eq!(samples.get("loupe_propagation_stuck", &[]), Some(0.0));
    let steps = samples.series("loupe_backfill_step_status");
    assert!(!steps.is_empty(), "the backfill steps are exported");
    let step_names: std::collections::BTreeSet<_> = steps.iter().map(|(labels, _)| &labels["step"]).collect();
    for step in step_names {
        let current: f64 = steps.iter().filter(|(l, _)| &l["step"] == step).map(|(_, v)| v).sum();
        assert_eq!(current, 1.0, "step {step} has exactly one current status");
    }
}

/// A Redis that accepts connections and never answers must not hang a scrape: the backlog is then
/// reported as unknown (`NaN`), within the scrape's read limit.
#[tokio::test]
async fn a_silent_redis_makes_the_backlog_unknown_without_hanging_the_scrape() {
    let mut stack = Stack::new().await;
    // The kernel completes connections into the listen backlog; nothing ever reads or answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = silent.local_addr().unwrap();
    stack.env.insert("REDIS_CONNECTION_STRING".into(), format!("redis://{address}"));
    let mut worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/live", Duration::from_secs(60)).await;

    let started = Instant::now();
    let samples = tokio::time::timeout(Duration::from_secs(10), scrape(&worker))
        .await
        .unwrap_or_else(|_| panic!("the scrape hung:\n{}", worker.log_tail()));
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "the scrape took {took:?}");
    let depth = samples.get("loupe_ingestion_queue_depth", &[]).unwrap();
    assert!(depth.is_nan(), "depth {depth}");
    assert_eq!(samples.get("loupe_propagation_stuck", &[]), Some(0.0), "PostgreSQL still answers");
    drop(silent);
}
