//! The real Langfuse JS SDK from npm (`langfuse` 3.x, installed by `just test` into
//! `tests/e2e/js`): prompts, a dataset run linked to a trace, the legacy reads of traces,
//! observations and sessions, and the cost and prompt link the worker adds to a generation that
//! reported usage only.

use serde_json::json;

use crate::api::Api;
use crate::apps::run_client;

#[tokio::test]
async fn js_sdk_uses_prompts_datasets_and_gets_costs() {
    let api = Api::start(&[
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual"),
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
    ])
    .await;
    let _worker = api.worker().await;
    let seen = run_client("sdk_resources.mjs", &api.web).await;
    assert_eq!(seen["text"], "Hello Ada");
    assert_eq!(seen["textConfig"], json!({"temperature": 0}));
    assert_eq!(seen["chat"], json!([{"role": "system", "content": "Be brief"}]));
    assert_eq!(seen["datasetItems"], 1);
    assert_eq!(seen["runName"], "js-run");
    assert_eq!(seen["runItems"], json!([{"datasetItemId": "js-item-1", "traceId": seen["traceId"]}]));
    // The legacy reads, through the SDK's fetch methods.
    assert_eq!(
        seen["fetchedTrace"],
        json!({"name": "js-run-trace", "sessionId": "js-session", "observations": ["js-generation"]})
    );
    assert_eq!(seen["fetchedObservations"], json!(["js-generation"]));
    assert_eq!(
        seen["fetchedGeneration"],
        json!({"model": "gpt-4o-mini", "promptName": "js/greet", "promptVersion": 1})
    );
    assert_eq!(seen["sessions"], json!(["js-session"]));

    // The generation sent usage only: the worker priced it and linked the prompt it named.
    let generation =
        api.until("/api/public/observations/js-generation", |body| body["promptId"].is_string()).await;
    assert_eq!(generation["promptId"], seen["textId"]);
    assert_eq!(generation["modelId"], "builtin-gpt-4o-mini");
    let cost = generation["calculatedTotalCost"].as_f64().unwrap();
    assert!((cost - (1000.0 * 1.5e-7 + 500.0 * 6e-7)).abs() < 1e-12, "{generation}");
}
