//! v2 observations and the v2 score metrics against the real engine: the trace fields every
//! observation of a trace shows, and the trace a score is grouped by, are the trace's (a stated
//! trace name wins over the root span's own name whichever row was written last; tags are the
//! union of every row's), and metadata values that are JSON come back parsed.

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

use reads::Params;
use serde_json::{Value, json};
use storage::clickhouse::{ClickHouse, migrate};
use test_support::TestClickHouse;

/// One event row: (trace, span, parent, name, trace name, tags, metadata, seconds after the
/// first write).
type Row<'a> = (&'a str, &'a str, &'a str, &'a str, &'a str, &'a [&'a str], &'a [(&'a str, &'a str)], i64);

const ROWS: &[Row] = &[
    // A: the child stating the trace's name is written before its root.
    ("trace-a", "a-child", "a-root", "child", "explicit-a", &["child-tag"], &[("batchIndex", "0")], 0),
    ("trace-a", "a-root", "", "root-a", "root-a", &["root-tag"], &[("batchIndex", "\"0\"")], 5),
    // B: the root first, the child after it.
    ("trace-b", "b-root", "", "root-b", "root-b", &["root-tag"], &[], 0),
    ("trace-b", "b-child", "b-root", "child", "explicit-b", &["child-tag", "root-tag"], &[], 5),
    // C: a root alone names its trace; D: a root that states another name keeps it.
    ("trace-c", "c-root", "", "root-c", "root-c", &[], &[], 0),
    ("trace-d", "d-root", "", "root-d", "stated-d", &[], &[], 0),
    ("trace-d", "d-child", "d-root", "child", "", &["d"], &[], 5),
];

async fn store() -> (TestClickHouse, ClickHouse) {
    let db = TestClickHouse::create().await;
    let ch = ClickHouse::connect(&db.settings());
    migrate(&ch).await.unwrap();
    for (trace, span, parent, name, trace_name, tags, metadata, after) in ROWS {
        let tags: Vec<String> = tags.iter().map(|t| (*t).to_owned()).collect();
        let names: Vec<&str> = metadata.iter().map(|(k, _)| *k).collect();
        let values: Vec<&str> = metadata.iter().map(|(_, v)| *v).collect();
        ch.client()
            .query(
                "INSERT INTO events_full (project_id, trace_id, span_id, parent_span_id, start_time, name, type, \
                 trace_name, tags, metadata_names, metadata_values, event_ts, is_deleted) VALUES ('p1', ?, ?, ?, \
                 now64(6) - INTERVAL 1 MINUTE, ?, 'SPAN', ?, ?, ?, ?, now64(6) + toIntervalSecond(?), 0)",
            )
            .bind(trace)
            .bind(span)
            .bind(parent)
            .bind(name)
            .bind(trace_name)
            .bind(tags)
            .bind(names)
            .bind(values)
            .bind(after)
            .execute()
            .await
            .unwrap();
    }
    (db, ch)
}

/// `(span id, traceName, tags)` of every observation a read shows, by span id.
async fn trace_fields(ch: &ClickHouse, params: &[(&str, &str)]) -> Vec<(String, Value, Value)> {
    let page =
        reads::observations::list(ch, "p1", &Params::from_pairs(params.iter().copied())).await.unwrap();
    let mut rows: Vec<_> = page
        .data
        .into_iter()
        .map(|o| {
            let body = serde_json::to_value(&o).unwrap();
            (o.id, body["traceName"].clone(), body["tags"].clone())
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

#[tokio::test]
async fn every_observation_shows_its_traces_name_and_tags() {
    let (_db, ch) = store().await;
    let expected = |span: &str| -> (Value, Value) {
        match &span[..1] {
            "a" => (json!("explicit-a"), json!(["child-tag", "root-tag"])),
            "b" => (json!("explicit-b"), json!(["child-tag", "root-tag"])),
            "c" => (json!("root-c"), json!([])),
            _ => (json!("stated-d"), json!(["d"])),
        }
    };
    // A page of the whole project, and the one-trace read.
    let all = trace_fields(&ch, &[("fields", "core,trace_context"), ("limit", "100")]).await;
    assert_eq!(all.len(), ROWS.len());
    let one = trace_fields(&ch, &[("fields", "core,trace_context"), ("traceId", "trace-a")]).await;
    assert_eq!(one.len(), 2);
    for (span, name, tags) in all.iter().chain(&one) {
        assert_eq!((name, tags), (&expected(span).0, &expected(span).1), "{span}");
    }
    // The filter stays on each row's own stored values.
    let filter = json!([{"type": "string", "column": "traceName", "operator": "=", "value": "explicit-a"}]);
    let filtered =
        trace_fields(&ch, &[("fields", "core,trace_context"), ("filter", &filter.to_string())]).await;
    assert_eq!(filtered.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(), ["a-child"]);
}

#[tokio::test]
async fn metadata_values_that_are_json_come_back_parsed() {
    let (_db, ch) = store().await;
    let page = reads::observations::list(
        &ch,
        "p1",
        &Params::from_pairs([("fields", "core,metadata"), ("traceId", "trace-a")]),
    )
    .await
    .unwrap();
    let metadata = |id: &str| page.data.iter().find(|o| o.id == id).and_then(|o| o.metadata.clone()).unwrap();
    assert_eq!(metadata("a-child"), json!({"batchIndex": 0}), "the number a JSON text encodes");
    assert_eq!(metadata("a-root"), json!({"batchIndex": "0"}), "a JSON string stays a string");
}

#[tokio::test]
async fn a_score_is_grouped_by_its_traces_resolved_name_and_tags() {
    let (_db, ch) = store().await;
    ch.client()
        .query(
            "INSERT INTO scores (id, timestamp, project_id, trace_id, name, value, source, data_type, event_ts, \
             is_deleted) SELECT concat('s-', t), now64(3), 'p1', t, 'quality', 1, 'API', 'NUMERIC', now64(3), 0 \
             FROM (SELECT arrayJoin(['trace-a', 'trace-b', 'trace-c']) AS t)",
        )
        .execute()
        .await
        .unwrap();
    assert_eq!(
        grouped(&ch, "traceName").await,
        [(json!("explicit-a"), json!(1)), (json!("explicit-b"), json!(1)), (json!("root-c"), json!(1))]
    );
    // The tags of A and B are their union, not their roots' alone.
    assert_eq!(
        grouped(&ch, "tags").await,
        [(json!([]), json!(1)), (json!(["child-tag", "root-tag"]), json!(2))]
    );
}

/// `(dimension value, score count)` rows of the v2 `scores-numeric` view, in the dimension's order.
async fn grouped(ch: &ClickHouse, dimension: &str) -> Vec<(Value, Value)> {
    let at = |minutes: i64| (chrono::Utc::now() + chrono::Duration::minutes(minutes)).to_rfc3339();
    let query = json!({"view": "scores-numeric", "dimensions": [{"field": dimension}],
        "metrics": [{"measure": "count", "aggregation": "count"}], "fromTimestamp": at(-60),
        "toTimestamp": at(60), "orderBy": [{"field": dimension, "direction": "asc"}]});
    let params = Params::from_pairs([("query", query.to_string().as_str())]);
    let body = reads::metrics::run(ch, "p1", &params, reads::metrics::Version::V2).await.unwrap();
    body.data.into_iter().map(|row| (row[dimension].clone(), row["count_count"].clone())).collect()
}
