//! The real Python SDK 5.0.4 from PyPI over datasets: items and their versions, an experiment run
//! with its OTLP traces processed by the worker in `dual` mode, read back as the dataset run the
//! worker records from its spans and through the v4 experiments API, and a run linked by hand.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::api::Api;
use crate::apps::run_client;

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
        ("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN", "true"),
    ])
    .await;
    let _worker = api.worker().await;

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
    let experiment_id = seen["experiment_id"].as_str().unwrap();

    // The run the server recorded from the experiment's spans: the SDK's experiment id, its run
    // name, description and metadata, one item per dataset item, each at the item's root span.
    let run = &seen["run"];
    assert_eq!(run["id"], experiment_id, "the run id is the experiment id the SDK derived");
    assert_eq!(
        (run["name"].clone(), run["description"].clone(), run["dataset_name"].clone()),
        (json!("sdk-run"), json!("capitals by lookup"), json!("sdk/capitals"))
    );
    assert_eq!(run["metadata"]["model"], "lookup", "{run}");
    assert_eq!(run["trace_ids"], seen["trace_ids"]);
    assert_eq!(run["item_ids"], json!(["france", "italy"]));
    let roots: Vec<&str> =
        run["observation_ids"].as_array().unwrap().iter().map(|id| id.as_str().unwrap()).collect();
    assert!(roots.iter().all(|id| id.len() == 16), "linked at the item root spans: {run}");

    // The same experiment through the v4 experiments API, from the events written directly.
    let experiment = &seen["experiment"];
    assert_eq!(
        (experiment["id"].as_str(), experiment["name"].as_str(), experiment["item_count"].as_i64()),
        (Some(experiment_id), Some("sdk-run"), Some(2))
    );
    assert_eq!(experiment["description"], "capitals by lookup");
    assert_eq!(experiment["dataset_id"], seen["dataset_id"]);
    assert_eq!(experiment["metadata"]["model"], "lookup", "{experiment}");
    let items = seen["experiment_items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{items:?}");
    for (item, expected) in items.iter().zip(["france", "italy"]) {
        assert_eq!(item[0], expected);
        assert!(seen["trace_ids"].as_array().unwrap().contains(&item[1]), "{item}");
        assert!(roots.contains(&item[2].as_str().unwrap()), "the item is its root span: {item}");
        assert_eq!(item[3], seen["dataset_id"]);
    }

    // A run linked by hand gets the same kind of stable id.
    let by_hand = &seen["by_hand"];
    assert_eq!(by_hand["id"], by_hand["derived_id"]);
    assert_eq!(seen["linked_run_ids"], json!([by_hand["id"]]), "both items joined one run");
    assert_eq!(by_hand["description"], "from the SDK");
    assert_eq!(by_hand["trace_ids"], seen["trace_ids"]);
    assert_eq!(seen["runs"], json!(["by-hand", "sdk-run"]), "newest run first");
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
        .query(
            "SELECT trace_id, dataset_run_name FROM dataset_run_items_rmt FINAL \
             WHERE project_id = 'project-blackbox' AND dataset_run_name = 'sdk-run' ORDER BY trace_id",
        )
        .fetch_all()
        .await
        .unwrap();
    let expected: Vec<(String, String)> =
        trace_ids.iter().map(|id| (id.as_str().unwrap().to_owned(), "sdk-run".to_owned())).collect();
    assert_eq!(rows, expected, "every run item is in ClickHouse for the v4 backfill");
}
