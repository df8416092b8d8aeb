//! Issue 17, SDK parity through the real SDKs 5 (Python from PyPI, JS from npm): usage detail keys
//! kept as sent and priced per key, one dataset run item per (run, item, trace) when the JS
//! experiment runner both posts the run item and marks its spans, and media reference paths in the
//! normalized JSONPath form the SDKs parse. Written in `dual`, so every read API is checked: the
//! v2 observations over the events and the v1 reads over the v3 tables.

use reqwest::Method;
use serde_json::{Value, json};

use crate::api::Api;
use crate::apps::run_client;

async fn start() -> Api {
    Api::start(&[
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual"),
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
    ])
    .await
}

/// A model priced per OpenAI-style usage key, created before the worker loads its prices.
async fn model_priced_by_openai_keys(api: &Api, name: &str) {
    let model = json!({
        "modelName": name, "matchPattern": format!("(?i)^{name}$"),
        "pricingTiers": [{"name": "Standard", "isDefault": true, "priority": 0, "conditions": [],
                          "prices": {"prompt_tokens": 0.001, "completion_tokens": 0.002}}],
    });
    api.expect(200, Method::POST, "/api/public/models", Some(&model)).await;
}

/// The observation in both read APIs, once the worker wrote it: (v2 over the events, v1 over the
/// v3 tables).
async fn both_reads(api: &Api, trace_id: &str, id: &str) -> (Value, Value) {
    let query = format!("/api/public/v2/observations?traceId={trace_id}&fields=core,usage,model");
    let listed = api.until(&query, |body| body["data"].as_array().is_some_and(|rows| !rows.is_empty())).await;
    let v2 = listed["data"].as_array().unwrap().iter().find(|row| row["id"] == id).cloned();
    let v1 = api.until(&format!("/api/public/observations/{id}"), |_| true).await;
    (v2.unwrap_or_else(|| panic!("{id} not in {listed}")), v1)
}

fn close(value: &Value, expected: f64) -> bool {
    value.as_f64().is_some_and(|v| (v - expected).abs() < 1e-9)
}

#[tokio::test]
async fn js_sdk5_keeps_usage_keys_links_each_experiment_item_once_and_hydrates_media() {
    let api = start().await;
    model_priced_by_openai_keys(&api, "js-parity-model").await;
    let worker = api.worker().await;
    let seen = run_client("sdk5_parity.mjs", &api.web).await;
    worker.drained().await;

    // Item 4: keys as sent, `total` added (the sum of every count), cost per key from the model.
    let generation = &seen["generation"];
    let (v2, v1) =
        both_reads(&api, generation["traceId"].as_str().unwrap(), generation["id"].as_str().unwrap()).await;
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 5, "cached_reads": 2, "total": 17});
    assert_eq!(v2["usageDetails"], usage, "{v2}");
    assert_eq!(v1["usageDetails"], usage, "{v1}");
    for (read, body) in [("v2", &v2), ("v1", &v1)] {
        let costs = &body["costDetails"];
        assert!(
            close(&costs["prompt_tokens"], 0.01) && close(&costs["completion_tokens"], 0.01),
            "{read}: {body}"
        );
        assert!(close(&costs["total"], 0.02) && costs.get("cached_reads").is_none(), "{read}: {body}");
    }
    assert!(close(&v1["calculatedTotalCost"], 0.02), "{v1}");

    // Item 5: the runner posted each run item and marked the spans the worker links; after the
    // worker wrote every span (drained), still one run item per item, on the runner's traces.
    let experiment = &seen["experiment"];
    let dataset = api.expect(200, Method::GET, "/api/public/v2/datasets/js-exp", None).await;
    let dataset_id = dataset["id"].as_str().unwrap();
    let listed = api
        .expect(
            200,
            Method::GET,
            &format!("/api/public/dataset-run-items?datasetId={dataset_id}&runName=js-exp-run"),
            None,
        )
        .await;
    let mut linked: Vec<(Value, Value)> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["datasetItemId"].clone(), i["traceId"].clone()))
        .collect();
    linked.sort_by_key(|(item, _)| item.to_string());
    let mut expected: Vec<(Value, Value)> = experiment["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["datasetItemId"].clone(), i["traceId"].clone()))
        .collect();
    expected.sort_by_key(|(item, _)| item.to_string());
    assert_eq!(linked, expected, "{listed}");
    assert_eq!(listed["meta"]["totalItems"], 2, "{listed}");
    let run = api.expect(200, Method::GET, "/api/public/datasets/js-exp/runs/js-exp-run", None).await;
    assert_eq!(run["id"], experiment["datasetRunId"]);
    assert_eq!(run["datasetRunItems"].as_array().map(Vec::len), Some(2), "{run}");

    // Item 6: the normalized path, which the SDK followed to put the media back.
    assert_eq!(
        seen["media"],
        json!({"jsonPaths": [["input", "$['gallery'][0]"]], "hydrated": true, "sameBytes": true, "caption": "a picture"}),
        "{seen}"
    );
}

