//! The Observations view's route, `GET /api/ui/projects/{id}/observations`, through a running web
//! and worker: the v2 list with `search` (name any case, or an exact id), pages, and access (a
//! project the person cannot open is 404, a VIEWER reads, a search past its bound is 400).

use std::time::{Duration, Instant};

use chrono::{SecondsFormat, Utc};
use serde_json::{Value, json};

use crate::api::basic;
use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, http};
use crate::identity::web;
use crate::sessions::{Browser, signed_up};

const ORG: &str = "org-blackbox";
const ROUTE: &str = "/api/ui/projects/project-blackbox/observations";

fn at(seconds_ago: i64) -> String {
    (Utc::now() - chrono::Duration::seconds(seconds_ago)).to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn batch() -> Value {
    let event = |id: &str, kind: &str, body: Value| json!({"id": id, "type": kind, "timestamp": at(0), "body": body});
    json!({"batch": [
        event("e1", "span-create", json!({"id": "obs-root", "traceId": "trace-one", "name": "Checkout Flow",
            "startTime": at(30), "endTime": at(20), "userId": "user-ada", "sessionId": "session-9"})),
        event("e2", "generation-create", json!({"id": "obs-llm", "traceId": "trace-one", "name": "call llm",
            "parentObservationId": "obs-root", "startTime": at(25), "endTime": at(21), "model": "gpt-4o",
            "level": "ERROR", "usage": {"input": 10, "output": 20, "total": 30}})),
        event("e3", "span-create", json!({"id": "obs-other", "traceId": "trace-two", "name": "unrelated",
            "startTime": at(10), "endTime": at(9)})),
    ]})
}

fn ids(body: &Value) -> Vec<&str> {
    let mut ids: Vec<&str> = body["data"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    ids
}

fn query(search: &str) -> String {
    format!("{ROUTE}?search={}", url::form_urlencoded::byte_serialize(search.as_bytes()).collect::<String>())
}

#[tokio::test]
async fn the_observations_route_searches_names_and_ids_for_people_with_access() {
    let mut stack = Stack::new().await;
    stack.env.insert("LANGFUSE_INIT_USER_EMAIL".into(), "owner@example.com".into());
    stack.env.insert("LANGFUSE_INIT_USER_PASSWORD".into(), "owner password".into());
    stack.env.insert("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS".into(), "100".into());
    let app = web(&stack.env).await;
    let mut worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;

    let sent = http()
        .post(format!("{}/api/public/ingestion", app.base_url))
        .header("Authorization", basic(PUBLIC_KEY, SECRET_KEY))
        .json(&batch())
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), 207);

    let mut owner = Browser::default();
    let credentials = json!({"email": "owner@example.com", "password": "owner password"});
    owner.expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let page = owner.expect(&app, 200, "GET", ROUTE, None).await;
        if page["data"].as_array().unwrap().len() == 3 {
            break;
        }
        assert!(Instant::now() < deadline, "the observations never arrived: {page}\n{}", worker.log_tail());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Names contain the text whatever its case; ids, trace, user and session ids match exactly.
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &query("checkout"), None).await), ["obs-root"]);
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &query("LLM"), None).await), ["obs-llm"]);
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &query("trace-one"), None).await), ["obs-llm", "obs-root"]);
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &query("obs-other"), None).await), ["obs-other"]);
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &query("user-ada"), None).await), ["obs-root"]);
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &query("session-9"), None).await), ["obs-root"]);
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &query("trace-on"), None).await), Vec::<&str>::new());
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &query("  "), None).await).len(), 3, "a blank search is none");
    // With the v2 list's filters and pages.
    let errors = r#"[{"type":"stringOptions","column":"level","operator":"any of","value":["ERROR"]}]"#;
    let filtered = format!("{}&filter={}", query("trace-one"), url::form_urlencoded::byte_serialize(errors.as_bytes()).collect::<String>());
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &filtered, None).await), ["obs-llm"]);
    let first = owner.expect(&app, 200, "GET", &format!("{ROUTE}?limit=2&fields=basic,usage,scores"), None).await;
    assert_eq!(first["data"].as_array().unwrap().len(), 2);
    assert_eq!(first["data"][0]["id"], "obs-other", "newest first");
    let cursor = first["meta"]["cursor"].as_str().expect("a next page");
    let cursor = url::form_urlencoded::byte_serialize(cursor.as_bytes()).collect::<String>();
    let second = owner.expect(&app, 200, "GET", &format!("{ROUTE}?limit=2&cursor={cursor}"), None).await;
    assert_eq!(ids(&second), ["obs-root"]);
    let too_long = owner.send(&app, "GET", &query(&"x".repeat(201)), None, &[]).await;
    assert_eq!(too_long.status, 400, "{}", too_long.body);

    // Someone without access sees nothing there; as a VIEWER of the organization, they read.
    let mut stranger = signed_up(&app, "stranger@example.com").await;
    let answer = stranger.send(&app, "GET", ROUTE, None, &[]).await;
    assert_eq!(answer.status, 404, "{}", answer.body);
    let stranger_id = stranger.expect(&app, 200, "GET", "/api/ui/me", None).await["user"]["id"].clone();
    let member = json!({"userId": stranger_id, "role": "VIEWER"});
    owner.expect(&app, 200, "PUT", &format!("/api/ui/organizations/{ORG}/members"), Some(member)).await;
    assert_eq!(ids(&stranger.expect(&app, 200, "GET", &query("checkout"), None).await), ["obs-root"]);
    let signed_out = Browser::default().send(&app, "GET", ROUTE, None, &[]).await;
    assert_eq!(signed_out.status, 401);
}
