//! Datasets through the running `web`: upsert by name, items with their history and `version`
//! reads, runs and run items (stored in PostgreSQL and ClickHouse `dataset_run_items_rmt`), the
//! `events_only` gate of the run endpoints, the errors, project isolation, and the real Python SDK
//! running an experiment over a dataset.

mod runs;
mod schemas;
mod sdk;

use reqwest::Method;
use serde_json::{Value, json};

use crate::api::Api;

async fn post(api: &Api, path: &str, body: Value) -> Value {
    api.expect(200, Method::POST, path, Some(&body)).await
}

async fn get(api: &Api, path: &str) -> Value {
    api.expect(200, Method::GET, path, None).await
}

/// The ids of a list's `data`, in order.
fn ids(list: &Value) -> Vec<String> {
    list["data"].as_array().unwrap().iter().map(|item| item["id"].as_str().unwrap().to_owned()).collect()
}

/// A dataset `qa` with items created in the order `a`, `b`, `c` (archived), `d`; then `a` gets a
/// second version and `d` is deleted. Returns when a's first version, `d` and a's second version
/// became current.
async fn seed_items(api: &Api) -> (String, String, String) {
    post(api, "/api/public/v2/datasets", json!({"name": "qa"})).await;
    let a1 = post(
        api,
        "/api/public/dataset-items",
        json!({"datasetName": "qa", "id": "a", "input": {"q": "1+1"}, "expectedOutput": 2, "metadata": {"k": "v"}, "sourceTraceId": "trace-a"}),
    )
    .await;
    post(
        api,
        "/api/public/dataset-items",
        json!({"datasetName": "qa", "id": "b", "input": "b", "sourceObservationId": "obs-b"}),
    )
    .await;
    post(
        api,
        "/api/public/dataset-items",
        json!({"datasetName": "qa", "id": "c", "input": "c", "status": "ARCHIVED"}),
    )
    .await;
    let d =
        post(api, "/api/public/dataset-items", json!({"datasetName": "qa", "id": "d", "input": "d"})).await;
    // Only `input` is sent: the other fields carry over to the new version.
    let a2 = post(
        api,
        "/api/public/dataset-items",
        json!({"datasetName": "qa", "id": "a", "input": {"q": "2+2"}}),
    )
    .await;
    assert_eq!(a2["expectedOutput"], 2, "{a2}");
    assert_eq!((a2["metadata"].clone(), a2["sourceTraceId"].clone()), (json!({"k": "v"}), json!("trace-a")));
    assert_eq!(a2["createdAt"], a1["createdAt"], "an item keeps its creation time");
    assert!(a2["updatedAt"].as_str() > a1["updatedAt"].as_str(), "{a1} {a2}");
    let deleted = api.expect(200, Method::DELETE, "/api/public/dataset-items/d", None).await;
    assert_eq!(deleted, json!({"message": "Dataset item successfully deleted"}));
    let at = |item: &Value| item["updatedAt"].as_str().unwrap().to_owned();
    (at(&a1), at(&d), at(&a2))
}

