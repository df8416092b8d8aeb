//! The datasets page's runs side by side (`/api/ui/projects/{projectId}/datasets/{name}/compare`)
//! through a running web in `legacy`: items and runs made through the public API as the signed-in
//! owner, the runs' traces, observations and scores written to the v3 tables, then each run's
//! output, latency, cost and scores per item, the runs' averages, paging, bounds, roles (a viewer
//! reads, and is refused the public writes), isolation and the write-mode gate.

use serde_json::{Value, json};

use crate::apps::{App, Stack};
use crate::identity::web;
use crate::sessions::{Browser, signed_up};

const PROJECT: &str = "project-blackbox";
const ORG: &str = "org-blackbox";
const AS_PROJECT: [(&str, &str); 1] = [("X-Loupe-Project", PROJECT)];

async fn signed_in(mode: &str) -> (Stack, App, Browser) {
    let mut stack = Stack::new().await;
    for (name, value) in [
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", mode),
        ("LANGFUSE_INIT_USER_EMAIL", "owner@example.com"),
        ("LANGFUSE_INIT_USER_PASSWORD", "owner password"),
    ] {
        stack.env.insert(name.into(), value.into());
    }
    let app = web(&stack.env).await;
    let mut owner = Browser::default();
    let credentials = json!({"email": "owner@example.com", "password": "owner password"});
    owner.expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;
    (stack, app, owner)
}

/// A public-API call as the signed-in person acting on the project.
async fn public(
    browser: &mut Browser,
    app: &App,
    status: u16,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> Value {
    let answer = browser.send(app, method, &format!("/api/public/{path}"), body, &AS_PROJECT).await;
    assert_eq!(answer.status, status, "{method} {path}: {}\n{}", answer.body, app.log_tail());
    answer.body
}

/// Traces t1 (output "four", 2 s, $0.50, accuracy 1), t2 ("4", 1 s, $0.25, accuracy 0, a
/// categorical `tone`) and t3 (a 3,000-character output, no observations).
async fn seed_traces(stack: &Stack) {
    let ch = stack.ch.client();
    let long = json!("x".repeat(3_000)).to_string();
    for (id, output) in [("t1", json!("four").to_string()), ("t2", json!("4").to_string()), ("t3", long)] {
        ch.query(
            "INSERT INTO traces (id, timestamp, name, project_id, public, bookmarked, tags, output, event_ts, is_deleted) \
             VALUES (?, now64(3), 'task', ?, false, false, [], ?, now64(3), 0)",
        )
        .bind(id)
        .bind(PROJECT)
        .bind(output)
        .execute()
        .await
        .unwrap();
    }
    // One clock reading for every timestamp: the engine evaluates each VALUES expression on its own,
    // so two `now64()` of one row can be tens of milliseconds apart on a busy machine.
    let now = chrono::Utc::now().timestamp_millis();
    ch.query(
        "INSERT INTO observations (id, trace_id, project_id, type, start_time, end_time, name, level, total_cost, event_ts, is_deleted) VALUES \
         ('o1', 't1', ?, 'GENERATION', fromUnixTimestamp64Milli(?), fromUnixTimestamp64Milli(?), 'llm', 'DEFAULT', 0.5, now64(3), 0), \
         ('o2', 't2', ?, 'GENERATION', fromUnixTimestamp64Milli(?), fromUnixTimestamp64Milli(?), 'llm', 'DEFAULT', 0.25, now64(3), 0)",
    )
    .bind(PROJECT)
    .bind(now - 2_000)
    .bind(now)
    .bind(PROJECT)
    .bind(now - 1_000)
    .bind(now)
    .execute()
    .await
    .unwrap();
    ch.query(
        "INSERT INTO scores (id, timestamp, project_id, trace_id, name, value, string_value, source, data_type, event_ts, is_deleted) VALUES \
         ('s1', now64(3), ?, 't1', 'accuracy', 1, NULL, 'API', 'NUMERIC', now64(3), 0), \
         ('s2', now64(3), ?, 't2', 'accuracy', 0, NULL, 'API', 'NUMERIC', now64(3), 0), \
         ('s3', now64(3), ?, 't2', 'tone', 0, 'terse', 'API', 'CATEGORICAL', now64(3), 0)",
    )
    .bind(PROJECT)
    .bind(PROJECT)
    .bind(PROJECT)
    .execute()
    .await
    .unwrap();
}

fn cell<'a>(body: &'a Value, run: &str, item: &str) -> Option<&'a Value> {
    body["cells"].as_array().unwrap().iter().find(|c| c["runId"] == run && c["itemId"] == item)
}

