//! The sessions pages' reads (`/api/ui/projects/{projectId}/sessions[/{sessionId}]`) through a
//! running web and worker in `dual`: one OTLP export of a direct producer lands in both data
//! models, so each figure (traces, observations, cost, tokens, duration, users) is checked in the
//! events (`model=v4`) and in the v3 tables (`model=v3`) alike; then paging, search, the time
//! range, the session page's traces with their bounded inputs, roles, isolation and the gates.

use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{SecondsFormat, Utc};
use serde_json::{Value, json};

use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, http};
use crate::identity::web;
use crate::sessions::{Browser, signed_up};

const PROJECT: &str = "project-blackbox";
const ORG: &str = "org-blackbox";
const MINUTE_NS: i64 = 60_000_000_000;
const SECOND_NS: i64 = 1_000_000_000;

/// One span of the export: `(trace, span, parent, name, start offset, end offset, attributes)`.
struct Span {
    trace: &'static str,
    span: &'static str,
    parent: &'static str,
    name: &'static str,
    start: i64,
    end: i64,
    attributes: Vec<(&'static str, String)>,
}

fn trace_id(trace: &str) -> String {
    format!("{:0>32}", hex(trace))
}

fn span_id(span: &str) -> String {
    format!("{:0>16}", hex(span))
}

fn hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

fn span(
    trace: &'static str,
    span: &'static str,
    parent: &'static str,
    name: &'static str,
    start: i64,
    end: i64,
) -> Span {
    Span { trace, span, parent, name, start, end, attributes: Vec::new() }
}

impl Span {
    fn with(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.attributes.push((key, value.into()));
        self
    }
}

/// An OTLP/JSON export of `spans`, times relative to `base` (nanoseconds since the epoch).
fn export(base: i64, spans: &[Span]) -> Value {
    let spans: Vec<Value> = spans
        .iter()
        .map(|s| {
            let attributes: Vec<Value> =
                s.attributes.iter().map(|(k, v)| json!({"key": k, "value": {"stringValue": v}})).collect();
            json!({
                "traceId": trace_id(s.trace), "spanId": span_id(s.span),
                "parentSpanId": if s.parent.is_empty() { String::new() } else { span_id(s.parent) },
                "name": s.name, "kind": 1,
                "startTimeUnixNano": (base + s.start).to_string(), "endTimeUnixNano": (base + s.end).to_string(),
                "attributes": attributes
            })
        })
        .collect();
    json!({"resourceSpans": [{
        "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "chat-app"}}]},
        "scopeSpans": [{"scope": {"name": "blackbox"}, "spans": spans}]
    }]})
}

/// Two sessions and a trace outside any: `chat-1` (alice's turn at -10 min with a generation of 30
/// tokens and $0.75, bob's at -10 min + 10 s, 3 s long, 10 tokens and $0.25), `chat-2` (one
/// trace an hour ago), and `loose`. The first turn's input is 5,000 characters long.
fn seed(base: i64) -> Value {
    let generation = |trace, id, parent, start, end, tokens: u64, cost: f64| {
        span(trace, id, parent, "llm", start, end)
            .with("langfuse.observation.type", "generation")
            .with(
                "langfuse.observation.usage_details",
                json!({"input": tokens / 3, "output": tokens - tokens / 3, "total": tokens}).to_string(),
            )
            .with("langfuse.observation.cost_details", json!({"total": cost}).to_string())
    };
    let session = |s: Span, session: &str, user: &str| s.with("session.id", session).with("user.id", user);
    let long_question = format!("\"{}\"", "why? ".repeat(1000));
    let t1 = -10 * MINUTE_NS;
    let t2 = t1 + 10 * SECOND_NS;
    export(
        base,
        &[
            session(span("ta", "ta-root", "", "turn-1", t1, t1 + 2 * SECOND_NS), "chat-1", "alice")
                .with("langfuse.observation.input", long_question)
                .with("langfuse.observation.output", "\"because\""),
            session(generation("ta", "ta-llm", "ta-root", t1, t1 + SECOND_NS, 30, 0.75), "chat-1", "alice"),
            session(span("tb", "tb-root", "", "turn-2", t2, t2 + 3 * SECOND_NS), "chat-1", "bob")
                .with("langfuse.observation.input", "\"and then?\"")
                .with("langfuse.observation.output", "\"the end\""),
            session(generation("tb", "tb-llm", "tb-root", t2, t2 + SECOND_NS, 10, 0.25), "chat-1", "bob"),
            session(
                span("tc", "tc-root", "", "earlier", -60 * MINUTE_NS, -60 * MINUTE_NS + SECOND_NS),
                "chat-2",
                "alice",
            ),
            span("td", "td-root", "", "loose", -5 * MINUTE_NS, -5 * MINUTE_NS + SECOND_NS)
                .with("user.id", "carol"),
        ],
    )
}

struct Running {
    web: App,
    _worker: App,
    _stack: Stack,
    owner: Browser,
}

async fn start() -> Running {
    let (stack, web, owner) = signed_in(&[
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual"),
        ("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN", "true"),
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
    ])
    .await;
    let mut worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
    Running { web, _worker: worker, _stack: stack, owner }
}

impl Running {
    async fn sessions(&mut self, query: &str) -> Value {
        let path = format!("/api/ui/projects/{PROJECT}/sessions?{query}");
        self.owner.expect(&self.web, 200, "GET", &path, None).await
    }

