//! A dataset's `inputSchema` and `expectedOutputSchema`: items that do not match are refused with
//! where and why, and a refused write stores nothing.

use reqwest::Method;
use serde_json::json;

use super::{get, post};
use crate::api::Api;

#[tokio::test]
async fn items_must_match_their_datasets_schemas() {
    let api = Api::start(&[]).await;
    let invalid = json!({"name": "broken", "inputSchema": {"type": "no-such-type"}});
    let refused = api.expect(400, Method::POST, "/api/public/v2/datasets", Some(&invalid)).await;
    assert!(
        refused["message"].as_str().unwrap().contains("`inputSchema` is not a valid JSON Schema"),
        "{refused}"
    );

    let schemas = json!({
        "name": "typed",
        "inputSchema": {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]},
        "expectedOutputSchema": {"type": "string"}
    });
    post(&api, "/api/public/v2/datasets", schemas).await;
    let item = |id: &str, extra: serde_json::Value| {
        let mut body = json!({"datasetName": "typed", "id": id});
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        body
    };
    post(
        &api,
        "/api/public/dataset-items",
        item("fits", json!({"input": {"question": "why?"}, "expectedOutput": "because"})),
    )
    .await;
    // An expected output not known yet is not checked; a later write that keeps the stored input is.
    post(&api, "/api/public/dataset-items", item("open", json!({"input": {"question": "how?"}}))).await;
    post(&api, "/api/public/dataset-items", item("open", json!({"metadata": {"round": 2}}))).await;

    for (body, needles) in [
        (
            item("bad-input", json!({"input": {"question": 5}})),
            vec![
                "`input` does not match the dataset's `inputSchema`",
                "at /question: 5 is not of type \"string\"",
            ],
        ),
        (item("no-question", json!({"input": {}})), vec!["\"question\" is a required property"]),
        (
            item("bad-output", json!({"input": {"question": "?"}, "expectedOutput": 42})),
            vec![
                "`expectedOutput` does not match the dataset's `expectedOutputSchema`",
                "42 is not of type \"string\"",
            ],
        ),
        // An update is checked with what it keeps: the stored input is fine, the new output is not.
        (
            item("open", json!({"expectedOutput": {"not": "a string"}})),
            vec!["`expectedOutput` does not match"],
        ),
    ] {
        let refused = api.expect(400, Method::POST, "/api/public/dataset-items", Some(&body)).await;
        let message = refused["message"].as_str().unwrap();
        for needle in needles {
            assert!(message.contains(needle), "{body}: expected `{needle}` in {refused}");
        }
    }
    let items = get(&api, "/api/public/dataset-items?datasetName=typed").await;
    let mut ids: Vec<&str> =
        items["data"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["fits", "open"], "refused writes stored nothing: {items}");
    let open = get(&api, "/api/public/dataset-items/open").await;
    assert_eq!(
        (open["expectedOutput"].clone(), open["metadata"].clone()),
        (json!(null), json!({"round": 2}))
    );

    // Without the schema, the same item is accepted.
    post(&api, "/api/public/v2/datasets", json!({"name": "typed", "inputSchema": null})).await;
    post(&api, "/api/public/dataset-items", item("bad-input", json!({"input": {"question": 5}}))).await;
}
