//! The read APIs through the running binaries: legacy v1 reads on data ingested through the legacy
//! batch API, v4 reads on data ingested over OTLP, the write-mode gates of spec/v4-migration-spec.md §4.1, and
//! read-after-write with the real Python SDK.

use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{SecondsFormat, Utc};
use serde_json::{Value, json};

use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, http, run_client};

struct Running {
    web: App,
    _worker: Option<App>,
    stack: Stack,
}

async fn start(mode: &str, opt_in: bool, with_worker: bool) -> Running {
    let mut stack = Stack::new().await;
    stack.env.insert("LANGFUSE_MIGRATION_V4_WRITE_MODE".into(), mode.into());
    stack.env.insert("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN".into(), opt_in.to_string());
    stack.env.insert("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS".into(), "100".into());
    let mut web = App::spawn("web", &stack.env, free_port());
    web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    let worker = if with_worker {
        let mut worker = App::spawn("worker", &stack.env, free_port());
        worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
        Some(worker)
    } else {
        None
    };
    Running { web, _worker: worker, stack }
}

fn auth() -> String {
    format!("Basic {}", STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}")))
}

impl Running {
    async fn get(&self, path: &str) -> (u16, Value) {
        let response = http()
            .get(format!("{}{path}", self.web.base_url))
            .header("Authorization", auth())
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    async fn ok(&self, path: &str) -> Value {
        let (status, body) = self.get(path).await;
        assert_eq!(status, 200, "GET {path}: {body}\n{}", self.web.log_tail());
        body
    }

    /// Polls until `done` holds for the body, with a deadline.
    async fn until(&self, path: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let body = self.ok(path).await;
            if done(&body) {
                return body;
            }
            assert!(Instant::now() < deadline, "GET {path} never satisfied the condition: {body}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    async fn post(&self, path: &str, body: Value, headers: &[(&str, &str)]) -> u16 {
        let mut request = http().post(format!("{}{path}", self.web.base_url)).header("Authorization", auth());
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        request.json(&body).send().await.unwrap().status().as_u16()
    }
}

fn ids(body: &Value) -> Vec<String> {
    let mut ids: Vec<String> =
        body["data"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_owned()).collect();
    ids.sort();
    ids
}

fn at(minutes_ago: i64) -> String {
    (Utc::now() - chrono::Duration::minutes(minutes_ago)).to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn legacy_batch() -> Value {
    let event =
        |id: &str, kind: &str, body: Value| json!({"id": id, "type": kind, "timestamp": at(0), "body": body});
    json!({"batch": [
        event("e1", "trace-create", json!({"id": "tr-a", "name": "alpha", "timestamp": at(3), "userId": "u1",
            "sessionId": "s1", "tags": ["x", "y"], "input": {"q": "hi"}, "metadata": {"team": "red"}})),
        event("e2", "trace-create", json!({"id": "tr-b", "name": "beta", "timestamp": at(2), "userId": "u2",
            "sessionId": "s1", "tags": ["x"]})),
        event("e3", "trace-create", json!({"id": "tr-c", "name": "gamma", "timestamp": at(1), "userId": "u1"})),
        event("e4", "generation-create", json!({"id": "gen-a1", "traceId": "tr-a", "name": "llm", "startTime": at(3),
            "endTime": at(2), "model": "gpt-4o", "usage": {"input": 10, "output": 20, "total": 30},
            "costDetails": {"input": 0.25, "output": 0.5, "total": 0.75}})),
        event("e5", "span-create", json!({"id": "span-a2", "traceId": "tr-a", "parentObservationId": "gen-a1",
            "name": "tool", "startTime": at(3)})),
        event("e6", "event-create", json!({"id": "ev-b1", "traceId": "tr-b", "name": "click", "startTime": at(2)})),
        event("e7", "score-create", json!({"id": "sc-1", "traceId": "tr-a", "name": "quality", "value": 0.9})),
        event("e8", "score-create", json!({"id": "sc-2", "traceId": "tr-b", "name": "label", "value": "good",
            "dataType": "CATEGORICAL"})),
        event("e9", "score-create", json!({"id": "sc-3", "traceId": "tr-a", "observationId": "gen-a1",
            "name": "quality", "value": 0.4})),
    ]})
}

#[tokio::test]
async fn legacy_reads_serve_the_v3_tables_with_filters_pages_and_newest_versions() {
    let app = start("dual", true, true).await;
    assert_eq!(app.post("/api/public/ingestion", legacy_batch(), &[]).await, 207);
    app.until("/api/public/traces", |b| b["meta"]["totalItems"] == 3).await;
    app.until("/api/public/scores", |b| b["meta"]["totalItems"] == 3).await;
    // A second version of tr-c, written after the first was stored: the old name must vanish.
    let rename = json!({"batch": [{"id": "e10", "type": "trace-create", "timestamp": at(0),
        "body": {"id": "tr-c", "name": "gamma-2"}}]});
    assert_eq!(app.post("/api/public/ingestion", rename, &[]).await, 207);
    app.until("/api/public/traces?name=gamma-2", |b| b["data"].as_array().unwrap().len() == 1).await;

    // Traces: page boundaries, filters, the newest version only.
    let page1 = app.ok("/api/public/traces?limit=2&page=1").await;
    let page2 = app.ok("/api/public/traces?limit=2&page=2").await;
    assert_eq!(page1["meta"], json!({"page": 1, "limit": 2, "totalItems": 3, "totalPages": 2}));
    assert_eq!(page1["data"].as_array().unwrap().len(), 2);
    let mut all = ids(&page1);
    all.extend(ids(&page2));
    all.sort();
    assert_eq!(all, ["tr-a", "tr-b", "tr-c"]);
    assert_eq!(ids(&app.ok("/api/public/traces?name=gamma").await), Vec::<String>::new());
    assert_eq!(ids(&app.ok("/api/public/traces?userId=u1").await), ["tr-a", "tr-c"]);
    assert_eq!(ids(&app.ok("/api/public/traces?tags=x&tags=y").await), ["tr-a"]);
    let filter = r#"[{"type":"stringObject","column":"metadata","key":"team","operator":"=","value":"red"}]"#;
    assert_eq!(ids(&app.ok(&format!("/api/public/traces?filter={}", urlencode(filter))).await), ["tr-a"]);
    let oldest_first = app.ok("/api/public/traces?orderBy=timestamp.asc").await;
    assert_eq!(oldest_first["data"][0]["id"], "tr-a");
    let listed = &app.ok("/api/public/traces?name=alpha").await["data"][0];
    assert_eq!(listed["htmlPath"], "/project/project-blackbox/traces/tr-a");
    assert_eq!(listed["totalCost"], 0.75);
    let mut observations: Vec<&str> =
        listed["observations"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    observations.sort();
    assert_eq!(observations, ["gen-a1", "span-a2"]);
    for key in ["release", "version", "output", "externalId"] {
        assert!(listed.get(key).is_some_and(Value::is_null), "{key} must be present as null: {listed}");
    }

    // One trace with its observations and scores.
    let trace = app.ok("/api/public/traces/tr-a").await;
    assert_eq!(trace["input"], json!({"q": "hi"}));
    assert_eq!(trace["observations"].as_array().unwrap().len(), 2);
    assert_eq!(trace["scores"].as_array().unwrap().len(), 2);
    // Its latency and cost are worked out beside its observations, as the list works them out.
    assert_eq!((&trace["totalCost"], &trace["latency"]), (&listed["totalCost"], &listed["latency"]));
    let (status, body) = app.get("/api/public/traces/nope").await;
    assert_eq!(
        (status, body["message"].as_str()),
        (404, Some("Trace nope not found within authorized project"))
    );

    // Observations, spans, generations.
    let generations = app.ok("/api/public/observations?type=GENERATION").await;
    assert_eq!(ids(&generations), ["gen-a1"]);
    let generation = &generations["data"][0];
    assert_eq!(generation["usage"], json!({"input": 10, "output": 20, "total": 30, "unit": "TOKENS"}));
    assert_eq!(generation["costDetails"]["total"], 0.75);
    assert_eq!(generation["model"], "gpt-4o");
    assert_eq!(ids(&app.ok("/api/public/observations?traceId=tr-a&limit=1&page=2").await).len(), 1);
    assert_eq!(ids(&app.ok("/api/public/observations?userId=u2").await), ["ev-b1"]);
    assert_eq!(ids(&app.ok("/api/public/spans").await), ["span-a2"]);
    assert_eq!(ids(&app.ok("/api/public/generations").await), ["gen-a1"]);
    assert_eq!(app.ok("/api/public/observations/span-a2").await["parentObservationId"], "gen-a1");

    // Sessions.
    let sessions = app.ok("/api/public/sessions").await;
    assert_eq!(ids(&sessions), ["s1"]);
    assert_eq!(app.ok("/api/public/sessions/s1").await["traces"].as_array().unwrap().len(), 2);
    assert_eq!(app.get("/api/public/sessions/none").await.0, 404);

    // Scores v1 and v2.
    assert_eq!(ids(&app.ok("/api/public/scores?name=quality").await), ["sc-1", "sc-3"]);
    let categorical = app.ok("/api/public/v2/scores?dataType=CATEGORICAL").await;
    assert_eq!(categorical["data"][0]["stringValue"], "good");
    assert_eq!(categorical["data"][0]["trace"]["userId"], "u2");
    assert_eq!(ids(&app.ok("/api/public/v2/scores?value=0.5&operator=%3E").await), ["sc-1"]);
    assert_eq!(app.ok("/api/public/v2/scores/sc-3").await["observationId"], "gen-a1");

    // Metrics v1 and daily.
    let query = json!({"view": "traces", "dimensions": [{"field": "name"}],
        "metrics": [{"measure": "count", "aggregation": "count"}],
        "fromTimestamp": at(60), "toTimestamp": at(-60), "orderBy": [{"field": "name", "direction": "asc"}]});
    let metrics = app.ok(&format!("/api/public/metrics?query={}", urlencode(&query.to_string()))).await;
    assert_eq!(
        metrics["data"],
        json!([{"name": "alpha", "count_count": 1}, {"name": "beta", "count_count": 1},
        {"name": "gamma-2", "count_count": 1}])
    );
    let daily = app.ok("/api/public/metrics/daily").await;
    assert_eq!(daily["data"][0]["countObservations"], 3);
    assert_eq!(daily["data"][0]["totalCost"], 0.75);

    // Bad parameters are 400s that say what is wrong.
    for (path, says) in [
        ("/api/public/traces?limit=101", "between 1 and 100"),
        ("/api/public/traces?orderBy=input.asc", "Invalid orderBy"),
        ("/api/public/traces?filter=%5B", "Invalid JSON in filter parameter"),
        ("/api/public/observations?fromStartTime=yesterday", "ISO-8601"),
        ("/api/public/metrics?query=%7B", "Invalid JSON in query parameter"),
    ] {
        let (status, body) = app.get(path).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert!(body["message"].as_str().unwrap().contains(says), "{path}: {body}");
    }
}

fn urlencode(raw: &str) -> String {
    url::form_urlencoded::byte_serialize(raw.as_bytes()).collect()
}

/// The hex id of trace `t` in `test_support::otlp::export(run, …)`.
fn otlp_trace_id(run: u64, t: u64) -> String {
    format!("{:016x}{:016x}", run | 1 << 63, t + 1)
}

#[tokio::test]
async fn v4_reads_serve_the_events_with_cursors_groups_and_filters() {
    let app = start("dual", true, true).await;
    let response = http()
        .post(format!("{}/api/public/otel/v1/traces", app.web.base_url))
        .header("Authorization", auth())
        .header("Content-Type", "application/x-protobuf")
        .header("x-langfuse-ingestion-version", "4")
        .body(test_support::otlp::export_bytes(7, 0, 3, 3))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let first = otlp_trace_id(7, 0);
    let by_trace = format!("/api/public/v2/observations?traceId={first}");
    app.until(&by_trace, |b| b["data"].as_array().unwrap().len() == 3).await;
    app.until("/api/public/v2/observations?limit=1000", |b| b["data"].as_array().unwrap().len() == 9).await;

    // A time range only narrows; the default groups are core and basic, strict keys present.
    let ranged = app
        .ok(&format!("{by_trace}&fromStartTime=2025-11-01T00:00:00Z&toStartTime=2025-12-31T00:00:00Z"))
        .await;
    assert_eq!(ranged["data"].as_array().unwrap().len(), 3);
    let outside = app.ok(&format!("{by_trace}&fromStartTime=2026-01-01T00:00:00Z")).await;
    assert_eq!(outside["data"], json!([]));
    assert!(outside["meta"].get("cursor").is_none());
    let row = &ranged["data"][0];
    assert_eq!(row["traceId"], first.as_str());
    assert_eq!(row["userId"], "user-0");
    for key in ["endTime", "parentObservationId", "modelId", "inputPrice", "outputPrice", "totalPrice"] {
        assert!(row.get(key).is_some(), "{key} missing: {row}");
    }
    assert!(row.get("input").is_none(), "io is not a default group: {row}");
    let core_only = app.ok(&format!("{by_trace}&fields=core")).await;
    assert!(core_only["data"][0].get("name").is_none());
    let io = app.ok(&format!("{by_trace}&fields=io,usage")).await;
    assert!(io["data"].as_array().unwrap().iter().any(|r| r["input"].is_string()), "{io}");

    // Cursor pages cover every span once.
    let mut seen = Vec::new();
    let mut path = "/api/public/v2/observations?limit=4".to_owned();
    for page in 0.. {
        let body = app.ok(&path).await;
        seen.extend(ids(&body));
        match body["meta"]["cursor"].as_str() {
            Some(cursor) => {
                path = format!("/api/public/v2/observations?limit=4&cursor={}", urlencode(cursor))
            }
            None => break,
        }
        assert!(page < 5, "cursor never ended");
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 9);
    // One trace pages the same way (it is read in one query of its own).
    let mut in_trace = Vec::new();
    let mut path = format!("{by_trace}&limit=1");
    for page in 0.. {
        let body = app.ok(&path).await;
        in_trace.extend(ids(&body));
        match body["meta"]["cursor"].as_str() {
            Some(cursor) => path = format!("{by_trace}&limit=1&cursor={}", urlencode(cursor)),
            None => break,
        }
        assert!(page < 5, "cursor never ended");
    }
    let listed = app.ok(&by_trace).await;
    let in_order: Vec<&str> =
        listed["data"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(in_trace, in_order, "pages in the list's order (newest first), each span once");
    assert_eq!(in_trace.len(), 3);

    // Filters.
    let roots = app.ok("/api/public/v2/observations?isRootObservation=true").await;
    assert_eq!(roots["data"].as_array().unwrap().len(), 3);
    let filter = r#"[{"type":"stringOptions","column":"type","operator":"any of","value":["GENERATION"]}]"#;
    let generations = app.ok(&format!("/api/public/v2/observations?filter={}", urlencode(filter))).await;
    assert_eq!(generations["data"].as_array().unwrap().len(), 6);
    assert_eq!(
        app.ok("/api/public/v2/observations?userId=user-1").await["data"].as_array().unwrap().len(),
        3
    );

    // Scores v3: subjects and cursor pages.
    let root =
        &roots["data"].as_array().unwrap().iter().find(|r| r["traceId"] == first.as_str()).unwrap()["id"];
    let scores = json!({"batch": [
        {"id": "s1", "type": "score-create", "timestamp": at(0), "body": {"id": "sc-t", "traceId": first, "name": "q", "value": 1}},
        {"id": "s2", "type": "score-create", "timestamp": at(0), "body": {"id": "sc-o", "traceId": first,
            "observationId": root, "name": "q", "value": 0.5}},
    ]});
    assert_eq!(app.post("/api/public/ingestion", scores, &[]).await, 207);
    app.until("/api/public/v3/scores", |b| b["data"].as_array().unwrap().len() == 2).await;
    let page1 = app.ok("/api/public/v3/scores?limit=1&fields=subject").await;
    let cursor = page1["meta"]["cursor"].as_str().expect("a second page");
    let page2 =
        app.ok(&format!("/api/public/v3/scores?limit=1&fields=subject&cursor={}", urlencode(cursor))).await;
    assert!(page2["meta"].get("cursor").is_none());
    let mut kinds =
        vec![page1["data"][0]["subject"]["kind"].clone(), page2["data"][0]["subject"]["kind"].clone()];
    kinds.sort_by_key(|k| k.to_string());
    assert_eq!(kinds, [json!("observation"), json!("trace")]);
    let by_observation = app
        .ok(&format!("/api/public/v3/scores?traceId={first}&observationId={}", root.as_str().unwrap()))
        .await;
    assert_eq!(ids(&by_observation), ["sc-o"]);

    // Metrics v2.
    let query = json!({"view": "observations", "dimensions": [{"field": "type"}],
        "metrics": [{"measure": "count", "aggregation": "count"}],
        "fromTimestamp": "2025-11-01T00:00:00Z", "toTimestamp": "2025-12-31T00:00:00Z",
        "orderBy": [{"field": "type", "direction": "asc"}]});
    let metrics = app.ok(&format!("/api/public/v2/metrics?query={}", urlencode(&query.to_string()))).await;
    assert_eq!(
        metrics["data"],
        json!([{"type": "GENERATION", "count_count": 6}, {"type": "SPAN", "count_count": 3}])
    );

    // Experiments: rows written directly, as the experiment runner's spans would land.
    app.stack
        .ch
        .client()
        .query(
            "INSERT INTO events_full (project_id, trace_id, span_id, parent_span_id, start_time, name, type, \
             experiment_id, experiment_name, experiment_item_id, experiment_item_root_span_id, \
             experiment_dataset_id, event_ts, is_deleted) VALUES \
             ('project-blackbox', 'xt1', 'xs1', '', now64(6), 'item 1', 'SPAN', 'run-1', 'Run one', 'item-1', 'xs1', 'ds-1', now64(6), 0), \
             ('project-blackbox', 'xt2', 'xs2', '', now64(6), 'item 2', 'SPAN', 'run-1', 'Run one', 'item-2', 'xs2', 'ds-1', now64(6), 0)",
        )
        .execute()
        .await
        .unwrap();
    let experiments = app.ok(&format!("/api/public/experiments?fromStartTime={}", urlencode(&at(60)))).await;
    assert_eq!(experiments["data"][0]["id"], "run-1");
    assert_eq!(experiments["data"][0]["itemCount"], 2);
    let items = app
        .ok(&format!(
            "/api/public/experiment-items?experimentId=run-1&limit=1&fromStartTime={}",
            urlencode(&at(60))
        ))
        .await;
    assert_eq!(items["data"][0]["experimentDatasetId"], "ds-1");
    assert!(items["meta"]["cursor"].is_string());
    // An item's scores: a deleted one, though newest, takes no place under `scoreLimit`.
    app.stack
        .ch
        .client()
        .query(
            "INSERT INTO scores (id, timestamp, project_id, trace_id, name, value, source, data_type, event_ts, is_deleted) VALUES \
             ('x-live', now64(3) - INTERVAL 1 MINUTE, 'project-blackbox', 'xt1', 'q', 1, 'API', 'NUMERIC', now64(3), 0), \
             ('x-gone', now64(3), 'project-blackbox', 'xt1', 'q', 0, 'API', 'NUMERIC', now64(3), 1)",
        )
        .execute()
        .await
        .unwrap();
    let scored = app
        .ok(&format!(
            "/api/public/experiment-items?experimentItemId=item-1&fields=core,scores&scoreLimit=1&fromStartTime={}",
            urlencode(&at(60))
        ))
        .await;
    let scores: Vec<&str> =
        scored["data"][0]["scores"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(scores, ["x-live"], "{scored}");

    for (path, says) in [
        ("/api/public/v2/observations?cursor=garbage", "Invalid cursor format"),
        ("/api/public/v2/observations?limit=1001", "between 1 and 1000"),
        ("/api/public/v2/observations?parseIoAsJson=true", "no longer supported"),
        ("/api/public/v3/scores?observationId=x", "requires `traceId`"),
        ("/api/public/v3/scores?fields=trace", "reserved"),
        ("/api/public/v3/scores?userId=u", "not supported in v3"),
        ("/api/public/experiments", "`fromStartTime` is required"),
    ] {
        let (status, body) = app.get(path).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert!(body["message"].as_str().unwrap().contains(says), "{path}: {body}");
    }
    let high = json!({"view": "observations", "dimensions": [{"field": "traceId"}],
        "metrics": [{"measure": "count", "aggregation": "count"}],
        "fromTimestamp": "2025-11-01T00:00:00Z", "toTimestamp": "2025-12-31T00:00:00Z"});
    let (status, body) =
        app.get(&format!("/api/public/v2/metrics?query={}", urlencode(&high.to_string()))).await;
    assert_eq!(status, 400);
    assert!(body["message"].as_str().unwrap().contains("High cardinality"), "{body}");
}

/// Spec 4.1: every legacy read is 404 in `events_only` (with upstream's message) and works in
/// `legacy`; the v4 reads need the preview opt-in and name it when off.
#[tokio::test]
async fn reads_follow_the_write_mode_and_the_preview_opt_in() {
    const LEGACY: &[&str] = &[
        "/api/public/traces",
        "/api/public/traces/t",
        "/api/public/observations",
        "/api/public/observations/o",
        "/api/public/sessions",
        "/api/public/sessions/s",
        "/api/public/spans",
        "/api/public/generations",
        "/api/public/scores",
        "/api/public/scores/s",
        "/api/public/v2/scores",
        "/api/public/v2/scores/s",
        "/api/public/metrics?query=%7B%7D",
        "/api/public/metrics/daily",
    ];
    const V4: &[&str] = &[
        "/api/public/v2/observations",
        "/api/public/v3/scores",
        "/api/public/experiments?fromStartTime=2025-01-01T00:00:00Z",
        "/api/public/experiment-items?fromStartTime=2025-01-01T00:00:00Z",
    ];
    let events_only = start("events_only", true, false).await;
    for path in LEGACY {
        let (status, body) = events_only.get(path).await;
        assert_eq!(status, 404, "{path}: {body}");
        assert!(body["message"].as_str().unwrap().contains("events_only mode"), "{path}: {body}");
    }
    for path in V4 {
        events_only.ok(path).await;
    }
    let legacy = start("legacy", false, false).await;
    for path in V4.iter().chain(&["/api/public/v2/metrics?query=%7B%7D"]) {
        let (status, body) = legacy.get(path).await;
        assert_eq!(status, 404, "{path}: {body}");
        assert!(
            body["message"].as_str().unwrap().contains("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN=true"),
            "{path}: {body}"
        );
    }
    for path in LEGACY {
        let (status, body) = legacy.get(path).await;
        // Present and gated open: 200, or the endpoint's own 404 / 400 for the made-up id or query.
        assert!(
            !body["message"].as_str().unwrap_or_default().contains("events_only"),
            "{path}: {status} {body}"
        );
        assert!(matches!(status, 200 | 400 | 404), "{path}: {status} {body}");
    }
    let unauthenticated =
        http().get(format!("{}/api/public/traces", legacy.web.base_url)).send().await.unwrap();
    assert_eq!(unauthenticated.status().as_u16(), 401, "reads need the project key");
}

/// The real Python SDK from PyPI ingests and reads back through its own `api.*` resources, whose
/// pydantic models reject a response with a missing or mistyped key.
#[tokio::test]
async fn python_sdk_reads_back_what_it_sent() {
    let app = start("dual", true, true).await;
    let read = run_client("read_back.py", &app.web).await;
    assert_eq!(read["names"], json!(["read-generation", "read-root"]));
    assert_eq!(read["without_range"], 2);
    assert_eq!(read["generation_type"], "GENERATION");
    // As upstream: the usage sent, plus a `total` (their sum) since none was sent.
    assert_eq!(read["generation_usage"], json!({"input": 10, "output": 5, "total": 15}));
    assert_eq!(read["generation_user"], "read-user");
    assert_eq!(read["score"], json!({"name": "read-quality", "value": 0.75, "kind": "trace"}));
    let generation_row =
        read["metrics"].as_array().unwrap().iter().find(|r| r["name"] == "read-generation").unwrap();
    assert_eq!(generation_row["count_count"], 1);
    assert!((generation_row["sum_totalCost"].as_f64().unwrap() - 0.003).abs() < 1e-9, "{generation_row}");
    assert_eq!(read["deleted"], json!(["Trace deleted successfully", "Traces deleted successfully"]));
    assert_eq!(read["after_delete"], json!([0, 0]), "observations and scores left after the deletion");
}
