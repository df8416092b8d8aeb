//! The real Python SDK 5.0.4 from PyPI over datasets: items and their versions, an experiment run
//! with its OTLP traces processed by the worker in `dual` mode, and the run read back.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::api::Api;
use crate::apps::{App, free_port, run_client};

/// Polls the legacy trace read until the trace is there, with a deadline.
async fn wait_for_trace(api: &Api, trace_id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, trace) = api.send(Method::GET, &format!("/api/public/traces/{trace_id}"), None).await;
        if status == 200 {
            return trace;
        }
        assert!(
            Instant::now() < deadline,
            "trace {trace_id} never arrived: {status} {trace}\n{}",
            api.web.log_tail()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn python_sdk_runs_an_experiment_over_a_dataset() {
    let api = Api::start(&[
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual"),
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
    ])
    .await;
    let mut worker = App::spawn("worker", &api.stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;

    let seen = run_client("datasets.py", &api.web).await;

    assert_eq!(seen["description"], "capital cities");
    assert_eq!(seen["then"], json!(["Italy"]), "the dataset as it was at the first item's version");
    assert_eq!(
        seen["now"],
        json!(["France", "Italia"]),
        "the update is current; the archived item is left out"
    );
    assert_eq!(seen["updated_expected_output"], "Rome", "an upsert keeps the fields it does not send");
    assert_eq!(seen["item_versions_differ"], true);
    assert_eq!(seen["outputs"], json!(["Paris", "Rome"]));
    assert_eq!(seen["scores"], json!([1.0, 1.0]));
    let trace_ids = seen["trace_ids"].as_array().unwrap();
    assert_eq!(trace_ids.len(), 2);
    assert_eq!(seen["linked_run_ids"], json!([seen["run"]["id"]]), "both items joined one run");
    let run = &seen["run"];
    assert_eq!(
        (run["name"].clone(), run["description"].clone(), run["dataset_name"].clone()),
        (json!("sdk-run"), json!("from the SDK"), json!("sdk/capitals"))
    );
    assert_eq!(run["trace_ids"], seen["trace_ids"]);
    assert_eq!(run["item_ids"], json!(["france", "italy"]));
    assert!(run["metadata"]["experiment_id"].is_string(), "{run}");
    assert_eq!(seen["runs"], json!(["sdk-run"]));
    assert_eq!(seen["listed_run_items"], 2);

    // The run items point at the experiment's real traces, which the worker wrote to the v3 tables.
    for trace_id in trace_ids {
        let trace = wait_for_trace(&api, trace_id.as_str().unwrap()).await;
        assert_eq!(trace["name"], "experiment-item-run", "{trace}");
    }
    let rows: Vec<(String, String)> = api
        .stack
        .ch
        .client()
        .query("SELECT trace_id, dataset_run_name FROM dataset_run_items_rmt WHERE project_id = 'project-blackbox' ORDER BY trace_id")
        .fetch_all()
        .await
        .unwrap();
    let expected: Vec<(String, String)> =
        trace_ids.iter().map(|id| (id.as_str().unwrap().to_owned(), "sdk-run".to_owned())).collect();
    assert_eq!(rows, expected, "every run item is in ClickHouse for the v4 backfill");
}
