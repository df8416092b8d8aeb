//! Scores through the v4 reads: `countScores` and the score views' trace and observation
//! dimensions in the metrics APIs, and the `scores` group and `scores` filter of v2 observations,
//! where a trace's own scores show on (and match) its root observation (spec/v4-migration-spec.md §1.4). Rows are written straight into ClickHouse, in
//! several versions where that is the point, so every expected number is known exactly.

use reqwest::Method;
use serde_json::{Value, json};

use crate::api::Api;

const PROJECT: &str = "project-blackbox";

/// Two traces as the events hold them: `tr-1` from OTLP (root `r1`, generation `c1`), `tr-2` as the
/// backfill writes a v3 trace (virtual root `t-tr-2`, span `c2`); their v3 rows for the v1 API;
/// and scores about traces, observations and a session, some in several versions.
async fn seed(api: &Api) {
    let ch = api.stack.ch.client();
    let events = format!(
        "INSERT INTO events_full (project_id, trace_id, span_id, parent_span_id, start_time, name, type, \
         trace_name, user_id, session_id, tags, release, version, provided_model_name, prompt_name, \
         prompt_version, event_ts, is_deleted) VALUES \
         ('{PROJECT}', 'tr-1', 'r1', '', now64(6) - INTERVAL 50 SECOND, 'root-1', 'SPAN', 'chat-old', 'u-old', \
          'sess-1', ['prod'], 'rel-1', 'v-old', '', '', NULL, now64(6) - INTERVAL 40 SECOND, 0), \
         ('{PROJECT}', 'tr-1', 'r1', '', now64(6) - INTERVAL 50 SECOND, 'root-1', 'SPAN', 'chat', 'u1', \
          'sess-1', ['prod'], 'rel-1', 'v-root', '', '', NULL, now64(6), 0), \
         ('{PROJECT}', 'tr-1', 'c1', 'r1', now64(6) - INTERVAL 49 SECOND, 'llm', 'GENERATION', 'chat', 'u1', \
          'sess-1', ['prod'], 'rel-1', 'v-child', 'gpt-4o', 'answer', 3, now64(6), 0), \
         ('{PROJECT}', 'tr-2', 't-tr-2', '', now64(6) - INTERVAL 30 SECOND, 'search', 'SPAN', 'search', 'u2', \
          '', [], '', 'v2-root', '', '', NULL, now64(6), 0), \
         ('{PROJECT}', 'tr-2', 'c2', 't-tr-2', now64(6) - INTERVAL 29 SECOND, 'tool', 'SPAN', 'search', 'u2', \
          '', [], '', '', '', '', NULL, now64(6), 0)"
    );
    let v3 = [
        format!(
            "INSERT INTO traces (id, timestamp, name, project_id, user_id, session_id, tags, version, release, \
             public, bookmarked, event_ts, is_deleted) VALUES \
             ('tr-1', now64(3) - INTERVAL 50 SECOND, 'chat', '{PROJECT}', 'u1', 'sess-1', ['prod'], 'v-root', \
              'rel-1', false, false, now64(3), 0), \
             ('tr-2', now64(3) - INTERVAL 30 SECOND, 'search', '{PROJECT}', 'u2', NULL, [], 'v2-root', NULL, \
              false, false, now64(3), 0)"
        ),
        format!(
            "INSERT INTO observations (id, trace_id, project_id, type, parent_observation_id, start_time, name, \
             provided_model_name, event_ts, is_deleted) VALUES \
             ('c1', 'tr-1', '{PROJECT}', 'GENERATION', NULL, now64(3) - INTERVAL 49 SECOND, 'llm', 'gpt-4o', \
              now64(3), 0), \
             ('c2', 'tr-2', '{PROJECT}', 'SPAN', NULL, now64(3) - INTERVAL 29 SECOND, 'tool', NULL, now64(3), 0)"
        ),
    ];
    // s6 is deleted (its newest version); s7 was first about c2, its newest version is about c1.
    let scores = format!(
        "INSERT INTO scores (id, timestamp, project_id, trace_id, observation_id, session_id, name, value, \
         source, data_type, string_value, event_ts, is_deleted) VALUES \
         ('s1', now64(3) - INTERVAL 20 SECOND, '{PROJECT}', 'tr-1', NULL, NULL, 'quality', 1, 'API', 'NUMERIC', NULL, now64(3), 0), \
         ('s2', now64(3) - INTERVAL 19 SECOND, '{PROJECT}', 'tr-1', 'c1', NULL, 'quality', 0.5, 'API', 'NUMERIC', NULL, now64(3), 0), \
         ('s3', now64(3) - INTERVAL 18 SECOND, '{PROJECT}', 'tr-2', NULL, NULL, 'quality', 0, 'EVAL', 'NUMERIC', NULL, now64(3), 0), \
         ('s4', now64(3) - INTERVAL 17 SECOND, '{PROJECT}', 'tr-2', 'c2', NULL, 'label', 0, 'API', 'CATEGORICAL', 'good', now64(3), 0), \
         ('s5', now64(3) - INTERVAL 16 SECOND, '{PROJECT}', NULL, NULL, 'sess-1', 'quality', 0.2, 'API', 'NUMERIC', NULL, now64(3), 0), \
         ('s6', now64(3) - INTERVAL 15 SECOND, '{PROJECT}', 'tr-1', NULL, NULL, 'quality', 0.1, 'API', 'NUMERIC', NULL, now64(3) - INTERVAL 5 SECOND, 0), \
         ('s6', now64(3) - INTERVAL 15 SECOND, '{PROJECT}', 'tr-1', NULL, NULL, 'quality', 0.1, 'API', 'NUMERIC', NULL, now64(3), 1), \
         ('s7', now64(3) - INTERVAL 14 SECOND, '{PROJECT}', 'tr-2', 'c2', NULL, 'quality', 0.75, 'API', 'NUMERIC', NULL, now64(3) - INTERVAL 5 SECOND, 0), \
         ('s7', now64(3) - INTERVAL 14 SECOND, '{PROJECT}', 'tr-1', 'c1', NULL, 'quality', 0.75, 'API', 'NUMERIC', NULL, now64(3), 0)"
    );
    for sql in [events, scores].iter().chain(&v3) {
        ch.query(sql).execute().await.unwrap();
    }
}

