//! The worker's consumer loop, driven one step at a time on the real stack: a payload accepted the
//! way web accepts it is read, converted, inserted and acknowledged by `Processor::step`.

#![allow(clippy::unwrap_used)]

mod harness;

use bytes::Bytes;
use prost::Message;

use harness::{PROJECT, harness, harness_in, sender};

#[tokio::test]
async fn a_step_inserts_and_acknowledges_what_was_accepted() {
    let h = harness().await;
    let export = test_support::otlp::export(7, 0, 3, 4);
    h.acceptor.accept_otlp(&sender(), Bytes::from(export.encode_to_vec())).await.unwrap();
    assert_eq!(h.queue.depth().await.unwrap(), 1, "accepted means queued");
    assert_eq!(h.step_until_flushed(1).await, 1);
    assert_eq!(h.queue.depth().await.unwrap(), 0, "a flushed entry is acknowledged and removed");
    assert_eq!(
        h.count("SELECT count() FROM events_full WHERE project_id = ?").await,
        12,
        "3 traces of 4 spans"
    );
}

/// ClickHouse refuses an insert block that touches more than 100 month partitions; a client decides
/// its spans' and scores' times, so one payload over 101 months must still land whole.
#[tokio::test]
async fn spans_and_scores_over_a_hundred_and_one_months_land_whole() {
    let h = harness().await;
    let mut export = test_support::otlp::export(8, 0, 101, 2);
    let month_ns: u64 = 31 * 24 * 3600 * 1_000_000_000;
    let spans = export.resource_spans.iter_mut().flat_map(|r| &mut r.scope_spans).flat_map(|s| &mut s.spans);
    for (index, span) in spans.enumerate() {
        let start = 1_000_000_000_000_000_000 + (index as u64 / 2) * month_ns;
        (span.start_time_unix_nano, span.end_time_unix_nano) = (start, start + 1_000_000);
    }
    h.acceptor.accept_otlp(&sender(), Bytes::from(export.encode_to_vec())).await.unwrap();
    let scores: Vec<serde_json::Value> = (0..101)
        .map(|month| {
            let at = chrono::DateTime::from_timestamp(1_000_000_000 + month * 31 * 24 * 3600, 0).unwrap();
            serde_json::json!({"id": format!("e{month}"), "type": "score-create", "timestamp": at.to_rfc3339(),
                "body": {"id": format!("s{month}"), "traceId": "t", "name": "q", "value": month, "timestamp": at.to_rfc3339()}})
        })
        .collect();
    let body = serde_json::to_vec(&serde_json::json!({ "batch": scores })).unwrap();
    let answer = h.service.batch(&sender(), Bytes::from(body)).await.unwrap();
    assert_eq!((answer.successes.len(), answer.errors.len()), (101, 0), "{:?}", answer.errors);
    h.step_until_flushed(2).await;
    assert_eq!(h.count("SELECT count() FROM events_full WHERE project_id = ?").await, 202);
    assert_eq!(
        h.count("SELECT uniqExact(toYYYYMM(start_time)) FROM events_full WHERE project_id = ?").await,
        101
    );
    assert_eq!(h.count("SELECT count() FROM scores WHERE project_id = ?").await, 101);
}

/// Updates of one trace sent one after another, in separate requests, are merged in the order they
/// were sent, however the worker's concurrent conversions finish.
#[tokio::test]
async fn updates_are_applied_in_the_order_they_were_received() {
    let h = harness_in("legacy").await;
    let at = "2026-11-25T12:00:00.000Z";
    for version in 0..=50 {
        let event = serde_json::json!({"id": format!("e{version}"), "type": "trace-create", "timestamp": at,
            "body": {"id": "t-ordered", "name": format!("v{version}"), "timestamp": at}});
        let body = serde_json::to_vec(&serde_json::json!({ "batch": [event] })).unwrap();
        let answer = h.service.batch(&sender(), Bytes::from(body)).await.unwrap();
        assert_eq!(answer.errors.len(), 0, "{:?}", answer.errors);
    }
    let entries = h.queue.depth().await.unwrap() as usize;
    h.step_until_flushed(entries).await;
    let name: String = h
        .ch
        .client()
        .query("SELECT name FROM traces WHERE project_id = ? AND id = 't-ordered' ORDER BY event_ts DESC LIMIT 1")
        .bind(PROJECT)
        .fetch_one()
        .await
        .unwrap();
    assert_eq!(name, "v50", "the last update sent wins");
}

