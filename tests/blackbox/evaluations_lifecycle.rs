//! The evaluation engine's lifecycle against the loopback LLM stub: a deleted LLM connection
//! pauses its evaluators (and the rules that only run them) until one exists again, and those on
//! the project's default model while no connection has a custom model; legacy-SDK
//! generations in `dual` are judged once propagation brings them into the events; a rule's delay;
//! a provider that never answers; two workers racing for the same executions.

use std::time::{Duration, Instant};

use chrono::{SecondsFormat, Utc};
use reqwest::Method;
use serde_json::{Value, json};
use sqlx::PgPool;
use test_support::llm_stub::{LlmStub, StubReply};
use tokio_util::sync::CancellationToken;

use crate::api::Api;
use crate::apps::App;
use crate::evaluations::{
    connect, evaluator, executions, rule, send_spans, settled, start, stored_score, until,
};

fn only(names: &[&str]) -> Value {
    json!([{"type": "stringOptions", "column": "name", "operator": "any of", "value": names}])
}

async fn get(api: &Api, path: &str) -> Value {
    let (status, body) = api.send(Method::GET, path, None).await;
    assert_eq!(status, 200, "{path}: {body}");
    body
}

/// A matching span's execution, recorded while its evaluator is paused, stays pending and
/// unattempted for 3 s, and no provider is called.
async fn waits_uncalled(pool: &PgPool, rule: &str, worker: &App, stub: &LlmStub) {
    until(pool, rule, Duration::from_secs(60), worker, |f| f.len() == 1).await;
    let due_since = Instant::now();
    while due_since.elapsed() < Duration::from_secs(3) {
        let found = executions(pool, rule).await;
        assert_eq!((found[0].status.as_str(), found[0].attempts), ("pending", 0), "{found:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(stub.requests().is_empty(), "a paused evaluator called a provider");
}

/// Saving a connection with the stub's custom model resumes the evaluator and its rule, and the
/// waiting execution is judged once.
async fn resumes_and_judges(api: &Api, stub: &LlmStub, pool: &PgPool, worker: &App, judge: &str, rule: &str) {
    connect(api, stub).await;
    let resumed = get(api, &format!("/api/public/v2/evaluators/{judge}")).await;
    assert_eq!((&resumed["status"], &resumed["pausedReason"]), (&json!("active"), &Value::Null), "{resumed}");
    let shown = get(api, &format!("/api/public/v2/evaluation-rules/{rule}")).await;
    assert_eq!(shown["status"], "active", "{shown}");
    let found = until(pool, rule, Duration::from_secs(60), worker, |f| settled(f, 1)).await;
    assert_eq!((found[0].status.as_str(), found[0].attempts), ("completed", 1), "{found:?}");
}

#[tokio::test]
async fn deleting_a_connection_pauses_its_evaluators_until_one_is_saved_again() {
    let stub = LlmStub::start().await;
    stub.set_default(StubReply::json(json!({"score": 1, "reasoning": "Good"})));
    let (api, worker) = start(&[]).await;
    let pool = api.stack.pg.pool().await;
    connect(&api, &stub).await;
    let judge = evaluator(&api, "Helpfulness").await;
    // An evaluator of another provider is not touched by this connection's deletion.
    let body = json!({"type": "llm_as_judge", "name": "Elsewhere", "prompt": "Rate {{output}}",
                      "modelConfig": {"provider": "another", "model": "m"}, "outputDefinition": {"dataType": "NUMERIC"}});
    let (status, elsewhere) = api.send(Method::POST, "/api/public/v2/evaluators", Some(&body)).await;
    assert_eq!(status, 200, "{elsewhere}");
    let live = rule(
        &api,
        json!({"name": "live", "enabled": true, "filter": only(&["judge-me"]),
                                 "evaluatorAssignments": [{"evaluatorId": judge}]}),
    )
    .await;

    let connections = get(&api, "/api/public/llm-connections").await;
    let id = connections["data"][0]["id"].as_str().unwrap().to_owned();
    let (status, body) = api.send(Method::DELETE, &format!("/api/public/llm-connections/{id}"), None).await;
    assert_eq!(status, 200, "{body}");

    let paused = get(&api, &format!("/api/public/v2/evaluators/{judge}")).await;
    assert_eq!(
        (&paused["status"], &paused["pausedReason"]),
        (&json!("paused"), &json!("llm_connection_deleted"))
    );
    assert!(paused["pausedAt"].is_string(), "{paused}");
    assert!(paused["pausedMessage"].as_str().unwrap().contains("\"stub\""), "{paused}");
    let other = get(&api, &format!("/api/public/v2/evaluators/{}", elsewhere["id"].as_str().unwrap())).await;
    assert_eq!(other["status"], "active", "{other}");
    let shown = get(&api, &format!("/api/public/v2/evaluation-rules/{live}")).await;
    assert_eq!((&shown["status"], &shown["enabled"]), (&json!("paused"), &json!(true)), "{shown}");
    assert!(shown["inactiveReason"].as_str().unwrap().contains("paused"), "{shown}");

    // A matching span while paused: its execution is recorded and waits, never called.
    send_spans(&api, "7bf92f3577b34da6a3ce929d0e0e4736", &[("00000000000000c1", "judge-me", "case-ok")])
        .await;
    waits_uncalled(&pool, &live, &worker, &stub).await;

    // A connection for the provider again: the evaluator and the rule resume, the span is judged.
    resumes_and_judges(&api, &stub, &pool, &worker, &judge, &live).await;
}

#[tokio::test]
async fn evaluators_on_the_default_model_pause_while_no_connection_has_a_custom_model() {
    let stub = LlmStub::start().await;
    stub.set_default(StubReply::json(json!({"score": 1, "reasoning": "Good"})));
    let (api, worker) = start(&[]).await;
    let pool = api.stack.pg.pool().await;
    connect(&api, &stub).await;
    // A connection without custom models cannot serve the default model, so it keeps nothing going.
    let plain = json!({"provider": "plain", "adapter": "openai", "secretKey": "sk-test",
                       "baseURL": stub.openai_base_url()});
    let (status, body) = api.send(Method::PUT, "/api/public/llm-connections", Some(&plain)).await;
    assert_eq!(status, 201, "{body}");
    let body = json!({"type": "llm_as_judge", "name": "Default", "prompt": "Rate {{output}}",
                      "outputDefinition": {"dataType": "NUMERIC"}});
    let (status, created) = api.send(Method::POST, "/api/public/v2/evaluators", Some(&body)).await;
    assert_eq!(status, 200, "{created}");
    let judge = created["id"].as_str().unwrap().to_owned();
    let live = rule(
        &api,
        json!({"name": "default", "enabled": true, "filter": only(&["judge-by-default"]),
               "evaluatorAssignments": [{"evaluatorId": judge}]}),
    )
    .await;

    let connections = get(&api, "/api/public/llm-connections").await;
    let data = connections["data"].as_array().unwrap();
    let stub_connection = data.iter().find(|c| c["provider"] == "stub").unwrap()["id"].as_str().unwrap();
    let (status, body) =
        api.send(Method::DELETE, &format!("/api/public/llm-connections/{stub_connection}"), None).await;
    assert_eq!(status, 200, "{body}");
    let paused = get(&api, &format!("/api/public/v2/evaluators/{judge}")).await;
    assert_eq!(
        (&paused["status"], &paused["pausedReason"]),
        (&json!("paused"), &json!("llm_connection_deleted")),
        "{paused}"
    );
    assert!(paused["pausedMessage"].as_str().unwrap().contains("customModels"), "{paused}");
    let shown = get(&api, &format!("/api/public/v2/evaluation-rules/{live}")).await;
    assert_eq!(shown["status"], "paused", "{shown}");
    // Saving the connection that has no custom model changes nothing.
    let (status, body) = api.send(Method::PUT, "/api/public/llm-connections", Some(&plain)).await;
    assert_eq!(status, 200, "{body}");
    let still = get(&api, &format!("/api/public/v2/evaluators/{judge}")).await;
    assert_eq!(still["status"], "paused", "{still}");

    // A matching span while paused waits uncalled instead of ending in error.
    send_spans(&api, "8bf92f3577b34da6a3ce929d0e0e4736", &[("00000000000000d1", "judge-by-default", "q")])
        .await;
    waits_uncalled(&pool, &live, &worker, &stub).await;

    // A connection with a custom model again: resumed, and judged by that model.
    resumes_and_judges(&api, &stub, &pool, &worker, &judge, &live).await;
    assert!(
        stub.requests().iter().all(|r| r.body["model"] == "judge-default"),
        "the default model was asked"
    );
}

/// Runs the propagation job's copy now (the deployment waits at least 4 minutes for a partition
/// to close), until the staged generation `id` is in `events_full`.
async fn propagate(api: &Api, id: &str) {
    let propagation = migration::propagation::Propagation {
        clickhouse: storage::clickhouse::ClickHouse::connect(&api.stack.ch.settings()),
        postgres: api.stack.pg.pool().await,
        settings: domain::config::PropagationSettings {
            partition_delay: Duration::ZERO,
            interval: Duration::from_secs(1),
            exclude_project_ids: Vec::new(),
            max_insert_threads: 1,
        },
        write_mode: domain::config::WriteMode::Dual,
        holder: "blackbox".into(),
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        // The worker's own job may hold the lease for a moment: then try again.
        propagation.run_once(&CancellationToken::new()).await.unwrap();
        let copied: u64 = api
            .stack
            .ch
            .client()
            .query("SELECT count() FROM events_full WHERE span_id = ?")
            .bind(id)
            .fetch_one()
            .await
            .unwrap();
        if copied > 0 {
            return;
        }
        assert!(Instant::now() < deadline, "{id} never propagated");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[tokio::test]
async fn dual_mode_judges_legacy_sdk_generations_once_they_are_propagated() {
    let stub = LlmStub::start().await;
    stub.set_default(StubReply::json(json!({"score": 0.7, "reasoning": "Mostly right"})));
    let (api, worker) = start(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual")]).await;
    let pool = api.stack.pg.pool().await;
    connect(&api, &stub).await;
    let judge = evaluator(&api, "Legacy quality").await;
    let live = rule(
        &api,
        json!({"name": "legacy", "enabled": true, "filter": only(&["legacy-gen"]),
                                 "evaluatorAssignments": [{"evaluatorId": judge}]}),
    )
    .await;

    // A legacy SDK's batch: the generation goes to the v3 tables and the staging table.
    let now = Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true);
    let batch = json!({"batch": [
        {"id": "e-trace", "type": "trace-create", "timestamp": now, "body": {"id": "t-legacy", "name": "legacy"}},
        {"id": "e-gen", "type": "generation-create", "timestamp": now,
         "body": {"id": "gen-legacy-1", "traceId": "t-legacy", "name": "legacy-gen", "startTime": now,
                  "input": "case-legacy", "output": {"text": "fine answer"}}},
    ]});
    let (status, body) = api.send(Method::POST, "/api/public/ingestion", Some(&batch)).await;
    assert_eq!(status, 207, "{body}");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let staged: u64 = api
            .stack
            .ch
            .client()
            .query("SELECT count() FROM observations_batch_staging WHERE id = 'gen-legacy-1'")
            .fetch_one()
            .await
            .unwrap();
        if staged > 0 {
            break;
        }
        assert!(Instant::now() < deadline, "never staged\n{}", worker.log_tail());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Not in the events yet, so not judged yet: the live follower passes it by.
    assert!(executions(&pool, &live).await.is_empty());
    propagate(&api, "gen-legacy-1").await;

    let found = until(&pool, &live, Duration::from_secs(60), &worker, |f| settled(f, 1)).await;
    assert_eq!((found[0].observation_id.as_str(), found[0].status.as_str()), ("gen-legacy-1", "completed"));
    let judge_trace = found[0].execution_trace_id.clone().unwrap();
    assert_eq!(
        stored_score(&api, &found[0].id).await,
        format!("Legacy quality|0.7|Mostly right|EVAL|t-legacy|gen-legacy-1|{judge_trace}")
    );

    // A time-range run of the same rule over that data finds it judged already: once, in all.
    let range = json!({"fromTimestamp": (Utc::now() - chrono::Duration::hours(1)).to_rfc3339(),
                       "toTimestamp": (Utc::now() + chrono::Duration::minutes(1)).to_rfc3339()});
    let (status, run) =
        api.send(Method::POST, &format!("/api/public/v2/evaluation-rules/{live}/runs"), Some(&range)).await;
    assert_eq!(status, 200, "{run}");
    let run_path = format!("/api/public/v2/evaluation-rules/{live}/runs/{}", run["id"].as_str().unwrap());
    api.until(&run_path, |r| r["status"] == "completed").await;
    assert_eq!(executions(&pool, &live).await.len(), 1);
    let asked = stub.requests().iter().filter(|r| r.body_text().contains("case-legacy")).count();
    assert_eq!(asked, 1, "the legacy generation was judged more than once");
}

/// `(started − created, not_before − created)` of an execution, in seconds.
async fn waited(pool: &PgPool, id: &str) -> (f64, f64) {
    sqlx::query_as(
        "SELECT extract(epoch FROM started_at - created_at)::float8, extract(epoch FROM not_before - created_at)::float8
         FROM evaluation_executions WHERE id = $1",
    )
    .bind(id)
    .fetch_one(pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_delayed_rule_waits_and_a_provider_that_never_answers_ends_in_error() {
    let stub = LlmStub::start().await;
    stub.respond_with(|request| {
        if request.body_text().contains("case-hang") {
            StubReply::Hang(Duration::from_secs(5))
        } else {
            StubReply::json(json!({"score": 1, "reasoning": "Fine"}))
        }
    });
    let (api, worker) = start(&[("LANGFUSE_EVAL_LLM_TIMEOUT_SECONDS", "1")]).await;
    let pool = api.stack.pg.pool().await;
    connect(&api, &stub).await;
    let judge = evaluator(&api, "Helpfulness").await;
    let delayed = rule(
        &api,
        json!({"name": "delayed", "enabled": true, "delaySeconds": 4, "filter": only(&["later"]),
                                    "evaluatorAssignments": [{"evaluatorId": judge}]}),
    )
    .await;
    let hanging = rule(
        &api,
        json!({"name": "hanging", "enabled": true, "filter": only(&["hangs"]),
                                    "evaluatorAssignments": [{"evaluatorId": judge}]}),
    )
    .await;
    send_spans(
        &api,
        "8bf92f3577b34da6a3ce929d0e0e4736",
        &[("00000000000000d1", "later", "case-later"), ("00000000000000d2", "hangs", "case-hang")],
    )
    .await;

    // The delay: recorded at once, due 4 s later, judged after that and not before.
    let found = until(&pool, &delayed, Duration::from_secs(60), &worker, |f| settled(f, 1)).await;
    assert_eq!(found[0].status, "completed", "{found:?}");
    let (started_after, due_after) = waited(&pool, &found[0].id).await;
    assert!((3.9..5.0).contains(&due_after), "due {due_after} s after it was recorded");
    assert!(started_after >= 4.0, "judged {started_after} s after it was recorded, before its 4 s delay");

    // The hanging provider: each call times out after 1 s, retried with backoff, then an error
    // that says what happened.
    let found = until(&pool, &hanging, Duration::from_secs(90), &worker, |f| settled(f, 1)).await;
    assert_eq!((found[0].status.as_str(), found[0].attempts), ("error", 4), "{found:?}");
    let error = found[0].error.clone().unwrap();
    assert!(error.contains("unavailable") && error.contains("no reply within 1 s"), "{error}");
    let calls = stub.requests().iter().filter(|r| r.body_text().contains("case-hang")).count();
    assert_eq!(calls, 4, "one call per attempt");
}

#[tokio::test]
async fn two_workers_racing_judge_each_execution_once() {
    let stub = LlmStub::start().await;
    // Slow answers keep executions in flight while the other worker looks for work.
    stub.respond_with(|_| StubReply::Hang(Duration::from_millis(300)));
    stub.set_default(StubReply::json(json!({"score": 1, "reasoning": "Fine"})));
    let (api, first) = start(&[("LANGFUSE_EVAL_MAX_CONCURRENCY_PER_PROJECT", "6")]).await;
    let second = api.worker().await;
    let pool = api.stack.pg.pool().await;
    connect(&api, &stub).await;
    let judge = evaluator(&api, "Helpfulness").await;
    let all = rule(
        &api,
        json!({"name": "all", "enabled": true, "filter": only(&["raced"]),
                                "evaluatorAssignments": [{"evaluatorId": judge}]}),
    )
    .await;
    let ids: Vec<String> = (1..=24).map(|i| format!("{:016x}", 0xe00 + i)).collect();
    let spans: Vec<(&str, &str, &str)> = ids.iter().map(|id| (id.as_str(), "raced", id.as_str())).collect();
    send_spans(&api, "9bf92f3577b34da6a3ce929d0e0e4736", &spans).await;
    let found = until(&pool, &all, Duration::from_secs(120), &first, |f| {
        f.len() == 24 && f.iter().all(|e| e.status == "completed")
    })
    .await;
    assert!(found.iter().all(|e| e.attempts == 1), "an execution was claimed twice: {found:?}");
    for id in &ids {
        let calls =
            stub.requests().iter().filter(|r| r.body_text().contains(&format!("Question: {id}\\n"))).count();
        assert_eq!(calls, 1, "span {id} was judged {calls} times\n{}", second.log_tail());
    }
}