    async fn session(&mut self, id: &str, query: &str) -> Value {
        let path = format!("/api/ui/projects/{PROJECT}/sessions/{id}?{query}");
        self.owner.expect(&self.web, 200, "GET", &path, None).await
    }

    /// Polls the list until it shows what the worker was given, with a deadline.
    async fn until_stored(&mut self, model: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let page = self.sessions(&format!("model={model}")).await;
            if page["data"].as_array().unwrap().iter().map(|s| &s["observations"]).collect::<Vec<_>>()
                == [&json!(4), &json!(1)]
            {
                return;
            }
            assert!(Instant::now() < deadline, "{model}: the sessions never showed: {page}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

fn ids(page: &Value) -> Vec<&str> {
    page["data"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect()
}

fn close(value: &Value, expected: f64) -> bool {
    value.as_f64().is_some_and(|v| (v - expected).abs() < 1e-9)
}

#[tokio::test]
async fn sessions_are_aggregated_in_both_models_with_paging_search_and_a_time_range() {
    let mut run = start().await;
    let base = Utc::now().timestamp_nanos_opt().unwrap();
    let response = http()
        .post(format!("{}/api/public/otel/v1/traces", run.web.base_url))
        .header("Authorization", format!("Basic {}", STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}"))))
        .header("Content-Type", "application/json")
        .header("x-langfuse-ingestion-version", "4")
        .body(seed(base).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);

    for model in ["v4", "v3"] {
        run.until_stored(model).await;
        let page = run.sessions(&format!("model={model}")).await;
        assert_eq!(ids(&page), ["chat-1", "chat-2"], "{model}: newest first, no loose trace: {page}");
        assert_eq!(page["meta"], json!({"page": 1, "limit": 50, "totalItems": 2, "totalPages": 1}));
        let chat = &page["data"][0];
        assert_eq!((&chat["traces"], &chat["observations"]), (&json!(2), &json!(4)), "{model}: {chat}");
        assert!(close(&chat["totalCost"], 1.0), "{model}: {chat}");
        assert_eq!(chat["totalTokens"], 40, "{model}: {chat}");
        assert!(close(&chat["durationSeconds"], 13.0), "{model}: first start to last end: {chat}");
        assert_eq!((&chat["userIds"], &chat["userCount"]), (&json!(["alice", "bob"]), &json!(2)), "{model}");
        let first = chrono::DateTime::parse_from_rfc3339(chat["firstAt"].as_str().unwrap()).unwrap();
        let expected = base - 10 * MINUTE_NS;
        assert_eq!(first.timestamp_nanos_opt().unwrap() / 1_000_000, expected / 1_000_000, "{model}: {chat}");

        // Paging: the window's total on a page, and the count past the last one.
        let second = run.sessions(&format!("model={model}&limit=1&page=2")).await;
        assert_eq!(ids(&second), ["chat-2"]);
        assert_eq!(second["meta"], json!({"page": 2, "limit": 1, "totalItems": 2, "totalPages": 2}));
        let past = run.sessions(&format!("model={model}&limit=1&page=3")).await;
        assert_eq!((ids(&past).len(), &past["meta"]["totalItems"]), (0, &json!(2)));

        // Search by a session id or a user id, any case; a time range counts what starts in it.
        assert_eq!(ids(&run.sessions(&format!("model={model}&search=BOB")).await), ["chat-1"]);
        assert_eq!(ids(&run.sessions(&format!("model={model}&search=Chat-2")).await), ["chat-2"]);
        assert_eq!(ids(&run.sessions(&format!("model={model}&search=carol")).await), Vec::<&str>::new());
        let from = (Utc::now() - chrono::Duration::minutes(30)).to_rfc3339_opts(SecondsFormat::Millis, true);
        let recent = run.sessions(&format!("model={model}&fromTimestamp={from}")).await;
        assert_eq!(ids(&recent), ["chat-1"], "{model}: {recent}");
        let to = (Utc::now() - chrono::Duration::minutes(30)).to_rfc3339_opts(SecondsFormat::Millis, true);
        assert_eq!(ids(&run.sessions(&format!("model={model}&toTimestamp={to}")).await), ["chat-2"]);

        // The session page: its figures and its traces, oldest first, inputs cut at 2,000 characters.
        let detail = run.session("chat-1", &format!("model={model}")).await;
        assert_eq!(detail["session"], page["data"][0], "{model}: the same figures as the list");
        let traces = detail["traces"]["data"].as_array().unwrap();
        let names: Vec<&str> = traces.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["turn-1", "turn-2"], "{model}: {detail}");
        let (a, b) = (&traces[0], &traces[1]);
        assert_eq!(a["id"], trace_id("ta"));
        assert_eq!(
            (&a["observations"], &a["totalTokens"], &a["userId"]),
            (&json!(2), &json!(30), &json!("alice"))
        );
        assert!(close(&a["totalCost"], 0.75) && close(&a["durationSeconds"], 2.0), "{model}: {a}");
        let input = a["input"].as_str().unwrap();
        assert_eq!(input.chars().count(), 2000, "{model}: a bounded preview");
        assert!(input.contains("why? why?"), "{model}: {input:.40}");
        assert!(a["inputChars"].as_u64().unwrap() >= 5000, "{model}: {}", a["inputChars"]);
        let (b_input, b_output) = (b["input"].as_str().unwrap(), b["output"].as_str().unwrap());
        assert!(b_input.contains("and then?") && b_output.contains("the end"), "{model}: {b}");
        let root = if model == "v4" { json!(span_id("tb-root")) } else { Value::Null };
        assert_eq!(b["rootObservationId"], root, "{model}");
        assert_eq!(detail["traces"]["meta"]["totalItems"], 2);
        let paged = run.session("chat-1", &format!("model={model}&limit=1&page=2")).await;
        assert_eq!(paged["traces"]["data"][0]["name"], "turn-2");

        let path = format!("/api/ui/projects/{PROJECT}/sessions/no-such-session?model={model}");
        let missing = run.owner.expect(&run.web, 404, "GET", &path, None).await;
        assert_eq!(missing["message"], "Session not found");
    }
}

/// A web with `settings`, and its first user signed in.
async fn signed_in(settings: &[(&str, &str)]) -> (Stack, App, Browser) {
    let mut stack = Stack::new().await;
    let user = [
        ("LANGFUSE_INIT_USER_EMAIL", "owner@example.com"),
        ("LANGFUSE_INIT_USER_PASSWORD", "owner password"),
    ];
    for (name, value) in settings.iter().chain(&user) {
        stack.env.insert((*name).into(), (*value).into());
    }
    let app = web(&stack.env).await;
    let mut owner = Browser::default();
    let credentials = json!({"email": "owner@example.com", "password": "owner password"});
    owner.expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;
    (stack, app, owner)
}

#[tokio::test]
async fn sessions_follow_roles_isolation_and_the_write_mode() {
    let (_stack, app, mut owner) = signed_in(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy")]).await;
    let list = format!("/api/ui/projects/{PROJECT}/sessions");

    // The model is named, bounded and served only where the write mode writes it.
    let empty = owner.expect(&app, 200, "GET", &format!("{list}?model=v3"), None).await;
    assert_eq!(
        empty,
        json!({"data": [], "meta": {"page": 1, "limit": 50, "totalItems": 0, "totalPages": 0}})
    );
    let v4 = owner.expect(&app, 404, "GET", &format!("{list}?model=v4"), None).await;
    assert!(v4["message"].as_str().unwrap().contains("legacy write mode"), "{v4}");
    // Without `model`, the write mode's own: v3 in `legacy`.
    assert_eq!(owner.expect(&app, 200, "GET", &list, None).await, empty);
    for bad in ["?model=v5", "?model=v3&limit=101", "?model=v3&page=0", "?model=v3&fromTimestamp=soon"] {
        let body = owner.expect(&app, 400, "GET", &format!("{list}{bad}"), None).await;
        assert!(body["message"].is_string(), "{bad}: {body}");
    }
    let long = "x".repeat(201);
    owner.expect(&app, 400, "GET", &format!("{list}?model=v3&search={long}"), None).await;

    // A viewer reads; a person of another organization, or nobody, does not.
    let mut viewer = signed_up(&app, "viewer@example.com").await;
    let viewer_id = viewer.expect(&app, 200, "GET", "/api/ui/me", None).await["user"]["id"].clone();
    let membership = json!({"userId": viewer_id, "role": "VIEWER"});
    owner.expect(&app, 200, "PUT", &format!("/api/ui/organizations/{ORG}/members"), Some(membership)).await;
    viewer.expect(&app, 200, "GET", &format!("{list}?model=v3"), None).await;
    let mut stranger = signed_up(&app, "stranger@example.com").await;
    for path in [format!("{list}?model=v3"), format!("/api/ui/projects/{PROJECT}/sessions/s?model=v3")] {
        let body = stranger.expect(&app, 404, "GET", &path, None).await;
        assert!(
            !body.to_string().contains("model"),
            "the project, not the model, is what is missing: {body}"
        );
        Browser::default().expect(&app, 401, "GET", &path, None).await;
    }
    stranger.expect(&app, 404, "GET", "/api/ui/projects/no-such-project/sessions?model=v3", None).await;

    // events_only serves the v4 model only.
    let (_stack, app, mut owner) = signed_in(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "events_only")]).await;
    owner.expect(&app, 404, "GET", &format!("{list}?model=v3"), None).await;
    owner.expect(&app, 200, "GET", &format!("{list}?model=v4"), None).await;
}