/// A batch of scores alone does not wait behind the spans' insert in flight (`process::inflight`):
/// the spans' flush is held up in PostgreSQL (their prompt lookup meets a table lock this test
/// holds), and the score sent after them is stored meanwhile; the spans land once the lock goes.
#[tokio::test]
async fn a_score_is_stored_while_the_spans_before_it_are_still_being_inserted() {
    use ingestion::process::Turn;
    use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value::Value};
    use std::time::{Duration, Instant};
    use tokio_util::sync::CancellationToken;

    let h = harness().await;
    let mut export = test_support::otlp::export(9, 0, 1, 2);
    let attribute = |key: &str, value: Value| KeyValue {
        key: key.into(),
        value: Some(AnyValue { value: Some(value) }),
        ..Default::default()
    };
    let generation = &mut export.resource_spans[0].scope_spans[0].spans[1];
    generation
        .attributes
        .push(attribute("langfuse.observation.prompt.name", Value::StringValue("held".into())));
    generation.attributes.push(attribute("langfuse.observation.prompt.version", Value::IntValue(1)));
    let mut lock = h.postgres.begin().await.unwrap();
    sqlx::query("LOCK TABLE prompts IN ACCESS EXCLUSIVE MODE").execute(&mut *lock).await.unwrap();

    let (shutdown, mut turn) = (CancellationToken::new(), Turn::new(h.claim_idle));
    let deadline = Instant::now() + Duration::from_secs(30);
    // A step never waits for an insert unless the next batch needs it to end first: one that
    // blocks here is the old inline flush, stuck behind the lock.
    let step = async |turn: &mut Turn, what: &str| {
        assert!(Instant::now() < deadline, "{what} within 30 s");
        let stepped = tokio::time::timeout(Duration::from_secs(10), h.processor.step(turn, &shutdown)).await;
        assert!(stepped.is_ok(), "a step waited 10 s for the held insert ({what})");
    };
    h.acceptor.accept_otlp(&sender(), Bytes::from(export.encode_to_vec())).await.unwrap();
    while turn.pending_entries() == 0 {
        step(&mut turn, "the spans are read").await;
    }
    // The spans' flush starts at the step that finds the queue drained, and stays held.
    for _ in 0..3 {
        step(&mut turn, "the spans' flush starts").await;
    }
    let score = serde_json::json!({"batch": [{"id": "e-held", "type": "score-create",
        "timestamp": "2026-11-25T12:00:00.000Z", "body": {"id": "s-held", "traceId": "t", "name": "q", "value": 1}}]});
    let answer = h.service.batch(&sender(), Bytes::from(serde_json::to_vec(&score).unwrap())).await.unwrap();
    assert_eq!(answer.errors.len(), 0, "{:?}", answer.errors);
    while h.count("SELECT count() FROM scores WHERE project_id = ?").await == 0 || turn.pending_entries() > 1
    {
        step(&mut turn, "the score is stored and acknowledged while the spans are held").await;
    }
    assert_eq!(h.count("SELECT count() FROM events_full WHERE project_id = ?").await, 0, "spans still held");
    assert_eq!(h.queue.depth().await.unwrap(), 1, "only the spans' entry is left");

    lock.rollback().await.unwrap();
    while turn.pending_entries() > 0 || h.queue.depth().await.unwrap() > 0 {
        step(&mut turn, "the spans are stored after the lock goes").await;
    }
    assert_eq!(h.count("SELECT count() FROM events_full WHERE project_id = ?").await, 2);
}
