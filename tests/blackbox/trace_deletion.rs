//! `DELETE /api/public/traces[/{id}]`: a deleted trace is gone from every table of both data
//! models (the staging table included, so propagation cannot bring it back), and nothing else is.

use reqwest::Method;
use serde_json::{Value, json};

use crate::api::Api;
use crate::apps::http;

/// Every table that holds rows of a trace, with the column naming it.
const TABLES: &[(&str, &str)] = &[
    ("traces", "id"),
    ("observations", "trace_id"),
    ("scores", "trace_id"),
    ("events_full", "trace_id"),
    ("events_core", "trace_id"),
    ("observations_batch_staging", "trace_id"),
];

async fn rows_of(api: &Api, table: &str, column: &str, trace_ids: &[String]) -> u64 {
    let sql = format!("SELECT count() FROM {table} WHERE {column} IN ?");
    api.stack.ch.client().query(&sql).bind(trace_ids).fetch_one().await.unwrap()
}

/// Three traces of three spans; with `direct`, sent as a v4 producer (written to `events_full` at
/// once), otherwise staged for propagation. Returns their trace ids.
async fn send_traces(api: &Api, first: u64, direct: bool) -> Vec<String> {
    let before = trace_ids(api).await;
    export(api, 7, first, 3, direct).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let now = trace_ids(api).await;
        if now.len() == before.len() + 3 {
            return now.into_iter().filter(|id| !before.contains(id)).collect();
        }
        assert!(std::time::Instant::now() < deadline, "traces never stored: {now:?}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

async fn trace_ids(api: &Api) -> Vec<String> {
    let sql = "SELECT DISTINCT id FROM traces ORDER BY id";
    api.stack.ch.client().query(sql).fetch_all().await.unwrap()
}

#[tokio::test]
async fn deleted_traces_are_gone_from_both_data_models_and_the_rest_stays() {
    let api = Api::start(&[
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual"),
        ("LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR", "dual_write"),
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
    ])
    .await;
    let _worker = api.worker().await;
    let direct = send_traces(&api, 0, true).await;
    let staged = send_traces(&api, 10, false).await;
    for trace in direct.iter().chain(&staged) {
        let score = json!({"traceId": trace, "name": "quality", "value": 1});
        api.expect(200, Method::POST, "/api/public/scores", Some(&score)).await;
    }
    let all: Vec<String> = direct.iter().chain(&staged).cloned().collect();
    api.until("/api/public/v2/scores?limit=100", |b| b["meta"]["totalItems"].as_u64() == Some(6)).await;
    for (table, column) in TABLES {
        let expected_rows = match *table {
            "events_full" | "events_core" => rows_of(&api, table, column, &direct).await,
            "observations_batch_staging" => rows_of(&api, table, column, &staged).await,
            _ => rows_of(&api, table, column, &all).await,
        };
        assert!(expected_rows > 0, "{table} holds none of the traces before the deletion");
    }

    // One trace of each path alone, two more in a batch; one of each path stays.
    let single = api.expect(200, Method::DELETE, &format!("/api/public/traces/{}", direct[0]), None).await;
    assert_eq!(single, json!({"message": "Trace deleted successfully"}));
    let batch = json!({"traceIds": [staged[0], direct[1], staged[1]]});
    let many = api.expect(200, Method::DELETE, "/api/public/traces", Some(&batch)).await;
    assert_eq!(many, json!({"message": "Traces deleted successfully"}));

    let deleted = vec![direct[0].clone(), direct[1].clone(), staged[0].clone(), staged[1].clone()];
    let kept = vec![direct[2].clone(), staged[2].clone()];
    for (table, column) in TABLES {
        assert_eq!(rows_of(&api, table, column, &deleted).await, 0, "{table} still holds deleted traces");
    }
    for (table, column) in [("traces", "id"), ("observations", "trace_id"), ("scores", "trace_id")] {
        assert!(rows_of(&api, table, column, &kept).await > 0, "{table} lost the traces that were kept");
    }
    assert!(rows_of(&api, "events_full", "trace_id", &kept[..1]).await > 0, "events_full lost a kept trace");
    assert!(rows_of(&api, "observations_batch_staging", "trace_id", &kept[1..]).await > 0);
    for trace in &deleted {
        api.expect(404, Method::GET, &format!("/api/public/traces/{trace}"), None).await;
    }
    let listed = api.expect(200, Method::GET, "/api/public/traces?limit=100", None).await;
    let mut ids: Vec<&str> =
        listed["data"].as_array().unwrap().iter().filter_map(|t| t["id"].as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, kept.iter().map(String::as_str).collect::<Vec<_>>(), "{listed}");
    // Deleting again, or an id never written, is not an error.
    api.expect(200, Method::DELETE, &format!("/api/public/traces/{}", direct[0]), None).await;
}

/// 100,000 ids in one request (4 MB, sixteen times ClickHouse's `max_query_size`) delete exactly the
/// listed traces; a read filtered by as many ids as a request line holds answers the rest.
#[tokio::test]
async fn a_hundred_thousand_trace_ids_delete_the_listed_traces_and_a_long_id_filter_reads() {
    let api = Api::start(&[
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual"),
        ("LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR", "dual_write"),
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
    ])
    .await;
    let _worker = api.worker().await;
    let traces = send_traces(&api, 20, true).await;
    let made_up = |n: usize| (0..n).map(|i| format!("{i:032x}")).collect::<Vec<_>>();
    let mut ids = made_up(99_998);
    ids.insert(50_000, traces[0].clone());
    ids.push(traces[1].clone());
    let answer = api.expect(200, Method::DELETE, "/api/public/traces", Some(&json!({"traceIds": ids}))).await;
    assert_eq!(answer, json!({"message": "Traces deleted successfully"}));
    for (table, column) in TABLES {
        assert_eq!(rows_of(&api, table, column, &traces[..2]).await, 0, "{table} still holds deleted traces");
    }
    assert!(rows_of(&api, "events_full", "trace_id", &traces[2..]).await > 0, "the third trace was kept");

    // A GET carries its ids in the request line (at most 65,534 bytes): 1,500 ids fit.
    let mut listed = made_up(1_497);
    listed.extend(traces.iter().cloned());
    let filter = json!([{"type": "stringOptions", "column": "id", "operator": "any of", "value": listed}]);
    let path = format!(
        "/api/public/traces?limit=100&filter={}",
        url::form_urlencoded::byte_serialize(filter.to_string().as_bytes()).collect::<String>()
    );
    assert!(path.len() > 50_000, "{}", path.len());
    let read = api.expect(200, Method::GET, &path, None).await;
    let found: Vec<&str> = read["data"].as_array().unwrap().iter().filter_map(|t| t["id"].as_str()).collect();
    assert_eq!(found, [traces[2].as_str()], "{read}");
}

/// The hex id `test_support::otlp` gives trace `t` of run `run`.
fn otlp_trace_id(run: u64, t: u64) -> String {
    format!("{:016x}{:016x}", run | 1 << 63, t + 1)
}

/// `traces` traces of three spans from `test_support::otlp`; with `direct`, sent as a v4 producer
/// (written to `events_full` at once, not staged).
async fn export(api: &Api, run: u64, first: u64, traces: u64, direct: bool) {
    let mut request = http()
        .post(format!("{}/api/public/otel/v1/traces", api.web.base_url))
        .header("Authorization", &api.key)
        .header("Content-Type", "application/x-protobuf")
        .body(test_support::otlp::export_bytes(run, first, traces, 3));
    if direct {
        request = request.header("x-langfuse-ingestion-version", "4");
    }
    assert_eq!(request.send().await.unwrap().status(), 200);
}

/// Spans acknowledged before a deletion but still queued must not bring the trace back; spans of
/// the same trace sent after the deletion are new data and are stored.
#[tokio::test]
async fn spans_queued_before_a_deletion_stay_deleted_and_later_ones_are_kept() {
    let api = Api::start(&[("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100")]).await;
    // No worker yet: everything below waits in the queue.
    export(&api, 9, 0, 3, false).await;
    let doomed = otlp_trace_id(9, 0);
    api.expect(200, Method::DELETE, &format!("/api/public/traces/{doomed}"), None).await;
    let between = chrono::Utc::now().timestamp_micros();
    // A new span of the same trace, after its deletion (new span id: the engine's replacing merge
    // would otherwise hide the earlier versions whether they were dropped or not).
    let later = json!({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{
        "scope": {"name": "blackbox"},
        "spans": [{"traceId": doomed, "spanId": "00000000000000aa", "name": "after-the-deletion",
                   "startTimeUnixNano": "1763700000000000000", "endTimeUnixNano": "1763700001000000000"}]}]}]});
    let (status, body) = api.send(Method::POST, "/api/public/otel/v1/traces", Some(&later)).await;
    assert_eq!(status, 200, "{body}");

    api.worker().await.drained().await;
    let count = |sql: String| {
        let client = api.stack.ch.client();
        async move { client.query(&sql).fetch_one::<u64>().await.unwrap() }
    };
    let rows = |cmp: &str| {
        format!(
            "SELECT count() FROM events_full WHERE trace_id = '{doomed}' \
             AND toUnixTimestamp64Micro(event_ts) {cmp} {between}"
        )
    };
    assert_eq!(count(rows("<")).await, 0, "spans acknowledged before the deletion were stored");
    assert_eq!(count(rows(">")).await, 1, "the span sent after the deletion was not stored");
    let names: Vec<String> = api
        .stack
        .ch
        .client()
        .query("SELECT name FROM events_full WHERE trace_id = ?")
        .bind(&doomed)
        .fetch_all()
        .await
        .unwrap();
    assert_eq!(names, ["after-the-deletion"]);
    let others = format!("SELECT count() FROM events_full WHERE trace_id != '{doomed}'");
    assert_eq!(count(others).await, 6, "the other two traces of the first export");
}

#[tokio::test]
async fn a_bad_deletion_request_says_what_is_wrong() {
    let api = Api::start(&[]).await;
    let too_many: Vec<String> = (0..100_001).map(|i| format!("t-{i}")).collect();
    for (body, says) in [
        (json!({"traceIds": []}), "between 1 and 100000"),
        (json!({"traceIds": too_many}), "it holds 100001"),
        (json!({"traceIds": ["a", ""]}), "empty id"),
        (json!({"traceIds": ["a", "x".repeat(801)]}), "at most 800 characters long; one has 801"),
        (json!({"traceIds": ["a"], "filter": {}}), "unknown field `filter`"),
        (json!({"ids": ["a"]}), "traceIds"),
    ] {
        let answer: Value = api.expect(400, Method::DELETE, "/api/public/traces", Some(&body)).await;
        assert!(answer.to_string().contains(says), "{body} answered {answer}");
    }
    let (status, _) = api.send_as("Basic bm9wZTpub3Bl", Method::DELETE, "/api/public/traces/a", None).await;
    assert_eq!(status, 401);
}