#[tokio::test]
async fn runs_side_by_side_with_their_figures_roles_and_bounds() {
    let (stack, app, mut owner) = signed_in("legacy").await;
    public(&mut owner, &app, 200, "POST", "v2/datasets", Some(json!({"name": "qa"}))).await;
    for id in ["a", "b", "c"] {
        let item = json!({"datasetName": "qa", "id": id, "input": {"q": id}});
        public(&mut owner, &app, 200, "POST", "dataset-items", Some(item)).await;
    }
    seed_traces(&stack).await;
    let mut run_ids = Vec::new();
    for (run, item, trace) in [("r1", "a", "t1"), ("r1", "b", "t3"), ("r2", "a", "t2")] {
        let body = json!({"runName": run, "datasetItemId": item, "traceId": trace});
        let made = public(&mut owner, &app, 200, "POST", "dataset-run-items", Some(body)).await;
        let id = made["datasetRunId"].as_str().unwrap().to_owned();
        if !run_ids.contains(&id) {
            run_ids.push(id);
        }
    }
    let (r1, r2) = (run_ids[0].clone(), run_ids[1].clone());
    let compare = format!("/api/ui/projects/{PROJECT}/datasets/qa/compare");

    let body = owner.expect(&app, 200, "GET", &format!("{compare}?runId={r1}&runId={r2}"), None).await;
    assert_eq!(body["items"]["meta"]["totalItems"], 3, "{body}");
    assert_eq!(body["cells"].as_array().unwrap().len(), 3, "no cell where a run did not run an item: {body}");
    let a1 = cell(&body, &r1, "a").unwrap();
    assert_eq!((a1["traceId"].clone(), a1["output"].clone()), (json!("t1"), json!("four")), "{a1}");
    assert!((a1["latency"].as_f64().unwrap() - 2.0).abs() < 0.01, "{a1}");
    assert!((a1["totalCost"].as_f64().unwrap() - 0.5).abs() < 1e-9, "{a1}");
    assert_eq!(
        a1["scores"],
        json!([{"name": "accuracy", "dataType": "NUMERIC", "value": 1.0, "stringValue": null}])
    );
    let a2 = cell(&body, &r2, "a").unwrap();
    assert_eq!(a2["output"], "4");
    assert_eq!(a2["scores"].as_array().unwrap().len(), 2, "{a2}");
    let b1 = cell(&body, &r1, "b").unwrap();
    assert_eq!(b1["outputTruncated"], true, "{b1}");
    assert_eq!(b1["output"].as_str().unwrap().chars().count(), 2_000, "cut to 2,000 characters");
    assert_eq!((b1["latency"].clone(), b1["totalCost"].clone()), (Value::Null, Value::Null), "{b1}");
    assert!(cell(&body, &r2, "b").is_none() && cell(&body, &r1, "c").is_none());

    // Per run, in the order asked: items run, mean latency and cost, and numeric score means.
    let runs = body["runs"].as_array().unwrap();
    assert_eq!(
        (runs[0]["runId"].as_str(), runs[1]["runId"].as_str()),
        (Some(r1.as_str()), Some(r2.as_str()))
    );
    assert_eq!((runs[0]["itemCount"].clone(), runs[1]["itemCount"].clone()), (json!(2), json!(1)));
    assert!((runs[0]["avgLatency"].as_f64().unwrap() - 2.0).abs() < 0.01, "t3 has no observations: {body}");
    assert!((runs[1]["avgTotalCost"].as_f64().unwrap() - 0.25).abs() < 1e-9, "{body}");
    assert_eq!(runs[0]["avgScores"], json!([{"name": "accuracy", "value": 1.0, "count": 1}]));
    assert_eq!(
        runs[1]["avgScores"],
        json!([{"name": "accuracy", "value": 0.0, "count": 1}]),
        "tone is categorical"
    );

    // The list: each dataset with its active items, runs and newest run.
    public(&mut owner, &app, 200, "POST", "v2/datasets", Some(json!({"name": "empty"}))).await;
    let list = owner.expect(&app, 200, "GET", &format!("/api/ui/projects/{PROJECT}/datasets"), None).await;
    let counts: Vec<(Value, Value, Value, bool)> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (d["name"].clone(), d["itemCount"].clone(), d["runCount"].clone(), d["lastRunAt"].is_string())
        })
        .collect();
    assert_eq!(
        counts,
        [(json!("empty"), json!(0), json!(0), false), (json!("qa"), json!(3), json!(2), true)]
    );

    // A page of items: the cells are the page's only.
    let page = owner.expect(&app, 200, "GET", &format!("{compare}?runId={r1}&limit=1&page=3"), None).await;
    let item = page["items"]["data"][0]["id"].as_str().unwrap().to_owned();
    assert!(page["cells"].as_array().unwrap().iter().all(|c| c["itemId"] == item.as_str()), "{page}");
    assert_eq!(page["items"]["meta"]["totalPages"], 3);

    // Bounds: 1 to 5 runs, pages as the public lists; an unknown dataset is 404.
    let six: String = (0..6).map(|i| format!("runId=r{i}&")).collect();
    for bad in [String::new(), six, format!("runId={r1}&limit=101"), format!("runId={r1}&page=0")] {
        let refused = owner.expect(&app, 400, "GET", &format!("{compare}?{bad}"), None).await;
        assert!(refused["message"].is_string(), "{bad}: {refused}");
    }
    let path = format!("/api/ui/projects/{PROJECT}/datasets/nope/compare?runId={r1}");
    owner.expect(&app, 404, "GET", &path, None).await;

    // A viewer reads the comparison and the public lists, and is refused the public writes.
    let mut viewer = signed_up(&app, "viewer@example.com").await;
    let viewer_id = viewer.expect(&app, 200, "GET", "/api/ui/me", None).await["user"]["id"].clone();
    let membership = json!({"userId": viewer_id, "role": "VIEWER"});
    owner.expect(&app, 200, "PUT", &format!("/api/ui/organizations/{ORG}/members"), Some(membership)).await;
    let mine = format!("{compare}?runId={r1}&runId={r2}");
    assert_eq!(viewer.expect(&app, 200, "GET", &mine, None).await, body);
    public(&mut viewer, &app, 200, "GET", "v2/datasets", None).await;
    viewer.expect(&app, 200, "GET", &format!("/api/ui/projects/{PROJECT}/datasets"), None).await;
    public(&mut viewer, &app, 403, "POST", "v2/datasets", Some(json!({"name": "mine"}))).await;
    let item = json!({"datasetName": "qa", "id": "v", "input": 1});
    public(&mut viewer, &app, 403, "POST", "dataset-items", Some(item)).await;
    public(&mut viewer, &app, 403, "DELETE", "dataset-items/a", None).await;

    // Nobody else reads it.
    let mut stranger = signed_up(&app, "stranger@example.com").await;
    stranger.expect(&app, 404, "GET", &mine, None).await;
    stranger.expect(&app, 404, "GET", &format!("/api/ui/projects/{PROJECT}/datasets"), None).await;
    Browser::default().expect(&app, 401, "GET", &mine, None).await;

    // `events_only` writes no v3 run items: 404, as the public run routes.
    let (_stack, app, mut owner) = signed_in("events_only").await;
    public(&mut owner, &app, 200, "POST", "v2/datasets", Some(json!({"name": "qa"}))).await;
    owner.expect(&app, 404, "GET", &format!("{compare}?runId=r"), None).await;
}
