//! Model definitions and cost at ingestion: the built-in price table, a project's own definitions
//! (listed first, winning over built-ins, invisible to other projects), the API's 4xx, and costs
//! computed by the worker for generations that report usage only, over the legacy batch API and
//! OTLP alike, with provided costs left alone; and the prompt a generation names, linked by id.

use chrono::{SecondsFormat, Utc};
use reqwest::Method;
use serde_json::{Value, json};

use crate::api::Api;

#[tokio::test]
async fn built_in_and_own_definitions_through_the_api() {
    let api = Api::start(&[]).await;
    let listed = api.expect(200, Method::GET, "/api/public/models?limit=100", None).await;
    let built_in = listed["data"].as_array().unwrap();
    assert!(built_in.len() >= 20, "the built-in table: {}", built_in.len());
    let mini = built_in.iter().find(|m| m["modelName"] == "gpt-4o-mini").unwrap();
    assert_eq!(mini["isLangfuseManaged"], true);
    assert_eq!(mini["inputPrice"], 1.5e-7);
    assert_eq!(mini["prices"]["output"], json!({"price": 6e-7}));
    assert_eq!(mini["pricingTiers"][0]["isDefault"], true);

    let created = api
        .expect(
            200,
            Method::POST,
            "/api/public/models",
            Some(&json!({"modelName": "acme-large", "matchPattern": "(?i)^acme-large$", "unit": "TOKENS",
                          "inputPrice": 0.001, "outputPrice": 0.002, "startDate": "2024-01-01T00:00:00Z"})),
        )
        .await;
    let id = created["id"].as_str().unwrap();
    assert_eq!(created["isLangfuseManaged"], false);
    assert_eq!(created["startDate"], "2024-01-01T00:00:00.000Z");
    assert_eq!(created["prices"], json!({"input": {"price": 0.001}, "output": {"price": 0.002}}));
    let listed = api.expect(200, Method::GET, "/api/public/models?limit=1", None).await;
    assert_eq!(listed["data"][0]["id"], id, "own definitions come first");
    assert_eq!(listed["meta"]["totalItems"], built_in.len() + 1);
    let fetched = api.expect(200, Method::GET, &format!("/api/public/models/{id}"), None).await;
    assert_eq!(fetched, created);
    let tiered = api
        .expect(
            200,
            Method::POST,
            "/api/public/models",
            Some(&json!({"modelName": "acme-tiered", "matchPattern": "acme-tiered",
                          "pricingTiers": [{"name": "Standard", "isDefault": true, "priority": 0, "conditions": [],
                                            "prices": {"input": 0.5, "output_reasoning": 1.5}}]})),
        )
        .await;
    assert_eq!(tiered["prices"]["output_reasoning"], json!({"price": 1.5}));

    for (body, needle) in [
        (json!({"modelName": "x", "matchPattern": "(unclosed"}), "matchPattern"),
        (json!({"modelName": "", "matchPattern": "x"}), "modelName"),
        (json!({"modelName": "x", "matchPattern": "x", "totalPrice": 1, "inputPrice": 1}), "totalPrice"),
        (json!({"modelName": "x", "matchPattern": "x", "unit": "LITRES"}), "unit"),
        (json!({"modelName": "x", "matchPattern": "x", "inputPrice": -1}), "non-negative"),
        (
            json!({"modelName": "x", "matchPattern": "x", "pricingTiers": [{"name": "big", "isDefault": false, "priority": 1,
                    "conditions": [{"usageDetailPattern": "input", "operator": "gt", "value": 1000}], "prices": {"input": 1}}]}),
            "tier",
        ),
        (json!({"matchPattern": "x"}), "modelName"),
    ] {
        let refused = api.expect(400, Method::POST, "/api/public/models", Some(&body)).await;
        assert!(refused.to_string().contains(needle), "{body}: {refused}");
    }
    let refused = api
        .expect(400, Method::DELETE, &format!("/api/public/models/{}", mini["id"].as_str().unwrap()), None)
        .await;
    assert!(refused["message"].as_str().unwrap().contains("Built-in"), "{refused}");

    // Another project sees the built-ins but not our definition, and cannot delete it.
    let other = api.other_project().await;
    let (status, _) = api.send_as(&other, Method::GET, &format!("/api/public/models/{id}"), None).await;
    assert_eq!(status, 404);
    let (status, _) = api.send_as(&other, Method::DELETE, &format!("/api/public/models/{id}"), None).await;
    assert_eq!(status, 404);
    let (_, theirs) = api.send_as(&other, Method::GET, "/api/public/models?limit=100", None).await;
    assert_eq!(theirs["meta"]["totalItems"], built_in.len());

    let deleted = api.expect(200, Method::DELETE, &format!("/api/public/models/{id}"), None).await;
    assert_eq!(deleted["message"], "Model successfully deleted");
    api.expect(404, Method::GET, &format!("/api/public/models/{id}"), None).await;
    api.expect(404, Method::DELETE, &format!("/api/public/models/{id}"), None).await;
}

fn close(actual: &Value, expected: f64) -> bool {
    actual.as_f64().is_some_and(|a| (a - expected).abs() < 1e-12)
}

async fn observation(api: &Api, id: &str) -> Value {
    api.until(&format!("/api/public/observations/{id}"), |_| true).await
}

