//! The Observations view's route, `GET /api/ui/projects/{id}/observations`, through a running web
//! and worker: the v2 list with `search` (name any case, or an exact id; or every word of input or
//! output), pages newest or oldest first, and access (a project the person cannot open is 404, a
//! VIEWER reads, a search past its bound is 400).

use std::time::{Duration, Instant};

use chrono::Utc;
use serde_json::{Value, json};

use crate::api::basic;
use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, http};
use crate::identity::web;
use crate::sessions::{Browser, signed_up};

const ORG: &str = "org-blackbox";
const ROUTE: &str = "/api/ui/projects/project-blackbox/observations";

const TRACE_ONE: &str = "0a000000000000000000000000000001";
const TRACE_TWO: &str = "0a000000000000000000000000000002";
const ROOT: &str = "0b00000000000001";
const LLM: &str = "0b00000000000002";
const OTHER: &str = "0b00000000000003";

fn nanos(seconds_ago: i64) -> String {
    let at = Utc::now() - chrono::Duration::seconds(seconds_ago);
    at.timestamp_nanos_opt().unwrap().to_string()
}

fn span(trace: &str, id: &str, parent: &str, name: &str, start: i64, attributes: &[(&str, &str)]) -> Value {
    let attributes: Vec<Value> =
        attributes.iter().map(|(k, v)| json!({"key": k, "value": {"stringValue": v}})).collect();
    json!({"traceId": trace, "spanId": id, "parentSpanId": parent, "name": name, "kind": 1,
        "startTimeUnixNano": nanos(start), "endTimeUnixNano": nanos(start - 1), "attributes": attributes})
}

/// OTLP/JSON with `x-langfuse-ingestion-version: 4`: written straight to the events tables.
fn spans() -> Value {
    let spans = vec![
        span(
            TRACE_ONE,
            ROOT,
            "",
            "Checkout Flow",
            30,
            &[
                ("user.id", "user-ada"),
                ("session.id", "session-9"),
                ("langfuse.observation.input", r#"{"question":"What is the Refund policy?"}"#),
            ],
        ),
        span(
            TRACE_ONE,
            LLM,
            ROOT,
            "call llm",
            25,
            &[
                ("langfuse.observation.type", "generation"),
                ("langfuse.observation.level", "ERROR"),
                ("langfuse.observation.output", "Refunds take five working days."),
            ],
        ),
        span(TRACE_TWO, OTHER, "", "unrelated", 10, &[]),
    ];
    json!({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "blackbox"}, "spans": spans}]}]})
}

fn ids(body: &Value) -> Vec<&str> {
    let mut ids: Vec<&str> =
        body["data"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
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
        .post(format!("{}/api/public/otel/v1/traces", app.base_url))
        .header("Authorization", basic(PUBLIC_KEY, SECRET_KEY))
        .header("x-langfuse-ingestion-version", "4")
        .json(&spans())
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), 200);

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
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &query("checkout"), None).await), [ROOT]);
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &query("LLM"), None).await), [LLM]);
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &query(TRACE_ONE), None).await), [ROOT, LLM]);
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &query(OTHER), None).await), [OTHER]);
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &query("user-ada"), None).await), [ROOT]);
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &query("session-9"), None).await), [ROOT]);
    assert_eq!(
        ids(&owner.expect(&app, 200, "GET", &query(&TRACE_ONE[..31]), None).await),
        Vec::<&str>::new()
    );
    assert_eq!(
        ids(&owner.expect(&app, 200, "GET", &query("  "), None).await).len(),
        3,
        "a blank search is none"
    );
    // With the v2 list's filters and pages.
    let errors = r#"[{"type":"stringOptions","column":"level","operator":"any of","value":["ERROR"]}]"#;
    let filtered = format!(
        "{}&filter={}",
        query(TRACE_ONE),
        url::form_urlencoded::byte_serialize(errors.as_bytes()).collect::<String>()
    );
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &filtered, None).await), [LLM]);
    let first =
        owner.expect(&app, 200, "GET", &format!("{ROUTE}?limit=2&fields=basic,usage,scores"), None).await;
    assert_eq!(first["data"].as_array().unwrap().len(), 2);
    assert_eq!(first["data"][0]["id"], OTHER, "newest first");
    let cursor = first["meta"]["cursor"].as_str().expect("a next page");
    let cursor = url::form_urlencoded::byte_serialize(cursor.as_bytes()).collect::<String>();
    let second = owner.expect(&app, 200, "GET", &format!("{ROUTE}?limit=2&cursor={cursor}"), None).await;
    assert_eq!(ids(&second), [ROOT]);
    // Oldest first, paged in that order; a cursor does not continue in the other order.
    let oldest = owner.expect(&app, 200, "GET", &format!("{ROUTE}?limit=2&order=asc"), None).await;
    let in_order: Vec<&str> =
        oldest["data"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(in_order, [ROOT, LLM]);
    let raw = oldest["meta"]["cursor"].as_str().expect("a next page");
    let up = url::form_urlencoded::byte_serialize(raw.as_bytes()).collect::<String>();
    let rest = owner.expect(&app, 200, "GET", &format!("{ROUTE}?limit=2&order=asc&cursor={up}"), None).await;
    assert_eq!(ids(&rest), [OTHER]);
    let crossed = owner.send(&app, "GET", &format!("{ROUTE}?limit=2&cursor={up}"), None, &[]).await;
    assert_eq!(crossed.status, 400, "{}", crossed.body);
    let bad_order = owner.send(&app, "GET", &format!("{ROUTE}?order=sideways"), None, &[]).await;
    assert_eq!(bad_order.status, 400, "{}", bad_order.body);

    // Input and output: every word, any case, in either; names are not searched then.
    let io = |text: &str| format!("{}&searchIn=io", query(text));
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &io("refund POLICY"), None).await), [ROOT]);
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &io("five days"), None).await), [LLM]);
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &io("refund"), None).await), [ROOT]);
    assert_eq!(
        ids(&owner.expect(&app, 200, "GET", &io("refun"), None).await),
        Vec::<&str>::new(),
        "words, not parts"
    );
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &io("refunds"), None).await), [LLM]);
    assert_eq!(ids(&owner.expect(&app, 200, "GET", &io("checkout"), None).await), Vec::<&str>::new());
    let no_word = owner.send(&app, "GET", &io("?!"), None, &[]).await;
    assert_eq!(no_word.status, 400, "{}", no_word.body);
    let bad_in = owner.send(&app, "GET", &format!("{}&searchIn=everything", query("x")), None, &[]).await;
    assert_eq!(bad_in.status, 400, "{}", bad_in.body);

    let too_long = owner.send(&app, "GET", &query(&"x".repeat(201)), None, &[]).await;
    assert_eq!(too_long.status, 400, "{}", too_long.body);

    // Someone without access sees nothing there; as a VIEWER of the organization, they read.
    let mut stranger = signed_up(&app, "stranger@example.com").await;
    let answer = stranger.send(&app, "GET", ROUTE, None, &[]).await;
    assert_eq!(answer.status, 404, "{}", answer.body);
    let stranger_id = stranger.expect(&app, 200, "GET", "/api/ui/me", None).await["user"]["id"].clone();
    let member = json!({"userId": stranger_id, "role": "VIEWER"});
    owner.expect(&app, 200, "PUT", &format!("/api/ui/organizations/{ORG}/members"), Some(member)).await;
    assert_eq!(ids(&stranger.expect(&app, 200, "GET", &query("checkout"), None).await), [ROOT]);
    let signed_out = Browser::default().send(&app, "GET", ROUTE, None, &[]).await;
    assert_eq!(signed_out.status, 401);
}
