//! Dataset runs and run items: created implicitly with their first item, stored in PostgreSQL and
//! in ClickHouse `dataset_run_items_rmt`, deleted in both; 404 in `events_only` (spec/v4-migration-spec.md §4.1).

use reqwest::Method;
use serde_json::{Value, json};

use super::{get, ids, post, seed_items};
use crate::api::Api;

const PROJECT: &str = "project-blackbox";

/// `dataset_run_items_rmt` as the v4 backfill sees it: the newest version of each row, in creation
/// order, as (id, run name, trace id, item id, item input, item version ms, run metadata as JSON, deleted).
type ClickHouseRunItem = (String, String, String, String, String, i64, String, u8);

async fn clickhouse_rows(api: &Api) -> Vec<ClickHouseRunItem> {
    let sql = "SELECT id, dataset_run_name, trace_id, dataset_item_id, coalesce(dataset_item_input, ''), \
               toUnixTimestamp64Milli(assumeNotNull(dataset_item_version)), \
               toJSONString(dataset_run_metadata), is_deleted \
               FROM (SELECT * FROM dataset_run_items_rmt WHERE project_id = ? ORDER BY event_ts DESC LIMIT 1 BY id) \
               ORDER BY created_at, id";
    api.stack.ch.client().query(sql).bind(PROJECT).fetch_all().await.unwrap()
}

fn millis(timestamp: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(timestamp).unwrap().timestamp_millis()
}