#[tokio::test]
async fn datasets_upsert_by_name_and_list_in_pages() {
    let api = Api::start(&[]).await;
    let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    let created = post(
        &api,
        "/api/public/v2/datasets",
        json!({"name": "team/qa", "description": "first", "metadata": {"owner": "ada"}, "inputSchema": schema}),
    )
    .await;
    for key in [
        "id",
        "name",
        "description",
        "metadata",
        "inputSchema",
        "expectedOutputSchema",
        "projectId",
        "createdAt",
        "updatedAt",
    ] {
        assert!(created.get(key).is_some(), "{key} missing from {created}");
    }
    assert_eq!(
        (created["projectId"].clone(), created["expectedOutputSchema"].clone()),
        (json!("project-blackbox"), Value::Null)
    );

    // The same name updates: absent fields keep their value, a null schema clears it.
    let updated = post(
        &api,
        "/api/public/v2/datasets",
        json!({"name": "team/qa", "description": "second", "inputSchema": null}),
    )
    .await;
    assert_eq!(updated["id"], created["id"], "upsert by name keeps the dataset");
    assert_eq!(updated["description"], "second");
    assert_eq!(
        (updated["metadata"].clone(), updated["inputSchema"].clone()),
        (json!({"owner": "ada"}), Value::Null)
    );
    assert!(updated["updatedAt"].as_str() >= created["updatedAt"].as_str());
    assert_eq!(
        get(&api, "/api/public/v2/datasets/team%2Fqa").await,
        updated,
        "folder names arrive URL-encoded"
    );

    let v1 = post(&api, "/api/public/datasets", json!({"name": "plain"})).await;
    assert_eq!(
        (v1["items"].clone(), v1["runs"].clone(), v1["metadata"].clone()),
        (json!([]), json!([]), Value::Null)
    );
    post(&api, "/api/public/v2/datasets", json!({"name": "third"})).await;

    let all = get(&api, "/api/public/v2/datasets").await;
    assert_eq!(all["meta"], json!({"page": 1, "limit": 50, "totalItems": 3, "totalPages": 1}));
    let names: Vec<&str> =
        all["data"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["third", "plain", "team/qa"], "newest first");
    let second = get(&api, "/api/public/v2/datasets?limit=2&page=2").await;
    assert_eq!(
        (second["data"][0]["name"].clone(), second["meta"]["totalPages"].clone()),
        (json!("team/qa"), json!(2))
    );

    // v1 objects carry the active items' ids (list) or the items themselves (get), and run names.
    post(&api, "/api/public/dataset-items", json!({"datasetName": "plain", "id": "p1", "input": 1})).await;
    post(
        &api,
        "/api/public/dataset-items",
        json!({"datasetName": "plain", "id": "p2", "input": 2, "status": "ARCHIVED"}),
    )
    .await;
    let v1_list = get(&api, "/api/public/datasets").await;
    let plain = v1_list["data"].as_array().unwrap().iter().find(|d| d["name"] == "plain").unwrap();
    assert_eq!((plain["items"].clone(), plain["runs"].clone()), (json!(["p1"]), json!([])));
    let v1_get = get(&api, "/api/public/datasets/plain").await;
    assert_eq!(ids(&json!({"data": v1_get["items"]})), ["p1"]);
    assert_eq!(v1_get["items"][0]["mediaReferences"], json!([]));

    // The documented 4xx.
    for path in ["/api/public/v2/datasets/nope", "/api/public/datasets/nope"] {
        let missing = api.expect(404, Method::GET, path, None).await;
        assert_eq!(missing, json!({"message": "Dataset not found", "error": "LangfuseNotFoundError"}));
    }
    for path in ["/api/public/v2/datasets?limit=101", "/api/public/datasets?page=0"] {
        let refused = api.expect(400, Method::GET, path, None).await;
        assert!(refused["message"].as_str().unwrap().contains("between"), "{path}: {refused}");
    }
    for (body, needle) in [
        (json!({"description": "no name"}), "Invalid request data"),
        (json!({"name": " "}), "`name` must not be empty"),
        (json!({"name": "x", "inputSchema": "string"}), "`inputSchema` must be a JSON Schema object"),
        (
            json!({"name": "x", "expectedOutputSchema": [1]}),
            "`expectedOutputSchema` must be a JSON Schema object",
        ),
    ] {
        let refused = api.expect(400, Method::POST, "/api/public/v2/datasets", Some(&body)).await;
        assert!(refused["message"].as_str().unwrap().contains(needle), "{body}: {refused}");
    }
    assert_eq!(
        get(&api, "/api/public/v2/datasets").await["meta"]["totalItems"],
        3,
        "refused bodies wrote nothing"
    );
}

