//! One test per hostile input, each on its own deployment.

use std::io::Write;
use std::time::{Duration, Instant};

use flate2::Compression;
use flate2::write::GzEncoder;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue};
use prost::Message;
use serde_json::{Value, json};

use super::Deployment;
use crate::apps::{ADMIN_KEY, http};

fn spans_of(export: &opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest) -> u64 {
    export.resource_spans.iter().flat_map(|r| &r.scope_spans).map(|s| s.spans.len() as u64).sum()
}

/// Spans one per month over 101 months: ClickHouse refuses an insert over 100 partitions, so the
/// worker must split it; the export lands whole and nothing behind it stalls.
#[tokio::test]
async fn spans_over_a_hundred_and_one_months() {
    let mut d = Deployment::start(&[]).await;
    let mut export = test_support::otlp::export(0x101, 0, 101, 1);
    let month_ns: u64 = 31 * 24 * 3600 * 1_000_000_000;
    let spans = export.resource_spans.iter_mut().flat_map(|r| &mut r.scope_spans).flat_map(|s| &mut s.spans);
    for (index, span) in spans.enumerate() {
        let start = 1_000_000_000_000_000_000 + index as u64 * month_ns;
        (span.start_time_unix_nano, span.end_time_unix_nano) = (start, start + 1_000_000);
    }
    let count = spans_of(&export);
    let (status, body) = d.post_otlp(export.encode_to_vec(), &[], count).await;
    assert_eq!(status, 200, "{body}");
    d.survives().await;
}

/// An attribute key of 100,000 dots used to overflow the worker's stack while nesting it.
#[tokio::test]
async fn an_attribute_key_of_a_hundred_thousand_dots() {
    let mut d = Deployment::start(&[]).await;
    let mut export = test_support::otlp::export(0x2d07, 0, 1, 1);
    let span = &mut export.resource_spans[0].scope_spans[0].spans[0];
    span.attributes.push(KeyValue {
        key: format!("langfuse.observation.metadata.{}", ".x".repeat(100_000)),
        value: Some(AnyValue { value: Some(Any::StringValue("deep".into())) }),
        ..Default::default()
    });
    let (status, body) = d.post_otlp(export.encode_to_vec(), &[], 1).await;
    assert_eq!(status, 200, "{body}");
    d.survives().await;
}

/// A gzip bomb (200 MB of zeros in ~200 KB) is refused once the inflated size passes the body
/// limit, without web inflating it all.
#[tokio::test]
async fn a_gzip_bomb() {
    let mut d = Deployment::start(&[]).await;
    let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..200 {
        encoder.write_all(&zeros).unwrap();
    }
    let bomb = encoder.finish().unwrap();
    let (status, body) = d.post_otlp(bomb, &[("content-encoding", "gzip")], 0).await;
    assert_eq!(status, 413, "{body}");
    d.survives().await;
}

/// JSON nested 100,000 levels deep, to the batch endpoint and OTLP/JSON: a clear 400, no crash.
#[tokio::test]
async fn json_nested_a_hundred_thousand_levels() {
    let mut d = Deployment::start(&[]).await;
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let batch = format!(r#"{{"batch": [{{"id": "e", "type": "score-create", "body": {deep}}}]}}"#);
    let (status, body) = d.post_json("/api/public/ingestion", batch.into_bytes()).await;
    assert_eq!(status, 400, "{body}");
    let otlp = format!(r#"{{"resourceSpans": {deep}}}"#);
    let (status, body) = d.post_otlp(otlp.into_bytes(), &[("content-type", "application/json")], 0).await;
    assert_eq!(status, 400, "{body}");
    d.survives().await;
}

/// A payload the store refuses (here a real ClickHouse constraint violation) is dead-lettered
/// with its blob key; the payloads around it land; once the cause is fixed, a replay stores it.
#[tokio::test]
async fn a_payload_the_store_refuses() {
    let mut d = Deployment::start(&[]).await;
    let client = d.stack.ch.client();
    client
        .query("ALTER TABLE events_full ADD CONSTRAINT no_poison CHECK name != 'poison'")
        .execute()
        .await
        .unwrap();
    for (run, name) in [(0x9001, "fine"), (0x9002, "poison"), (0x9003, "fine")] {
        let mut export = test_support::otlp::export(run, 0, 1, 2);
        for span in
            export.resource_spans.iter_mut().flat_map(|r| &mut r.scope_spans).flat_map(|s| &mut s.spans)
        {
            span.name = name.into();
        }
        let (status, body) = d.post_otlp(export.encode_to_vec(), &[], 2).await;
        assert_eq!(status, 200, "{body}");
    }
    let admin = format!("Bearer {ADMIN_KEY}");
    let list = format!("{}/api/admin/ingestion/dead-letters", d.web.base_url);
    let deadline = Instant::now() + Duration::from_secs(60);
    let letter = loop {
        let page: Value =
            http().get(&list).header("authorization", &admin).send().await.unwrap().json().await.unwrap();
        if let Some(letter) = page["data"].as_array().and_then(|letters| letters.first()) {
            break letter.clone();
        }
        assert!(Instant::now() < deadline, "no dead letter within 60 s:\n{}", d.worker.log_tail());
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(letter["projectId"], "project-blackbox");
    assert_eq!(letter["reasonClass"], "rejected");
    assert!(letter["blobKey"].as_str().unwrap().starts_with("otel/project-blackbox/"), "{letter}");
    d.worker.drained().await;
    assert_eq!(d.stored_spans().await, 4, "the payloads around the poison landed");
    let health: Value =
        http().get(format!("{}/api/health", d.worker.base_url)).send().await.unwrap().json().await.unwrap();
    assert_eq!(health["deadLetters"], 1, "{health}");

    client.query("ALTER TABLE events_full DROP CONSTRAINT no_poison").execute().await.unwrap();
    let replay = format!("{}/api/admin/ingestion/dead-letters/replay", d.web.base_url);
    let response = http()
        .post(&replay)
        .header("authorization", &admin)
        .json(&json!({"ids": [letter["id"]]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.json::<Value>().await.unwrap()["replayed"], json!([letter["id"]]));
    d.survives().await;
}