#[tokio::test]
async fn the_worker_prices_usage_only_generations_and_links_their_prompts() {
    let api = Api::start(&[
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual"),
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
    ])
    .await;
    // A project definition, created before the worker loads its prices.
    let own = json!({"modelName": "acme-large", "matchPattern": "(?i)^acme-large$", "inputPrice": 0.001, "outputPrice": 0.002});
    api.expect(200, Method::POST, "/api/public/models", Some(&own)).await;
    let prompt = json!({"name": "team/answer", "prompt": "Answer {{q}}"});
    let prompt_id =
        api.expect(201, Method::POST, "/api/public/v2/prompts", Some(&prompt)).await["id"].clone();
    let _worker = api.worker().await;

    let now = Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true);
    let generation = |id: &str, body: Value| {
        let mut body = body;
        body["id"] = json!(id);
        body["traceId"] = json!("t-cost");
        body["startTime"] = json!(now);
        json!({"id": format!("e-{id}"), "type": "generation-create", "timestamp": now, "body": body})
    };
    let batch = json!({"batch": [
        {"id": "e-trace", "type": "trace-create", "timestamp": now, "body": {"id": "t-cost", "name": "cost"}},
        generation("g-usage", json!({"model": "gpt-4o-mini", "usage": {"input": 1000, "output": 500}})),
        generation("g-own", json!({"model": "ACME-large", "usageDetails": {"input": 10, "output": 20}})),
        generation("g-provided", json!({"model": "gpt-4o-mini", "usageDetails": {"input": 1000}, "costDetails": {"input": 0.5}})),
        generation("g-openai", json!({"model": "openai/gpt-4o-2024-08-06",
                                      "usageDetails": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150}})),
        generation("g-unknown", json!({"model": "homegrown-7b", "usageDetails": {"input": 5},
                                       "promptName": "team/answer", "promptVersion": 1})),
    ]});
    api.expect(207, Method::POST, "/api/public/ingestion", Some(&batch)).await;

    let usage = observation(&api, "g-usage").await;
    assert_eq!(usage["modelId"], "builtin-gpt-4o-mini");
    assert_eq!(
        (usage["inputPrice"].clone(), usage["outputPrice"].clone()),
        (json!(1.5e-7), json!(6e-7)),
        "{usage}"
    );
    assert!(close(&usage["calculatedInputCost"], 1000.0 * 1.5e-7), "{usage}");
    assert!(close(&usage["calculatedOutputCost"], 500.0 * 6e-7), "{usage}");
    assert!(close(&usage["calculatedTotalCost"], 1000.0 * 1.5e-7 + 500.0 * 6e-7), "{usage}");
    let own = observation(&api, "g-own").await;
    assert!(close(&own["calculatedTotalCost"], 10.0 * 0.001 + 20.0 * 0.002), "own price wins: {own}");
    let provided = observation(&api, "g-provided").await;
    assert!(close(&provided["calculatedTotalCost"], 0.5), "provided cost wins: {provided}");
    assert_eq!(provided["costDetails"], json!({"input": 0.5}));
    let openai = observation(&api, "g-openai").await;
    assert_eq!(openai["usageDetails"], json!({"input": 100, "output": 50, "total": 150}));
    assert!(close(&openai["calculatedTotalCost"], 100.0 * 2.5e-6 + 50.0 * 1e-5), "{openai}");
    let unknown = observation(&api, "g-unknown").await;
    assert_eq!(unknown["modelId"], Value::Null, "{unknown}");
    assert!(close(&unknown["calculatedTotalCost"], 0.0), "no price, no cost: {unknown}");
    assert_eq!(unknown["promptId"], prompt_id, "the named prompt version is linked");
    assert_eq!(usage["promptId"], Value::Null);

    // OTLP with the v4 header writes events directly; the same prices apply there.
    let start = Utc::now().timestamp_nanos_opt().unwrap();
    let attribute = |key: &str, value: &str| json!({"key": key, "value": {"stringValue": value}});
    let export = json!({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "langfuse-sdk"}, "spans": [{
        "traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b7169203331", "name": "llm",
        "startTimeUnixNano": start.to_string(), "endTimeUnixNano": (start + 1_000_000).to_string(),
        "attributes": [
            attribute("langfuse.observation.type", "generation"),
            attribute("langfuse.observation.model.name", "gpt-4o"),
            attribute("langfuse.observation.usage_details", "{\"input\": 100, \"output\": 50}"),
            attribute("langfuse.observation.prompt.name", "team/answer"),
            json!({"key": "langfuse.observation.prompt.version", "value": {"intValue": "1"}}),
        ],
    }]}]}]});
    let response = crate::apps::http()
        .post(format!("{}/api/public/otel/v1/traces", api.web.base_url))
        .header("Authorization", &api.key)
        .header("x-langfuse-ingestion-version", "4")
        .json(&export)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let path =
        "/api/public/v2/observations?traceId=0af7651916cd43dd8448eb211c80319c&fields=core,usage,model,prompt";
    let events = api.until(path, |body| body["data"].as_array().is_some_and(|d| !d.is_empty())).await;
    let event = &events["data"][0];
    assert_eq!(event["internalModelId"], "builtin-gpt-4o");
    assert!(close(&event["costDetails"]["input"], 100.0 * 2.5e-6), "{event}");
    assert!(close(&event["totalCost"], 100.0 * 2.5e-6 + 50.0 * 1e-5), "{event}");
    assert_eq!(event["promptId"], prompt_id, "{event}");
    assert_eq!(
        (event["inputPrice"].clone(), event["totalPrice"].clone()),
        (json!(2.5e-6), Value::Null),
        "{event}"
    );
}