#[tokio::test]
async fn items_keep_their_history_for_version_reads() {
    let api = Api::start(&[]).await;
    let (a1, d, a2) = seed_items(&api).await;

    // Now: the active items, newest first; archived `c` and deleted `d` are not listed.
    let now = get(&api, "/api/public/dataset-items?datasetName=qa").await;
    assert_eq!(ids(&now), ["b", "a"]);
    assert_eq!(now["meta"]["totalItems"], 2);
    let a = &now["data"][1];
    for key in [
        "id",
        "status",
        "input",
        "expectedOutput",
        "metadata",
        "sourceTraceId",
        "sourceObservationId",
        "datasetId",
        "datasetName",
        "createdAt",
        "updatedAt",
        "mediaReferences",
    ] {
        assert!(a.get(key).is_some(), "{key} missing from {a}");
    }
    assert_eq!(
        (a["datasetName"].clone(), a["input"].clone(), a["version"].clone()),
        (json!("qa"), json!({"q": "2+2"}), json!(a2))
    );
    assert_eq!(
        get(&api, "/api/public/dataset-items/c").await["status"],
        "ARCHIVED",
        "archived items can still be fetched"
    );

    // `version` reads the items as they were: each version from the moment it became current.
    let at = |t: &str| format!("/api/public/dataset-items?datasetName=qa&version={}", t.replace('+', "%2B"));
    let first = get(&api, &at(&a1)).await;
    assert_eq!(ids(&first), ["a"], "b, c and d came later");
    assert_eq!(first["data"][0]["input"], json!({"q": "1+1"}));
    let before = chrono::DateTime::parse_from_rfc3339(&a1).unwrap() - chrono::Duration::milliseconds(1);
    assert_eq!(
        get(&api, &at(&before.to_rfc3339())).await["data"],
        json!([]),
        "nothing before the first item"
    );
    let middle = get(&api, &at(&d)).await;
    assert_eq!(ids(&middle), ["d", "b", "a"], "d is listed at a version before its deletion");
    assert_eq!(middle["data"][2]["input"], json!({"q": "1+1"}), "a's second version came later");
    let second = get(&api, &at(&a2)).await;
    assert_eq!(ids(&second), ["d", "b", "a"]);
    assert_eq!(second["data"][2]["input"], json!({"q": "2+2"}));

    // Filters and pages.
    assert_eq!(ids(&get(&api, "/api/public/dataset-items?sourceTraceId=trace-a").await), ["a"]);
    assert_eq!(ids(&get(&api, "/api/public/dataset-items?sourceObservationId=obs-b").await), ["b"]);
    let paged = get(&api, "/api/public/dataset-items?datasetName=qa&limit=1&page=2").await;
    assert_eq!(
        (ids(&paged), paged["meta"].clone()),
        (vec!["a".to_owned()], json!({"page": 2, "limit": 1, "totalItems": 2, "totalPages": 2}))
    );

    // An id belongs to one dataset; a deleted id cannot be deleted again but can be re-created.
    let gone = api.expect(404, Method::DELETE, "/api/public/dataset-items/d", None).await;
    assert_eq!(gone["message"], "Dataset item not found");
    post(&api, "/api/public/v2/datasets", json!({"name": "other"})).await;
    let taken = api
        .expect(
            404,
            Method::POST,
            "/api/public/dataset-items",
            Some(&json!({"datasetName": "other", "id": "a", "input": 1})),
        )
        .await;
    assert_eq!(taken["message"], "The dataset item with id a already exists in a dataset other than other");
    let reborn =
        post(&api, "/api/public/dataset-items", json!({"datasetName": "other", "id": "d", "input": "new"}))
            .await;
    assert_eq!((reborn["datasetName"].clone(), reborn["input"].clone()), (json!("other"), json!("new")));
    assert_eq!(reborn["createdAt"], reborn["updatedAt"], "a re-created item starts a new history");
    let generated = post(&api, "/api/public/dataset-items", json!({"datasetName": "other"})).await;
    assert_eq!((generated["status"].clone(), generated["input"].clone()), (json!("ACTIVE"), Value::Null));
    assert_eq!(generated["id"].as_str().unwrap().len(), 36, "a fresh UUID when no id is given");

    // The documented 4xx.
    let unversioned =
        api.expect(400, Method::GET, &format!("/api/public/dataset-items?version={a1}"), None).await;
    assert_eq!(unversioned["message"], "datasetName is required when version parameter is provided");
    for path in
        ["/api/public/dataset-items?datasetName=qa&version=yesterday", "/api/public/dataset-items?limit=101"]
    {
        api.expect(400, Method::GET, path, None).await;
    }
    let missing = api.expect(404, Method::GET, "/api/public/dataset-items?datasetName=nope", None).await;
    assert_eq!(missing["message"], "Dataset not found");
    for (method, path) in
        [(Method::GET, "/api/public/dataset-items/zzz"), (Method::DELETE, "/api/public/dataset-items/zzz")]
    {
        let missing = api.expect(404, method, path, None).await;
        assert_eq!(missing, json!({"message": "Dataset item not found", "error": "LangfuseNotFoundError"}));
    }
    let unknown = json!({"datasetName": "nope", "input": 1});
    assert_eq!(
        api.expect(404, Method::POST, "/api/public/dataset-items", Some(&unknown)).await["message"],
        "Dataset not found"
    );
    for body in [
        json!({"datasetName": "qa", "status": "DONE"}),
        json!({"input": 1}),
        json!({"datasetName": "qa", "id": ""}),
    ] {
        let refused = api.expect(400, Method::POST, "/api/public/dataset-items", Some(&body)).await;
        assert!(refused["message"].is_string(), "{body}: {refused}");
    }
}

