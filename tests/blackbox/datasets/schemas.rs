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
    // `fields` names each mismatch's body key and JSON Pointer, for the UI to show at the field.
    let body = item("two-wrong", json!({"input": {"question": 5}, "expectedOutput": 42}));
    let refused = api.expect(400, Method::POST, "/api/public/dataset-items", Some(&body)).await;
    let at: Vec<(&str, &str)> = refused["fields"]
        .as_array()
        .unwrap_or_else(|| panic!("no fields in {refused}"))
        .iter()
        .map(|f| (f["field"].as_str().unwrap(), f["path"].as_str().unwrap()))
        .collect();
    assert_eq!(at, [("input", "/question"), ("expectedOutput", "")], "{refused}");
    assert!(refused["fields"][0]["message"].as_str().unwrap().contains("is not of type"), "{refused}");
    let missing = item("no-question", json!({"input": {}}));
    let refused = api.expect(400, Method::POST, "/api/public/dataset-items", Some(&missing)).await;
    assert_eq!(refused["fields"][0]["path"], "", "a missing property is the object's: {refused}");
    let unknown = api.expect(400, Method::POST, "/api/public/dataset-items", Some(&json!({"id": "x"}))).await;
    assert!(unknown.get("fields").is_none(), "other 400s carry no fields: {unknown}");

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

/// A schema set on a dataset that has items must fit them all; the refusal names the ones that do
/// not, and changes nothing.
#[tokio::test]
async fn a_new_schema_must_fit_the_items_already_there() {
    let api = Api::start(&[]).await;
    post(&api, "/api/public/v2/datasets", json!({"name": "later"})).await;
    for (id, input) in [("x", json!(1)), ("y", json!({"q": "ok"})), ("z", json!("text"))] {
        post(&api, "/api/public/dataset-items", json!({"datasetName": "later", "id": id, "input": input}))
            .await;
    }
    let schema = json!({"name": "later", "description": "typed", "inputSchema": {"type": "object"}});
    let refused = api.expect(400, Method::POST, "/api/public/v2/datasets", Some(&schema)).await;
    let message = refused["message"].as_str().unwrap();
    for needle in [
        "2 existing item(s) of the dataset do not match the new schema",
        "item x: `input` does not match the dataset's `inputSchema`: 1 is not of type \"object\"",
        "item z: ",
    ] {
        assert!(message.contains(needle), "expected `{needle}` in {refused}");
    }
    assert!(!message.contains("item y"), "{refused}");
    let unchanged = get(&api, "/api/public/v2/datasets/later").await;
    assert_eq!(
        (unchanged["inputSchema"].clone(), unchanged["description"].clone()),
        (json!(null), json!(null))
    );

    for id in ["x", "z"] {
        api.expect(200, Method::DELETE, &format!("/api/public/dataset-items/{id}"), None).await;
    }
    let typed = post(&api, "/api/public/v2/datasets", schema).await;
    assert_eq!(typed["inputSchema"], json!({"type": "object"}));
}

/// A schema whose check is exponential (`anyOf` of two references, twenty levels deep: about a
/// million evaluations for one string) cannot hold an item write: the check runs off the async
/// threads, so the instance keeps answering, and the write is refused once its 2 s budget is spent.
#[tokio::test]
async fn an_item_check_that_overruns_its_budget_is_refused_and_holds_nothing_up() {
    let api = Api::start(&[]).await;
    let mut defs = serde_json::Map::new();
    defs.insert("d0".into(), json!({"type": "null"}));
    for level in 1..=20 {
        let below = format!("#/$defs/d{}", level - 1);
        defs.insert(format!("d{level}"), json!({"anyOf": [{"$ref": below}, {"$ref": below}]}));
    }
    let schema = json!({"$defs": defs, "$ref": "#/$defs/d20"});
    post(&api, "/api/public/v2/datasets", json!({"name": "slow", "inputSchema": schema})).await;

    let started = std::time::Instant::now();
    let item = json!({"datasetName": "slow", "id": "i1", "input": "x"});
    let write = api.send(Method::POST, "/api/public/dataset-items", Some(&item));
    let meanwhile = async {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let asked = std::time::Instant::now();
        get(&api, "/api/public/v2/datasets/slow").await;
        asked.elapsed()
    };
    let ((status, refused), answered_in) = tokio::join!(write, meanwhile);
    assert_eq!(status, 400, "{refused}");
    assert_eq!(
        refused["message"],
        "checking the item against the dataset's schemas took longer than its budget of 2000 ms; \
         a simpler schema or smaller data fits it"
    );
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(5), "answered after the budget: {took:?}");
    assert!(answered_in < std::time::Duration::from_secs(1), "another request waited {answered_in:?}");
    let items = get(&api, "/api/public/dataset-items?datasetName=slow").await;
    assert_eq!(items["data"], json!([]), "nothing stored: {items}");
}