fn urlencode(raw: &str) -> String {
    url::form_urlencoded::byte_serialize(raw.as_bytes()).collect()
}

/// A metrics query over the last hour and the next (the seeded rows are "now").
fn query(view: &str, dimension: &str, measure: &str, aggregation: &str) -> Value {
    let at = |minutes: i64| (chrono::Utc::now() + chrono::Duration::minutes(minutes)).to_rfc3339();
    json!({"view": view, "dimensions": [{"field": dimension}],
        "metrics": [{"measure": measure, "aggregation": aggregation}],
        "fromTimestamp": at(-60), "toTimestamp": at(60),
        "orderBy": [{"field": dimension, "direction": "asc"}]})
}

fn path(api_path: &str, query: &Value) -> String {
    format!("{api_path}?query={}", urlencode(&query.to_string()))
}

async fn metrics(api: &Api, api_path: &str, query: &Value) -> Value {
    api.expect(200, Method::GET, &path(api_path, query), None).await["data"].clone()
}

const V2: &str = "/api/public/v2/metrics";
const V1: &str = "/api/public/metrics";

#[tokio::test]
async fn count_scores_counts_each_observations_scores_and_a_roots_trace_scores() {
    let api = Api::start(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual")]).await;
    seed(&api).await;
    let mut q = query("observations", "name", "countScores", "sum");
    q["metrics"] = json!([{"measure": "countScores", "aggregation": "sum"},
        {"measure": "count", "aggregation": "count"}]);
    // Roots carry their trace's own scores (s1; s3), not a session's (s5) nor a deleted one (s6);
    // s7 counts where its newest version is; joining scores never multiplies the observations.
    let expected = json!([
        {"name": "llm", "sum_countScores": 2, "count_count": 1},
        {"name": "root-1", "sum_countScores": 1, "count_count": 1},
        {"name": "search", "sum_countScores": 1, "count_count": 1},
        {"name": "tool", "sum_countScores": 1, "count_count": 1},
    ]);
    let body = api.until(&path(V2, &q), |b| b["data"] == expected).await;
    assert_eq!(body["data"], expected);

    // Per trace, summed over its observations, filtered by a root-only column.
    let mut q = query("observations", "traceName", "countScores", "sum");
    q["filters"] = json!([{"type": "string", "column": "type", "operator": "=", "value": "SPAN"}]);
    assert_eq!(
        metrics(&api, V2, &q).await,
        json!([{"traceName": "chat", "sum_countScores": 1}, {"traceName": "search", "sum_countScores": 2}])
    );
    // The trace's version is its root's, on every observation of the trace.
    let q = query("observations", "traceVersion", "count", "count");
    assert_eq!(
        metrics(&api, V2, &q).await,
        json!([{"traceVersion": "v-root", "count_count": 2}, {"traceVersion": "v2-root", "count_count": 2}])
    );
    // v1 reads the v3 tables, where a trace has no root observation: only observation scores.
    let q = query("observations", "name", "countScores", "sum");
    assert_eq!(
        metrics(&api, V1, &q).await,
        json!([{"name": "llm", "sum_countScores": 2}, {"name": "tool", "sum_countScores": 1}])
    );
}

#[tokio::test]
async fn score_views_group_and_filter_by_their_trace_and_observation() {
    let api = Api::start(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual")]).await;
    seed(&api).await;
    let q = query("scores-numeric", "traceName", "count", "count");
    // The newest version of each trace row: `chat`, never `chat-old`; s5 has no trace.
    let expected = json!([{"traceName": "", "count_count": 1}, {"traceName": "chat", "count_count": 3},
        {"traceName": "search", "count_count": 1}]);
    api.until(&path(V2, &q), |b| b["data"] == expected).await;
    assert_eq!(metrics(&api, V1, &q).await, expected, "v1 joins the v3 traces");

    let mut q = query("scores-numeric", "name", "value", "sum");
    q["filters"] =
        json!([{"type": "stringOptions", "column": "userId", "operator": "any of", "value": ["u1"]}]);
    assert_eq!(metrics(&api, V2, &q).await, json!([{"name": "quality", "sum_value": 2.25}]));
    q["filters"] =
        json!([{"type": "arrayOptions", "column": "tags", "operator": "any of", "value": ["prod"]}]);
    assert_eq!(metrics(&api, V2, &q).await, json!([{"name": "quality", "sum_value": 2.25}]));

    // A trace's own score is about its root observation; a session's score is about none.
    let q = query("scores-numeric", "observationName", "count", "count");
    assert_eq!(
        metrics(&api, V2, &q).await,
        json!([{"observationName": "", "count_count": 1}, {"observationName": "llm", "count_count": 2},
            {"observationName": "root-1", "count_count": 1}, {"observationName": "search", "count_count": 1}])
    );
    let mut q = query("scores-numeric", "observationModelName", "count", "count");
    q["filters"] =
        json!([{"type": "number", "column": "observationPromptVersion", "operator": "=", "value": 3}]);
    assert_eq!(metrics(&api, V2, &q).await, json!([{"observationModelName": "gpt-4o", "count_count": 2}]));
    let q = query("scores-categorical", "traceVersion", "count", "count");
    assert_eq!(metrics(&api, V2, &q).await, json!([{"traceVersion": "v2-root", "count_count": 1}]));

    // A session's score, or the session of the scored trace; high cardinality needs a limit.
    let mut q = query("scores-numeric", "sessionId", "count", "count");
    q["config"] = json!({"row_limit": 10});
    q["orderBy"] = json!([{"field": "count_count", "direction": "desc"}]);
    assert_eq!(
        metrics(&api, V2, &q).await,
        json!([{"sessionId": "sess-1", "count_count": 4}, {"sessionId": "", "count_count": 1}])
    );
}

#[tokio::test]
async fn what_a_view_does_not_offer_is_a_400_naming_it() {
    let api = Api::start(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual")]).await;
    let cases = [
        (
            V1,
            query("observations", "traceName", "count", "count"),
            "`traceName` is not supported on the `observations` view",
        ),
        (V1, query("observations", "name", "inputCost", "sum"), "`inputCost` is not supported"),
        (V2, query("scores-numeric", "name", "countScores", "sum"), "Invalid metric countScores"),
        (V2, query("observations", "observationName", "count", "count"), "Invalid dimension observationName"),
        (
            V2,
            query("scores-categorical", "userId", "count", "count"),
            "High cardinality dimension(s) 'userId'",
        ),
    ];
    for (api_path, q, says) in cases {
        let body = api.expect(400, Method::GET, &path(api_path, &q), None).await;
        assert!(body["message"].as_str().unwrap().contains(says), "{q}: {body}");
    }
    let mut q = query("observations", "name", "count", "count");
    q["filters"] = json!([{"type": "string", "column": "userId", "operator": "=", "value": "u1"}]);
    let body = api.expect(400, Method::GET, &path(V1, &q), None).await;
    assert!(body["message"].as_str().unwrap().contains("`userId` is not supported"), "{body}");
}

fn scores_of(body: &Value, observation: &str) -> Vec<String> {
    let row = body["data"].as_array().unwrap().iter().find(|r| r["id"] == observation);
    let scores = row.unwrap_or_else(|| panic!("{observation} missing: {body}"))["scores"].as_array().unwrap();
    scores.iter().map(|s| s["id"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn a_traces_scores_show_on_its_root_observation_only() {
    let api = Api::start(&[]).await;
    seed(&api).await;
    let first = "/api/public/v2/observations?traceId=tr-1&fields=basic,scores";
    let body = api.until(first, |b| b["data"].as_array().is_some_and(|d| d.len() == 2)).await;
    assert_eq!(scores_of(&body, "r1"), ["s1"], "the trace's score, not the session's nor a deleted one");
    assert_eq!(scores_of(&body, "c1"), ["s7", "s2"], "own scores only, newest first");
    let root_score = &body["data"].as_array().unwrap().iter().find(|r| r["id"] == "r1").unwrap()["scores"][0];
    assert_eq!(root_score["subject"], json!({"kind": "trace", "id": "tr-1"}));
    assert_eq!(root_score["value"], 1.0);

    // The backfill's virtual root is a root like any other; s7 left c2 in its newest version.
    let second =
        api.expect(200, Method::GET, "/api/public/v2/observations?traceId=tr-2&fields=scores", None).await;
    assert_eq!(scores_of(&second, "t-tr-2"), ["s3"]);
    assert_eq!(scores_of(&second, "c2"), ["s4"]);

    let limited = api.expect(200, Method::GET, &format!("{first}&scoreLimit=1"), None).await;
    assert_eq!(scores_of(&limited, "c1"), ["s7"]);
    let without = api.expect(200, Method::GET, "/api/public/v2/observations?traceId=tr-1", None).await;
    assert!(without["data"][0].get("scores").is_none(), "only when asked: {without}");
    let body = api.expect(400, Method::GET, &format!("{first}&scoreLimit=51"), None).await;
    assert!(body["message"].as_str().unwrap().contains("scoreLimit"), "{body}");
}

/// The ids of the observations `filter` keeps, in API order.
async fn kept(api: &Api, filter: Value) -> Vec<String> {
    let path = format!("/api/public/v2/observations?filter={}", urlencode(&filter.to_string()));
    let body = api.expect(200, Method::GET, &path, None).await;
    body["data"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn the_scores_filter_keeps_observations_with_a_matching_score() {
    let api = Api::start(&[]).await;
    seed(&api).await;
    // Another project's score on the same observation id, with a value nothing of ours has.
    let other = "INSERT INTO scores (id, timestamp, project_id, trace_id, observation_id, name, value, source, \
                 data_type, event_ts, is_deleted) VALUES ('x1', now64(3), 'other-project', 'tr-1', 'c1', 'quality', \
                 9, 'API', 'NUMERIC', now64(3), 0)";
    api.stack.ch.client().query(other).execute().await.unwrap();
    api.until("/api/public/v2/observations", |b| b["data"].as_array().is_some_and(|d| d.len() == 4)).await;
    let number = |op: &str, value: f64| json!([{"type": "numberObject", "column": "scores", "key": "quality", "operator": op, "value": value}]);

    // c1 by its own s7 (0.75), r1 by its trace's s1 (1); c2 no longer has s7, tr-2's s3 is 0.
    assert_eq!(kept(&api, number(">=", 0.7)).await, ["c1", "r1"]);
    assert_eq!(kept(&api, number("=", 0.5)).await, ["c1"], "s2, an older score of c1");
    assert_eq!(
        kept(&api, number("<", 0.1)).await,
        ["t-tr-2"],
        "a trace score on the backfill's virtual root"
    );
    assert_eq!(
        kept(&api, number("=", 0.2)).await,
        Vec::<String>::new(),
        "a session's score is on no observation"
    );
    assert_eq!(kept(&api, number("=", 0.1)).await, Vec::<String>::new(), "a deleted score never matches");
    assert_eq!(
        kept(&api, number(">", 5.0)).await,
        Vec::<String>::new(),
        "another project's score never matches"
    );
    assert_eq!(kept(&api, number("<>", 1.0)).await, ["t-tr-2", "c1"], "r1's only score is 1");

    let label = |value: &str| json!([{"type": "stringObject", "column": "scores", "key": "label", "operator": "=", "value": value}]);
    assert_eq!(kept(&api, label("good")).await, ["c2"]);
    assert_eq!(kept(&api, label("bad")).await, Vec::<String>::new(), "a value no score has");
    // With another filter, AND-ed.
    let mut both = number(">=", 0.7);
    both.as_array_mut()
        .unwrap()
        .push(json!({"type": "string", "column": "type", "operator": "=", "value": "SPAN"}));
    assert_eq!(kept(&api, both).await, ["r1"]);

    for (filter, says) in [
        (json!([{"type": "numberObject", "column": "scores", "operator": "=", "value": 1}]), "needs a `key`"),
        (
            json!([{"type": "stringObject", "column": "scores", "key": "label", "operator": ">", "value": "a"}]),
            "Operator `>`",
        ),
        (
            json!([{"type": "number", "column": "scores", "key": "quality", "operator": "=", "value": 1}]),
            "numberObject, stringObject",
        ),
    ] {
        let path = format!("/api/public/v2/observations?filter={}", urlencode(&filter.to_string()));
        let body = api.expect(400, Method::GET, &path, None).await;
        assert!(body["message"].as_str().unwrap().contains(says), "{filter}: {body}");
    }
}
