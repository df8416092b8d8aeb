//! OTLP ingestion through the running binaries: every recorded client's spans land in
//! `events_full`, over HTTP (as recorded, and gzipped) and over gRPC, field by field as the span
//! mapping makes them (`ingest_rows`).

use std::io::Write;
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use futures::StreamExt;
use serde_json::Value;

use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, http};
use crate::fixtures::{self, Recorded};
use crate::ingest_rows;

const OTLP_PATH: &str = "/api/public/otel/v1/traces";

fn basic() -> String {
    format!("Basic {}", STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}")))
}

struct Running {
    stack: Stack,
    web: App,
    worker: App,
}

impl Running {
    async fn drained(&self) {
        self.worker.drained().await;
    }
}

async fn running(extra: &[(&str, &str)]) -> Running {
    let mut stack = Stack::new().await;
    for (k, v) in extra {
        stack.env.insert((*k).into(), (*v).into());
    }
    stack.env.insert("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS".into(), "100".into());
    let mut web = App::spawn("web", &stack.env, free_port());
    web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    let mut worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
    Running { stack, web, worker }
}

async fn post(app: &App, request: &Recorded, gzip: bool) -> (u16, String) {
    let mut builder = http()
        .post(format!("{}{}", app.base_url, request.path))
        .header("Authorization", basic())
        .header("Content-Type", &request.content_type);
    for (name, value) in &request.headers {
        if !name.eq_ignore_ascii_case("content-type") {
            builder = builder.header(name, value);
        }
    }
    let body = if gzip {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(&request.body).unwrap();
        builder = builder.header("Content-Encoding", "gzip");
        encoder.finish().unwrap()
    } else {
        request.body.clone()
    };
    let response = builder.body(body).send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// Distinct spans stored, polled until `expected` or the deadline.
async fn wait_for_spans(stack: &Stack, expected: u64) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let stored: u64 =
            stack.ch.client().query("SELECT count() FROM events_full FINAL").fetch_one().await.unwrap_or(0);
        if stored >= expected || Instant::now() > deadline {
            return stored;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn otlp_requests() -> Vec<(String, Recorded)> {
    fixtures::all()
        .into_iter()
        .flat_map(|name| fixtures::requests(&name).into_iter().map(move |r| (name.clone(), r)))
        .filter(|(_, r)| r.path == OTLP_PATH)
        .collect()
}

#[tokio::test]
async fn every_recorded_client_lands_in_events_full() {
    let app = running(&[]).await;
    let requests = otlp_requests();
    assert!(requests.len() >= 10, "expected the OTLP fixtures, found {}", requests.len());
    let mut expected = 0u64;
    for (i, (name, request)) in requests.iter().enumerate() {
        // Every other request gzipped: both paths of every client shape get exercised.
        let (status, body) = post(&app.web, request, i % 2 == 1).await;
        assert_eq!(status, 200, "{name}: {body}");
        assert_eq!(body, "{}", "{name}");
        expected += request.spans as u64;
    }
    assert_eq!(wait_for_spans(&app.stack, expected).await, expected);

    // Replaying everything once more changes nothing visible: same rows after FINAL.
    for (name, request) in &requests {
        assert_eq!(post(&app.web, request, false).await.0, 200, "{name}");
    }
    app.drained().await;
    assert_eq!(wait_for_spans(&app.stack, expected).await, expected);

    // Field by field, every span is what the span mapping makes of its request.
    let stored = ingest_rows::stored_rows(&app.stack).await;
    for (name, request) in &requests {
        ingest_rows::assert_stored(name, &ingest_rows::expected_rows(request), &stored);
    }
    let generation = stored.values().find(|row| row["name"] == "llm-call" && row["type"] == "GENERATION");
    assert_eq!(generation.expect("the Python SDK's generation")["user_id"], "user-123");
}

#[tokio::test]
async fn grpc_export_stores_the_same_rows() {
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_proto::tonic::collector::trace::v1::trace_service_client::TraceServiceClient;
    use prost::Message;

    let app = running(&[]).await;
    let grpc_port = &app.stack.env["LANGFUSE_OTEL_GRPC_PORT"];
    let recorded = fixtures::requests("py-langfuse-5.0.4-nocompression")
        .into_iter()
        .find(|r| r.path == OTLP_PATH)
        .unwrap();
    let export = ExportTraceServiceRequest::decode(recorded.body.as_slice()).unwrap();
    let mut client = TraceServiceClient::connect(format!("http://127.0.0.1:{grpc_port}")).await.unwrap();

    let unauthenticated = client.export(export.clone()).await.unwrap_err();
    assert_eq!(unauthenticated.code(), tonic::Code::Unauthenticated);

    let mut request = tonic::Request::new(export);
    request.metadata_mut().insert("authorization", basic().parse().unwrap());
    request.metadata_mut().insert("x-langfuse-ingestion-version", "4".parse().unwrap());
    client.export(request).await.unwrap();
    let expected = recorded.spans as u64;
    assert_eq!(wait_for_spans(&app.stack, expected).await, expected);
    // The same rows as over HTTP: field by field what the span mapping makes of the export.
    let stored = ingest_rows::stored_rows(&app.stack).await;
    ingest_rows::assert_stored("gRPC", &ingest_rows::expected_rows(&recorded), &stored);
}

#[tokio::test]
async fn bad_requests_get_clear_errors_and_only_valid_spans_are_stored() {
    let app = running(&[("LANGFUSE_INGESTION_MAX_BODY_BYTES", "4096")]).await;
    let url = format!("{}{OTLP_PATH}", app.web.base_url);
    let send = |content_type: &'static str, body: Vec<u8>, extra: Option<(&'static str, &'static str)>| {
        let mut builder =
            http().post(&url).header("Authorization", basic()).header("Content-Type", content_type);
        if let Some((k, v)) = extra {
            builder = builder.header(k, v);
        }
        async move {
            let response = builder.body(body).send().await.unwrap();
            let status = response.status().as_u16();
            (status, response.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    let (status, body) = send("text/plain", b"hello".to_vec(), None).await;
    assert_eq!(status, 415, "{body}");
    let (status, body) = send("application/x-protobuf", vec![0xff; 64], None).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("protobuf"), "{body}");
    let (status, body) = send("application/json", b"{\"resourceSpans\": 5}".to_vec(), None).await;
    assert_eq!(status, 400, "{body}");
    // Nesting past the JSON cap (docs/limits.md) is a 400 that says so.
    let deep = format!(r#"{{"resourceSpans":{}{}}}"#, "[".repeat(1_000), "]".repeat(1_000));
    let (status, body) = send("application/json", deep.into_bytes(), None).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("JSON nested deeper than 127 levels"), "{body}");
    let (status, body) = send("application/json", vec![b' '; 10_000], None).await;
    assert_eq!(status, 413, "{body}");
    let (status, body) =
        send("application/json", b"{}".to_vec(), Some(("x-langfuse-ingestion-version", "5"))).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("Maximum supported"), "{body}");
    let response =
        http().post(&url).header("Content-Type", "application/json").body("{}").send().await.unwrap();
    assert_eq!(response.status(), 401);
    // Spans with invalid ids are dropped one by one (OTLP partial success); the rest is kept.
    let span = |trace: &str, name: &str| {
        format!(
            r#"{{"traceId":"{trace}","spanId":"0102030405060708","name":"{name}","startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000100000000"}}"#
        )
    };
    let mixed = format!(
        r#"{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{},{}]}}]}}]}}"#,
        span("0102030405060708090a0b0c0d0e0f10", "kept"),
        span("00000000000000000000000000000000", "dropped")
    );
    let (status, body) = send("application/json", mixed.into_bytes(), None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["partialSuccess"]["rejectedSpans"], "1", "{body}");
    assert!(body["partialSuccess"]["errorMessage"].as_str().unwrap().contains("dropped"), "{body}");
    let all_bad = format!(
        r#"{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{}]}}]}}]}}"#,
        span("00000000000000000000000000000000", "x")
    );
    let (status, body) = send("application/json", all_bad.into_bytes(), None).await;
    assert_eq!(status, 400, "{body}");
    // An empty export is fine and stores nothing.
    let (status, _) = send("application/json", b"{\"resourceSpans\": []}".to_vec(), None).await;
    assert_eq!(status, 200);
    app.drained().await;
    let leaked: Vec<(String, String, String)> = app
        .stack
        .ch
        .client()
        .query("SELECT project_id, ingestion_sdk_name, blob_storage_file_path FROM events_full LIMIT 3")
        .fetch_all()
        .await
        .unwrap();
    // Payloads this small travel in their queue entries: no blob path, but this test's project.
    assert!(
        leaked.iter().all(|(project, _, path)| project == "project-blackbox" && path.is_empty()),
        "database {} holds rows it never received: {leaked:?}",
        app.stack.ch.database
    );
    let stored = wait_for_spans(&app.stack, 1).await;
    assert_eq!(stored, 1, "only the valid span of the partial export is stored");
}

#[tokio::test]
async fn a_full_backlog_answers_503_with_retry_after_and_recovers() {
    // No worker: the backlog only grows. Depth 2 is reached after two accepted exports.
    let mut stack = Stack::new().await;
    stack.env.insert("LANGFUSE_INGESTION_QUEUE_MAX_DEPTH".into(), "2".into());
    let mut web = App::spawn("web", &stack.env, free_port());
    web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    let send = |i: u64| {
        let url = format!("{}{OTLP_PATH}", web.base_url);
        async move {
            http()
                .post(url)
                .header("Authorization", basic())
                .header("Content-Type", "application/x-protobuf")
                .body(test_support::otlp::export_bytes(9, i * 10, 2, 2))
                .send()
                .await
                .unwrap()
        }
    };
    assert_eq!(send(0).await.status(), 200);
    assert_eq!(send(1).await.status(), 200);
    // The backlog reading refreshes in the background; wait for the refusal with a deadline.
    let deadline = Instant::now() + Duration::from_secs(10);
    let refused = loop {
        let response = send(2).await;
        if response.status() == 503 {
            break response;
        }
        assert!(Instant::now() < deadline, "never refused with a full backlog");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(refused.headers().get("retry-after").is_some());
    let body: Value = refused.json().await.unwrap();
    assert!(body["message"].as_str().unwrap().contains("backlog"), "{body}");

    // A worker drains the backlog and acceptance resumes.
    let mut worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while send(3).await.status() != 200 {
        assert!(Instant::now() < deadline, "acceptance did not resume after the backlog drained");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn concurrent_exports_share_blobs_and_every_span_lands_once() {
    // 64 requests in flight against one web: those arriving while earlier blobs are written are
    // stored together, each stream entry naming its byte range of the shared blob.
    const EXPORTS: u64 = 192;
    const TRACES: u64 = 2;
    const SPANS: u64 = 2;
    let app = running(&[("LANGFUSE_INGESTION_QUEUE_INLINE_MAX_BYTES", "0")]).await;
    let url = format!("{}{OTLP_PATH}", app.web.base_url);
    let statuses: Vec<u16> = futures::stream::iter(0..EXPORTS)
        .map(|i| {
            let url = url.clone();
            async move {
                let body = test_support::otlp::export_bytes(31, i * TRACES, TRACES, SPANS);
                let response = http()
                    .post(url)
                    .header("Authorization", basic())
                    .header("Content-Type", "application/x-protobuf")
                    .body(body)
                    .send()
                    .await
                    .unwrap();
                response.status().as_u16()
            }
        })
        .buffer_unordered(64)
        .collect()
        .await;
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    let expected = EXPORTS * TRACES * SPANS;
    assert_eq!(wait_for_spans(&app.stack, expected).await, expected);
    app.drained().await;
    let (spans, traces, blobs): (u64, u64, u64) = app
        .stack
        .ch
        .client()
        .query("SELECT uniqExact(span_id), uniqExact(trace_id), uniqExact(blob_storage_file_path) FROM events_full")
        .fetch_one()
        .await
        .unwrap();
    assert_eq!((spans, traces), (expected, EXPORTS * TRACES), "every span once, none lost or mixed up");
    assert!(blobs < EXPORTS, "{EXPORTS} exports in flight together were stored as {blobs} blobs");
}

#[tokio::test]
async fn tool_definitions_and_calls_are_stored_in_both_data_models() {
    // dual + ingestion version 4: the span goes to `events_full` directly and to `observations`.
    let app = running(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual")]).await;
    let input = serde_json::json!({
        "messages": [{"role": "user", "content": "Weather in Oslo?"}],
        "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Current weather",
                   "parameters": {"type": "object"}}}]
    });
    let output = serde_json::json!({"role": "assistant", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}
    ]});
    let attribute = |key: &str, value: &Value| serde_json::json!({"key": key, "value": {"stringValue": value.to_string()}});
    let export = serde_json::json!({"resourceSpans": [{"scopeSpans": [{"spans": [{
        "traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "chat",
        "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000000100000000",
        "attributes": [
            {"key": "langfuse.observation.type", "value": {"stringValue": "generation"}},
            attribute("langfuse.observation.input", &input),
            attribute("langfuse.observation.output", &output)
        ]
    }]}]}]});
    let response = http()
        .post(format!("{}{OTLP_PATH}", app.web.base_url))
        .header("Authorization", basic())
        .header("Content-Type", "application/json")
        .header("x-langfuse-ingestion-version", "4")
        .body(export.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(wait_for_spans(&app.stack, 1).await, 1);
    app.drained().await;
    type ToolColumns = (u64, String, String, String, String);
    for table in ["events_full", "observations"] {
        let (definition_count, name, definition, call, names): ToolColumns = app
            .stack
            .ch
            .client()
            .query(&format!(
                "SELECT length(tool_definitions), mapKeys(tool_definitions)[1], mapValues(tool_definitions)[1], \
                 tool_calls[1], arrayStringConcat(tool_call_names, ',') FROM {table} FINAL"
            ))
            .fetch_one()
            .await
            .unwrap_or_else(|e| panic!("{table}: {e}"));
        assert_eq!((definition_count, name.as_str()), (1, "get_weather"), "{table}");
        let definition: Value = serde_json::from_str(&definition).unwrap();
        assert_eq!(
            definition,
            serde_json::json!({"description": "Current weather", "parameters": "{\"type\":\"object\"}"})
        );
        assert_eq!(names, "get_weather", "{table}");
        let call: Value = serde_json::from_str(&call).unwrap();
        assert_eq!(
            call,
            serde_json::json!({"id": "call_1", "arguments": "{\"city\":\"Oslo\"}", "type": "function", "index": 0}),
            "{table}"
        );
    }
}
