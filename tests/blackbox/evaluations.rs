//! The evaluation engine end to end: web and worker on a fresh stack, an LLM connection pointing
//! at the loopback OpenAI-compatible stub (`test_support::llm_stub`), OTLP spans sent like any
//! client's, and the `EVAL` scores, judge traces and executions they lead to — each waited for
//! with a deadline.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use sqlx::PgPool;
use test_support::llm_stub::{LlmStub, StubReply};

use crate::api::Api;
use crate::apps::{App, free_port};

const KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

pub(crate) async fn start(extra: &[(&str, &str)]) -> (Api, App) {
    let mut env = vec![("ENCRYPTION_KEY", KEY)];
    env.extend_from_slice(extra);
    let api = Api::start(&env).await;
    let mut worker = App::spawn("worker", &api.stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
    (api, worker)
}

/// The project's connection `stub` to the stub, made through `PUT /api/public/llm-connections`.
pub(crate) async fn connect(api: &Api, stub: &LlmStub) {
    let body = json!({"provider": "stub", "adapter": "openai", "secretKey": "sk-test",
                      "baseURL": stub.openai_base_url(), "customModels": ["judge-default"]});
    let (status, answer) = api.send(Method::PUT, "/api/public/llm-connections", Some(&body)).await;
    assert!(status == 200 || status == 201, "{status} {answer}");
}

pub(crate) async fn evaluator(api: &Api, name: &str) -> String {
    let body = json!({
        "type": "llm_as_judge", "name": name,
        "prompt": [{"role": "system", "content": "You are a judge."},
                   {"role": "user", "content": "Question: {{input}}\nAnswer: {{output}}"}],
        "modelConfig": {"provider": "stub", "model": "judge-1"},
        "variableMapping": [{"variable": "input", "source": "input"},
                            {"variable": "output", "source": "output", "jsonPath": "$.text"}],
        "outputDefinition": {"dataType": "NUMERIC", "minValue": 0, "maxValue": 1}
    });
    let (status, created) = api.send(Method::POST, "/api/public/v2/evaluators", Some(&body)).await;
    assert_eq!(status, 200, "{created}");
    created["id"].as_str().unwrap().to_owned()
}

pub(crate) async fn rule(api: &Api, body: Value) -> String {
    let (status, created) = api.send(Method::POST, "/api/public/v2/evaluation-rules", Some(&body)).await;
    assert_eq!(status, 200, "{created}");
    created["id"].as_str().unwrap().to_owned()
}

fn attribute(key: &str, value: &str) -> Value {
    json!({"key": key, "value": {"stringValue": value}})
}

/// One OTLP span per `(span id, name, input)`, in one trace, sent as a client would.
pub(crate) async fn send_spans(api: &Api, trace: &str, spans: &[(&str, &str, &str)]) {
    let start = chrono::Utc::now().timestamp_nanos_opt().unwrap();
    let spans: Vec<Value> = spans
        .iter()
        .map(|(id, name, input)| {
            json!({"traceId": trace, "spanId": id, "name": name,
                   "startTimeUnixNano": start.to_string(), "endTimeUnixNano": (start + 1_000_000).to_string(),
                   "attributes": [attribute("langfuse.observation.type", "generation"),
                                  attribute("langfuse.observation.input", input),
                                  attribute("langfuse.observation.output", "{\"text\": \"fine answer\"}")]})
        })
        .collect();
    let export = json!({"resourceSpans": [{"resource": {"attributes": []},
                                          "scopeSpans": [{"scope": {"name": "app"}, "spans": spans}]}]});
    let response = crate::apps::http()
        .post(format!("{}/api/public/otel/v1/traces", api.web.base_url))
        .header("Authorization", &api.key)
        .json(&export)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Execution {
    pub id: String,
    pub observation_id: String,
    pub status: String,
    pub attempts: i32,
    pub error: Option<String>,
    pub execution_trace_id: Option<String>,
}

pub(crate) async fn executions(pool: &PgPool, rule: &str) -> Vec<Execution> {
    sqlx::query_as(
        "SELECT id, observation_id, status, attempts, error, execution_trace_id FROM evaluation_executions
         WHERE rule_id = $1 ORDER BY observation_id",
    )
    .bind(rule)
    .fetch_all(pool)
    .await
    .unwrap()
}

/// Waits until `done` holds for the rule's executions; fails after `limit` with what there is.
pub(crate) async fn until(
    pool: &PgPool,
    rule: &str,
    limit: Duration,
    worker: &App,
    done: impl Fn(&[Execution]) -> bool,
) -> Vec<Execution> {
    let deadline = Instant::now() + limit;
    loop {
        let found = executions(pool, rule).await;
        if done(&found) {
            return found;
        }
        assert!(Instant::now() < deadline, "executions never settled: {found:?}\n{}", worker.log_tail());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

pub(crate) fn settled(found: &[Execution], n: usize) -> bool {
    found.len() == n && found.iter().all(|e| e.status == "completed" || e.status == "error")
}

#[tokio::test]
async fn matching_spans_get_eval_scores_with_retries_errors_and_a_time_range_run() {
    let stub = LlmStub::start().await;
    let limited = Arc::new(AtomicBool::new(false));
    let once = limited.clone();
    stub.respond_with(move |request| {
        let body = request.body_text();
        if body.contains("case-500") {
            StubReply::ServerError
        } else if body.contains("case-429") && !once.swap(true, Ordering::SeqCst) {
            StubReply::RateLimited { retry_after_secs: 1 }
        } else {
            StubReply::json(json!({"score": 0.9, "reasoning": "The answer is helpful"}))
        }
    });
    let (api, worker) = start(&[]).await;
    let pool = api.stack.pg.pool().await;
    connect(&api, &stub).await;
    let judge = evaluator(&api, "Helpfulness").await;
    let filter =
        json!([{"type": "stringOptions", "column": "name", "operator": "any of", "value": ["judge-me"]}]);
    let live = rule(&api, json!({"name": "live", "enabled": true, "filter": filter, "evaluatorAssignments": [{"evaluatorId": judge}]})).await;
    let never = rule(&api, json!({"name": "never", "enabled": true, "sampling": 0, "evaluatorAssignments": [{"evaluatorId": judge}]})).await;

    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    send_spans(
        &api,
        trace,
        &[
            ("00000000000000a1", "judge-me", "case-ok"),
            ("00000000000000a2", "judge-me", "case-429"),
            ("00000000000000a3", "judge-me", "case-500"),
            ("00000000000000a4", "other", "case-ok"),
        ],
    )
    .await;
    let found = until(&pool, &live, Duration::from_secs(90), &worker, |f| settled(f, 3)).await;
    let (ok, limited_one, failing) = (&found[0], &found[1], &found[2]);
    assert_eq!((ok.status.as_str(), ok.attempts), ("completed", 1), "{found:?}");
    assert_eq!(
        (limited_one.status.as_str(), limited_one.attempts),
        ("completed", 2),
        "a 429 is retried: {found:?}"
    );
    assert_eq!(failing.status, "error", "{found:?}");
    assert_eq!(failing.attempts, 4, "a 500 is retried up to the attempt limit: {found:?}");
    assert!(
        failing.error.as_deref().unwrap().contains("The server had an error (stub)"),
        "the provider's message: {found:?}"
    );
    assert!(executions(&pool, &never).await.is_empty(), "sampling 0 never runs");

    // The score: on the observation, named after the evaluator, the reasoning as its comment,
    // linked to the judge's trace.
    let judge_trace = ok.execution_trace_id.clone().unwrap();
    assert_eq!(
        stored_score(&api, &ok.id).await,
        format!("Helpfulness|0.9|The answer is helpful|EVAL|{trace}|00000000000000a1|{judge_trace}")
    );
    // The variables came from the span: its input, and its output through the JSONPath.
    let prompts: Vec<String> = stub.requests().iter().map(|r| r.body_text()).collect();
    assert!(prompts.iter().any(|p| p.contains("Question: case-ok\\nAnswer: fine answer")), "{prompts:?}");
    // The judge call is traced into the project, in its own environment.
    let path = format!("/api/public/v2/observations?traceId={judge_trace}&fields=core,basic");
    let traced = api.until(&path, |b| b["data"].as_array().is_some_and(|d| !d.is_empty())).await;
    assert_eq!(traced["data"][0]["environment"], "langfuse-llm-as-a-judge", "{traced}");

    // A rule run once over existing data, with progress to completion; what the live rule
    // already scored for that rule is not scored twice, a new rule scores anew.
    let backfill = rule(&api, json!({"name": "backfill", "enabled": false, "filter": filter, "evaluatorAssignments": [{"evaluatorId": judge}]})).await;
    let range = json!({"fromTimestamp": (chrono::Utc::now() - chrono::Duration::hours(1)).to_rfc3339(),
                       "toTimestamp": (chrono::Utc::now() + chrono::Duration::minutes(1)).to_rfc3339()});
    let (status, run) = api
        .send(Method::POST, &format!("/api/public/v2/evaluation-rules/{backfill}/runs"), Some(&range))
        .await;
    assert_eq!(status, 200, "{run}");
    let run_path = format!("/api/public/v2/evaluation-rules/{backfill}/runs/{}", run["id"].as_str().unwrap());
    let done = api.until(&run_path, |r| r["status"] == "completed").await;
    assert_eq!(done["progress"], 1.0, "{done}");
    assert_eq!(
        (&done["executions"]["completed"], &done["executions"]["error"]),
        (&json!(2), &json!(1)),
        "{done}"
    );
    // Everything that started in the range was read (judge spans written meanwhile may add to it).
    assert!(
        done["total"].as_i64().unwrap() >= 4 && done["scanned"].as_i64() >= done["total"].as_i64(),
        "{done}"
    );
    let (status, bad) = api
        .send(Method::POST, &format!("/api/public/v2/evaluation-rules/{backfill}/runs"), Some(&json!({})))
        .await;
    assert_eq!(status, 400, "{bad}");
}

#[tokio::test]
async fn the_per_project_cap_holds_and_events_only_stops_trace_rules() {
    let stub = LlmStub::start().await;
    stub.set_default(StubReply::json(json!({"score": 1, "reasoning": "ok"})));
    let arrivals = Arc::new(Mutex::new(Vec::<Instant>::new()));
    let seen = arrivals.clone();
    stub.respond_with(move |_| {
        seen.lock().unwrap().push(Instant::now());
        StubReply::Hang(Duration::from_millis(1500))
    });
    let (api, worker) = start(&[("LANGFUSE_EVAL_MAX_CONCURRENCY_PER_PROJECT", "2")]).await;
    let log = std::fs::read_to_string(&worker.log).unwrap();
    assert!(log.contains("trace-level and dataset evaluation rules are stopped in events_only"), "{log}");
    let pool = api.stack.pg.pool().await;
    connect(&api, &stub).await;
    // No modelConfig: the project's default evaluation model, the connection's first custom model.
    let body = json!({"type": "llm_as_judge", "name": "Capped", "prompt": "Rate {{output}}",
                      "outputDefinition": {"dataType": "NUMERIC"}});
    let (status, created) = api.send(Method::POST, "/api/public/v2/evaluators", Some(&body)).await;
    assert_eq!(status, 200, "{created}");
    let judge = created["id"].as_str().unwrap().to_owned();
    let all =
        rule(&api, json!({"name": "all", "enabled": true, "evaluatorAssignments": [{"evaluatorId": judge}]}))
            .await;
    let spans: Vec<(String, String)> = (1..=6).map(|i| (format!("{i:016x}"), format!("s{i}"))).collect();
    let spans: Vec<(&str, &str, &str)> =
        spans.iter().map(|(id, name)| (id.as_str(), name.as_str(), "q")).collect();
    send_spans(&api, "5bf92f3577b34da6a3ce929d0e0e4736", &spans).await;
    until(&pool, &all, Duration::from_secs(90), &worker, |f| {
        f.len() == 6 && f.iter().all(|e| e.status == "completed")
    })
    .await;
    assert!(
        stub.requests().iter().all(|r| r.body["model"] == "judge-default"),
        "the default model was asked"
    );
    let arrivals = arrivals.lock().unwrap().clone();
    assert_eq!(arrivals.len(), 6);
    for at in &arrivals {
        let overlapping = arrivals
            .iter()
            .filter(|other| **other <= *at && at.duration_since(**other) < Duration::from_millis(1400))
            .count();
        assert!(overlapping <= 2, "more than 2 judge calls at once: {arrivals:?}");
    }
    // A trace-level rule is refused after the cutover.
    let trace_rule = json!({"name": "traces", "enabled": true, "target": "trace", "evaluatorAssignments": [{"evaluatorId": judge}]});
    let (status, body) = api.send(Method::POST, "/api/public/v2/evaluation-rules", Some(&trace_rule)).await;
    assert_eq!(status, 400, "{body}");
}

/// `name|value|comment|source|trace id|observation id|execution trace id` of a stored score, once
/// the worker has written it (read from ClickHouse: the score reads are gated by write mode).
pub(crate) async fn stored_score(api: &Api, id: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let found: Vec<String> = api
            .stack
            .ch
            .client()
            .query(
                "SELECT concat(name, '|', toString(value), '|', ifNull(comment, ''), '|', source, '|', ifNull(trace_id, ''), '|',
                        ifNull(observation_id, ''), '|', ifNull(execution_trace_id, '')) FROM scores WHERE id = ?",
            )
            .bind(id)
            .fetch_all()
            .await
            .unwrap();
        if let Some(score) = found.into_iter().next() {
            return score;
        }
        assert!(Instant::now() < deadline, "score {id} never stored");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn trace_rules_score_v3_traces_in_legacy_where_observation_rules_wait() {
    let stub = LlmStub::start().await;
    stub.set_default(StubReply::json(json!({"score": 0.5, "reasoning": "Half right"})));
    let (api, worker) = start(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy")]).await;
    let log = std::fs::read_to_string(&worker.log).unwrap();
    assert!(log.contains("trace-level and dataset rules run on the v3 tables"), "{log}");
    let pool = api.stack.pg.pool().await;
    connect(&api, &stub).await;
    let judge = evaluator(&api, "Trace quality").await;
    let filter = json!([{"type": "stringOptions", "column": "traceName", "operator": "any of", "value": ["checkout"]}]);
    let traces = rule(
        &api,
        json!({"name": "traces", "enabled": true, "target": "trace", "filter": filter,
                                    "evaluatorAssignments": [{"evaluatorId": judge}]}),
    )
    .await;
    let observations =
        rule(&api, json!({"name": "obs", "enabled": true, "evaluatorAssignments": [{"evaluatorId": judge}]}))
            .await;
    let (_, shown) =
        api.send(Method::GET, &format!("/api/public/v2/evaluation-rules/{observations}"), None).await;
    assert_eq!((&shown["enabled"], &shown["status"]), (&json!(false), &json!("inactive")), "{shown}");
    assert!(shown["inactiveReason"].as_str().unwrap().contains("legacy"), "{shown}");
    let (_, shown) = api.send(Method::GET, &format!("/api/public/v2/evaluation-rules/{traces}"), None).await;
    assert_eq!(
        (&shown["enabled"], &shown["status"], &shown["target"]),
        (&json!(true), &json!("active"), &json!("trace")),
        "{shown}"
    );

    let trace = "6bf92f3577b34da6a3ce929d0e0e4736";
    send_spans(&api, trace, &[("00000000000000b1", "checkout", "case-ok")]).await;
    let found = until(&pool, &traces, Duration::from_secs(60), &worker, |f| settled(f, 1)).await;
    assert_eq!(found[0].status, "completed", "{found:?}");
    assert_eq!(found[0].observation_id, trace, "a trace rule's object is the trace");
    let judge_trace = found[0].execution_trace_id.clone().unwrap();
    assert_eq!(
        stored_score(&api, &found[0].id).await,
        format!("Trace quality|0.5|Half right|EVAL|{trace}||{judge_trace}"),
        "a trace score, no observation"
    );
    assert!(executions(&pool, &observations).await.is_empty(), "observation rules do not run in legacy");

    // A dataset rule: a run item of the dataset is judged on its trace, with the item's
    // expected output in the prompt.
    let (status, dataset) =
        api.send(Method::POST, "/api/public/v2/datasets", Some(&json!({"name": "qa"}))).await;
    assert_eq!(status, 200, "{dataset}");
    let item = json!({"datasetName": "qa", "id": "item-1", "input": "2+2", "expectedOutput": "four"});
    let (status, body) = api.send(Method::POST, "/api/public/dataset-items", Some(&item)).await;
    assert_eq!(status, 200, "{body}");
    let body = json!({"type": "llm_as_judge", "name": "Matches", "prompt": "Expected {{expected_output}}, got {{output}}",
                      "modelConfig": {"provider": "stub", "model": "judge-1"}, "outputDefinition": {"dataType": "BOOLEAN"}});
    let (status, matcher) = api.send(Method::POST, "/api/public/v2/evaluators", Some(&body)).await;
    assert_eq!(status, 200, "{matcher}");
    stub.set_default(StubReply::json(json!({"score": true, "reasoning": "Same answer"})));
    let by_dataset = json!([{"type": "stringOptions", "column": "datasetId", "operator": "any of", "value": [dataset["id"]]}]);
    let datasets = rule(
        &api,
        json!({"name": "datasets", "enabled": true, "target": "dataset", "filter": by_dataset,
                                      "evaluatorAssignments": [{"evaluatorId": matcher["id"]}]}),
    )
    .await;
    let run_item = json!({"runName": "run-1", "datasetItemId": "item-1", "traceId": trace});
    let (status, body) = api.send(Method::POST, "/api/public/dataset-run-items", Some(&run_item)).await;
    assert_eq!(status, 200, "{body}");
    let found = until(&pool, &datasets, Duration::from_secs(60), &worker, |f| settled(f, 1)).await;
    assert_eq!(found[0].status, "completed", "{found:?}");
    let judge_trace = found[0].execution_trace_id.clone().unwrap();
    assert_eq!(
        stored_score(&api, &found[0].id).await,
        format!("Matches|1|Same answer|EVAL|{trace}||{judge_trace}")
    );
    let prompts: Vec<String> = stub.requests().iter().map(|r| r.body_text()).collect();
    assert!(prompts.iter().any(|p| p.contains("Expected four, got")), "{prompts:?}");
}