#[tokio::test]
async fn runs_and_run_items_reach_postgres_and_clickhouse() {
    let api = Api::start(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual")]).await;
    let (a1, _, a2) = seed_items(&api).await;
    let dataset_id = get(&api, "/api/public/v2/datasets/qa").await["id"].as_str().unwrap().to_owned();

    // The first item creates the run; the item is linked to its current version.
    let first = post(
        &api,
        "/api/public/dataset-run-items",
        json!({"runName": "r1", "runDescription": "first", "metadata": {"model": "gpt", "n": 2}, "datasetItemId": "a", "traceId": "trace-1"}),
    )
    .await;
    for key in [
        "id",
        "datasetRunId",
        "datasetRunName",
        "datasetItemId",
        "traceId",
        "observationId",
        "createdAt",
        "updatedAt",
    ] {
        assert!(first.get(key).is_some(), "{key} missing from {first}");
    }
    assert_eq!((first["datasetRunName"].clone(), first["observationId"].clone()), (json!("r1"), Value::Null));

    // An observation id alone: the trace comes from the v3 observations table.
    api.stack
        .ch
        .client()
        .query(
            "INSERT INTO observations (id, trace_id, project_id, type, start_time, name, level, event_ts, is_deleted) \
             VALUES ('obs-9', 'trace-9', ?, 'SPAN', now64(3), 'task', 'DEFAULT', now64(3), 0)",
        )
        .bind(PROJECT)
        .execute()
        .await
        .unwrap();
    let by_observation = post(
        &api,
        "/api/public/dataset-run-items",
        json!({"runName": "r1", "runDescription": "again", "datasetItemId": "b", "observationId": "obs-9"}),
    )
    .await;
    assert_eq!(
        (by_observation["traceId"].clone(), by_observation["observationId"].clone()),
        (json!("trace-9"), json!("obs-9"))
    );
    assert_eq!(by_observation["datasetRunId"], first["datasetRunId"], "one run per name and dataset");

    // A pinned dataset version links the item as it was then; `createdAt` dates the new run.
    let pinned = post(
        &api,
        "/api/public/dataset-run-items",
        json!({"runName": "r2", "datasetItemId": "a", "traceId": "trace-2", "datasetVersion": a1, "createdAt": "2024-01-02T03:04:05.678Z"}),
    )
    .await;
    assert_eq!(
        (pinned["createdAt"].clone(), pinned["updatedAt"].clone()),
        (json!("2024-01-02T03:04:05.678Z"), json!("2024-01-02T03:04:05.678Z"))
    );

    // Read back: runs newest first, a run with its items, a run's items in pages.
    let runs = get(&api, "/api/public/datasets/qa/runs").await;
    let names: Vec<&str> =
        runs["data"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!((names, runs["meta"]["totalItems"].clone()), (vec!["r1", "r2"], json!(2)));
    let r2 = &runs["data"][1];
    assert_eq!(
        (r2["createdAt"].clone(), r2["datasetId"].clone(), r2["datasetName"].clone()),
        (json!("2024-01-02T03:04:05.678Z"), json!(dataset_id), json!("qa"))
    );
    assert_eq!(r2["metadata"], json!({"dataset_version": a1}), "the pinned version is recorded on the run");
    let r1 = get(&api, "/api/public/datasets/qa/runs/r1").await;
    assert_eq!(
        (r1["description"].clone(), r1["metadata"].clone()),
        (json!("again"), json!({"model": "gpt", "n": 2})),
        "later items update the description"
    );
    assert_eq!(
        ids(&json!({"data": r1["datasetRunItems"]})),
        [by_observation["id"].as_str().unwrap(), first["id"].as_str().unwrap()]
    );
    let page =
        get(&api, &format!("/api/public/dataset-run-items?datasetId={dataset_id}&runName=r1&limit=1&page=2"))
            .await;
    assert_eq!(
        (ids(&page), page["meta"].clone()),
        (
            vec![first["id"].as_str().unwrap().to_owned()],
            json!({"page": 2, "limit": 1, "totalItems": 2, "totalPages": 2})
        )
    );
    assert_eq!(page["data"][0], first, "the list shows what the create answered");
    assert_eq!(get(&api, "/api/public/datasets/qa").await["runs"], json!(["r1", "r2"]));

    // Every run item is in ClickHouse too, with the run's and the item's contents.
    let rows = clickhouse_rows(&api).await;
    let row = |id: &Value| {
        rows.iter()
            .find(|r| r.0 == id.as_str().unwrap())
            .unwrap_or_else(|| panic!("{id} not in {rows:?}"))
            .clone()
    };
    let metadata = r#"{"model":"gpt","n":"2"}"#.to_owned();
    assert_eq!(
        row(&first["id"]),
        (
            row(&first["id"]).0,
            "r1".into(),
            "trace-1".into(),
            "a".into(),
            r#"{"q":"2+2"}"#.into(),
            millis(&a2),
            metadata,
            0
        )
    );
    assert_eq!(
        (row(&by_observation["id"]).2, row(&by_observation["id"]).3),
        ("trace-9".to_owned(), "b".to_owned())
    );
    let pinned_row = row(&pinned["id"]);
    assert_eq!(
        (pinned_row.4.as_str(), pinned_row.5),
        (r#"{"q":"1+1"}"#, millis(&a1)),
        "the item as it was at the pinned version"
    );

    // The documented 4xx.
    for (body, status, message) in [
        (json!({"runName": "r1", "datasetItemId": "a"}), 400, "observationId or traceId must be provided"),
        (json!({"runName": "r1", "datasetItemId": "zzz", "traceId": "t"}), 404, "Dataset item not found"),
        (json!({"runName": "r1", "datasetItemId": "c", "traceId": "t"}), 404, "Dataset item not found"),
        (json!({"runName": "r1", "datasetItemId": "d", "traceId": "t"}), 404, "Dataset item not found"),
        (
            json!({"runName": "r1", "datasetItemId": "b", "datasetVersion": a1, "traceId": "t"}),
            404,
            "Dataset item not found",
        ),
        (
            json!({"runName": "r1", "datasetItemId": "a", "observationId": "nope"}),
            404,
            "Observation not found",
        ),
        (
            json!({"runName": "r1", "datasetItemId": "a", "traceId": "t", "datasetVersion": "soon"}),
            400,
            "`datasetVersion` must be an ISO-8601 datetime, got `soon`",
        ),
        (json!({"runName": " ", "datasetItemId": "a", "traceId": "t"}), 400, "`runName` must not be empty"),
        (json!({"datasetItemId": "a", "traceId": "t"}), 400, "Invalid request data"),
    ] {
        let answer = api.expect(status, Method::POST, "/api/public/dataset-run-items", Some(&body)).await;
        assert_eq!(answer["message"], message, "{body}");
    }
    for (path, status, message) in [
        (
            format!("/api/public/dataset-run-items?datasetId={dataset_id}"),
            400,
            "`datasetId` and `runName` are both required",
        ),
        (
            format!("/api/public/dataset-run-items?datasetId={dataset_id}&runName=r9"),
            404,
            "Dataset run not found for the given project and dataset id",
        ),
        (
            format!("/api/public/dataset-run-items?datasetId={dataset_id}&runName=r1&limit=101"),
            400,
            "`limit` must be between 1 and 100, got 101",
        ),
        ("/api/public/datasets/nope/runs".to_owned(), 404, "Dataset not found"),
        ("/api/public/datasets/qa/runs/r9".to_owned(), 404, "Dataset run not found"),
        ("/api/public/datasets/nope/runs/r1".to_owned(), 404, "Dataset run not found"),
    ] {
        assert_eq!(api.expect(status, Method::GET, &path, None).await["message"], message, "{path}");
    }
    assert_eq!(clickhouse_rows(&api).await.len(), 3, "refused run items wrote nothing to ClickHouse");

    // Deleting a run removes it and its items, and marks its ClickHouse rows deleted.
    let deleted = api.expect(200, Method::DELETE, "/api/public/datasets/qa/runs/r1", None).await;
    assert_eq!(deleted, json!({"message": "Dataset run successfully deleted"}));
    api.expect(404, Method::GET, "/api/public/datasets/qa/runs/r1", None).await;
    api.expect(404, Method::DELETE, "/api/public/datasets/qa/runs/r1", None).await;
    assert_eq!(
        ids(&get(&api, "/api/public/datasets/qa/runs").await),
        [pinned["datasetRunId"].as_str().unwrap()]
    );
    let rows = clickhouse_rows(&api).await;
    let deleted: Vec<(&str, u8)> = rows.iter().map(|r| (r.1.as_str(), r.7)).collect();
    assert_eq!(deleted, [("r2", 0), ("r1", 1), ("r1", 1)], "newest versions: r1's rows deleted, r2's kept");
    let again = post(
        &api,
        "/api/public/dataset-run-items",
        json!({"runName": "r1", "datasetItemId": "a", "traceId": "trace-3"}),
    )
    .await;
    // Run ids are derived from project, dataset and name (as the SDKs derive experiment ids), so
    // the name starts the same run again, with none of the deleted items.
    assert_eq!(again["datasetRunId"], first["datasetRunId"]);
    let run = get(&api, "/api/public/datasets/qa/runs/r1").await;
    let traces: Vec<&str> =
        run["datasetRunItems"].as_array().unwrap().iter().map(|i| i["traceId"].as_str().unwrap()).collect();
    assert_eq!(traces, ["trace-3"], "{run}");
}

#[tokio::test]
async fn run_endpoints_are_404_in_events_only_and_open_in_legacy() {
    let events_only = Api::start(&[]).await;
    seed_items(&events_only).await;
    let dataset_id = get(&events_only, "/api/public/v2/datasets/qa").await["id"].as_str().unwrap().to_owned();
    let run_item = json!({"runName": "r", "datasetItemId": "a", "traceId": "t"});
    let endpoints = [
        (Method::POST, "/api/public/dataset-run-items".to_owned(), Some(run_item.clone())),
        (Method::POST, "/api/public/dataset-run-items".to_owned(), Some(json!({"not": "a run item"}))),
        (Method::GET, format!("/api/public/dataset-run-items?datasetId={dataset_id}&runName=r"), None),
        (Method::GET, "/api/public/datasets/qa/runs".to_owned(), None),
        (Method::GET, "/api/public/datasets/qa/runs/r".to_owned(), None),
        (Method::DELETE, "/api/public/datasets/qa/runs/r".to_owned(), None),
    ];
    for (method, path, body) in &endpoints {
        let answer = events_only.expect(404, method.clone(), path, body.as_ref()).await;
        assert!(
            answer["message"].as_str().unwrap().contains("events_only mode"),
            "{method} {path}: {answer}"
        );
    }
    // Datasets and items themselves are not deprecated.
    assert_eq!(get(&events_only, "/api/public/dataset-items?datasetName=qa").await["meta"]["totalItems"], 2);
    let rows: u64 = events_only
        .stack
        .ch
        .client()
        .query("SELECT count() FROM dataset_run_items_rmt")
        .fetch_one()
        .await
        .unwrap();
    assert_eq!(rows, 0, "the gate wrote nothing");

    let legacy = Api::start(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy")]).await;
    seed_items(&legacy).await;
    let created = post(&legacy, "/api/public/dataset-run-items", run_item).await;
    assert_eq!(get(&legacy, "/api/public/datasets/qa/runs/r").await["datasetRunItems"][0], created);
}

/// The experiments API reads runs as experiments in every mode: in `legacy` nothing reaches the
/// events, and the runs older SDKs record are read from the run items instead.
#[tokio::test]
async fn legacy_runs_are_experiments_in_the_v4_api() {
    let api = Api::start(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy")]).await;
    seed_items(&api).await;
    let dataset_id = get(&api, "/api/public/v2/datasets/qa").await["id"].as_str().unwrap().to_owned();
    let from = (chrono::Utc::now() - chrono::Duration::minutes(5))
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let from = from.replace('+', "%2B");
    let mut run_id = Value::Null;
    for (item, trace) in [("a", "trace-1"), ("b", "trace-2")] {
        let body = json!({"runName": "nightly", "runDescription": "from v3", "metadata": {"model": "gpt"}, "datasetItemId": item, "traceId": trace});
        run_id = post(&api, "/api/public/dataset-run-items", body).await["datasetRunId"].clone();
    }

    let experiments =
        get(&api, &format!("/api/public/experiments?fromStartTime={from}&fields=core,metadata")).await;
    let experiment = &experiments["data"][0];
    assert_eq!(experiments["data"].as_array().unwrap().len(), 1, "{experiments}");
    assert_eq!(
        (&experiment["id"], &experiment["name"], &experiment["description"], &experiment["itemCount"]),
        (&run_id, &json!("nightly"), &json!("from v3"), &json!(2))
    );
    assert_eq!(experiment["datasetId"], dataset_id);
    assert_eq!(experiment["metadata"]["model"], "gpt");

    // Items page by cursor, newest first; each is its trace's root, with the item's expected output.
    let path = format!("/api/public/experiment-items?fromStartTime={from}&fields=core,dataset,io&limit=1");
    let first = get(&api, &path).await;
    let cursor = first["meta"]["cursor"].as_str().expect("a second page").to_owned();
    let second = get(&api, &format!("{path}&cursor={cursor}")).await;
    let mut items = [first["data"][0].clone(), second["data"][0].clone()];
    assert!(second["meta"]["cursor"].is_null(), "{second}");
    items.sort_by_key(|item| item["experimentItemId"].as_str().unwrap().to_owned());
    assert_eq!(
        (&items[0]["id"], &items[0]["traceId"], &items[0]["experimentId"], &items[0]["expectedOutput"]),
        (&json!("t-trace-1"), &json!("trace-1"), &run_id, &json!(2))
    );
    assert_eq!(
        (&items[1]["id"], &items[1]["experimentDatasetId"]),
        (&json!("t-trace-2"), &json!(dataset_id))
    );
    let filtered =
        get(&api, &format!("/api/public/experiment-items?fromStartTime={from}&experimentItemId=b")).await;
    assert_eq!(filtered["data"].as_array().unwrap().len(), 1, "{filtered}");

    // A deleted run is no experiment any more.
    api.expect(200, Method::DELETE, "/api/public/datasets/qa/runs/nightly", None).await;
    let after = get(&api, &format!("/api/public/experiments?fromStartTime={from}")).await;
    assert_eq!(after["data"], json!([]));
}