#[tokio::test]
async fn python_sdk5_keeps_usage_keys_and_hydrates_dataset_media() {
    let api = start().await;
    model_priced_by_openai_keys(&api, "py-parity-model").await;
    let worker = api.worker().await;
    let seen = run_client("sdk5_parity.py", &api.web).await;
    worker.drained().await;

    let generations = &seen["generations"];
    let read = |name: &str| {
        let g = &generations[name];
        (g["trace_id"].as_str().unwrap().to_owned(), g["id"].as_str().unwrap().to_owned())
    };
    let (trace, id) = read("as_sent");
    let (v2, v1) = both_reads(&api, &trace, &id).await;
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 5, "total": 15});
    assert_eq!((&v2["usageDetails"], &v1["usageDetails"]), (&usage, &usage), "{v2}\n{v1}");
    assert!(
        close(&v2["costDetails"]["total"], 0.02) && close(&v1["calculatedTotalCost"], 0.02),
        "{v2}\n{v1}"
    );
    // The complete OpenAI usage object is what upstream maps to input/output/total; the model has
    // no price for those keys, so no cost.
    let (trace, id) = read("openai_object");
    let (v2, v1) = both_reads(&api, &trace, &id).await;
    let usage = json!({"input": 7, "output": 3, "total": 10});
    assert_eq!((&v2["usageDetails"], &v1["usageDetails"]), (&usage, &usage), "{v2}\n{v1}");
    assert_eq!(v2["costDetails"], json!({}), "{v2}");

    assert_eq!(
        seen["media"],
        json!({"json_paths": [["input", "$['gallery'][0]"]], "hydrated": true, "same_bytes": true, "caption": "a picture"}),
        "{seen}"
    );
}

/// The other order of issue 17's item 5: the worker records the run item from the experiment
/// spans first, then the SDK posts it for the same trace; the POST answers the existing item.
#[tokio::test]
async fn a_run_item_posted_after_the_spans_were_linked_is_the_same_item() {
    let api = start().await;
    let worker = api.worker().await;
    let dataset =
        api.expect(200, Method::POST, "/api/public/v2/datasets", Some(&json!({"name": "order"}))).await;
    let dataset_id = dataset["id"].as_str().unwrap().to_owned();
    let item = json!({"datasetName": "order", "id": "order-1", "input": {"q": 1}});
    api.expect(200, Method::POST, "/api/public/dataset-items", Some(&item)).await;

    // The spans of an SDK 5 experiment item: its root span marked as the item's root.
    let (trace_id, span_id) = ("5b8efff798038103d269b633813fc60c", "eee19b7ec3c1b174");
    let start = chrono::Utc::now().timestamp_nanos_opt().unwrap();
    let text = |key: &str, value: &str| json!({"key": key, "value": {"stringValue": value}});
    let export = json!({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "langfuse-sdk"}, "spans": [{
        "traceId": trace_id, "spanId": span_id, "name": "experiment-item-run",
        "startTimeUnixNano": start.to_string(), "endTimeUnixNano": (start + 1_000_000).to_string(),
        "attributes": [
            text("langfuse.experiment.id", "exp-1"),
            text("langfuse.experiment.name", "order-run"),
            text("langfuse.experiment.dataset.id", &dataset_id),
            text("langfuse.experiment.item.id", "order-1"),
            text("langfuse.experiment.item.root_observation_id", span_id),
        ],
    }]}]}]});
    let response = crate::apps::http()
        .post(format!("{}/api/public/otel/v1/traces", api.web.base_url))
        .header("Authorization", &api.key)
        .json(&export)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    worker.drained().await;
    let list = format!("/api/public/dataset-run-items?datasetId={dataset_id}&runName=order-run");
    let recorded = api.until(&list, |body| body["meta"]["totalItems"] == 1).await;
    let recorded = &recorded["data"][0];
    assert_eq!((&recorded["traceId"], &recorded["observationId"]), (&json!(trace_id), &json!(span_id)));

    let posted = json!({"runName": "order-run", "datasetItemId": "order-1", "traceId": trace_id, "observationId": span_id});
    let answer = api.expect(200, Method::POST, "/api/public/dataset-run-items", Some(&posted)).await;
    assert_eq!(answer["id"], recorded["id"], "the item the worker recorded: {answer}");
    // Posted again (an SDK retry), still that one item.
    let again = api.expect(200, Method::POST, "/api/public/dataset-run-items", Some(&posted)).await;
    assert_eq!(again["id"], recorded["id"]);
    let listed = api.expect(200, Method::GET, &list, None).await;
    assert_eq!(listed["meta"]["totalItems"], 1, "{listed}");
}