#[tokio::test]
async fn one_projects_datasets_are_invisible_to_another() {
    let api = Api::start(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual")]).await;
    let other = api.other_project().await;
    seed_items(&api).await;
    let dataset_id = get(&api, "/api/public/v2/datasets/qa").await["id"].as_str().unwrap().to_owned();
    post(
        &api,
        "/api/public/dataset-run-items",
        json!({"runName": "r", "datasetItemId": "a", "traceId": "t"}),
    )
    .await;

    for (method, path, body) in [
        (Method::GET, "/api/public/v2/datasets/qa".to_owned(), None),
        (Method::GET, "/api/public/datasets/qa".to_owned(), None),
        (Method::GET, "/api/public/dataset-items?datasetName=qa".to_owned(), None),
        (Method::GET, "/api/public/dataset-items/a".to_owned(), None),
        (Method::DELETE, "/api/public/dataset-items/a".to_owned(), None),
        (Method::GET, "/api/public/datasets/qa/runs".to_owned(), None),
        (Method::GET, "/api/public/datasets/qa/runs/r".to_owned(), None),
        (Method::DELETE, "/api/public/datasets/qa/runs/r".to_owned(), None),
        (Method::GET, format!("/api/public/dataset-run-items?datasetId={dataset_id}&runName=r"), None),
        (
            Method::POST,
            "/api/public/dataset-items".to_owned(),
            Some(json!({"datasetName": "qa", "input": 1})),
        ),
        (
            Method::POST,
            "/api/public/dataset-run-items".to_owned(),
            Some(json!({"runName": "r", "datasetItemId": "a", "traceId": "t"})),
        ),
    ] {
        let (status, body) = api.send_as(&other, method.clone(), &path, body.as_ref()).await;
        assert_eq!(status, 404, "{method} {path}: {body}");
    }
    for path in ["/api/public/v2/datasets", "/api/public/datasets", "/api/public/dataset-items"] {
        let (status, list) = api.send_as(&other, Method::GET, path, None).await;
        assert_eq!(
            (status, list["data"].clone(), list["meta"]["totalItems"].clone()),
            (200, json!([]), json!(0)),
            "{path}"
        );
    }
    // The other project's dataset of the same name, and its item of the same id, are its own.
    let (status, theirs) = api
        .send_as(
            &other,
            Method::POST,
            "/api/public/v2/datasets",
            Some(&json!({"name": "qa", "description": "theirs"})),
        )
        .await;
    assert_eq!(status, 200);
    assert_ne!(theirs["id"].as_str(), Some(dataset_id.as_str()));
    let item = json!({"datasetName": "qa", "id": "a", "input": "theirs"});
    let (status, _) = api.send_as(&other, Method::POST, "/api/public/dataset-items", Some(&item)).await;
    assert_eq!(status, 200, "item ids are unique per project, not across projects");
    assert_eq!(get(&api, "/api/public/dataset-items/a").await["input"], json!({"q": "2+2"}));
    assert_eq!(get(&api, "/api/public/v2/datasets/qa").await["description"], Value::Null);
    assert_eq!(
        get(&api, "/api/public/datasets/qa/runs/r").await["datasetRunItems"].as_array().unwrap().len(),
        1
    );
    let (status, _) = crate::apps::http()
        .get(format!("{}/api/public/v2/datasets", api.web.base_url))
        .send()
        .await
        .map(|r| (r.status().as_u16(), ()))
        .unwrap();
    assert_eq!(status, 401, "datasets need a key");
}
