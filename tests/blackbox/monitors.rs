//! Monitors (`/api/public/monitors…`, docs/monitors.md) through running `web` and `worker`
//! binaries: a monitor over real ingested data (OTLP spans with errors) goes ALERTING and back to
//! OK, notifying a signed webhook on loopback once per transition, retried through failures; no
//! storm; a worker restart; mute. Then what the API refuses: bad input, roles over the session,
//! other projects, channel secrets without `ENCRYPTION_KEY`.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use test_support::receiver::Receiver;

use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, http};
use crate::identity::{basic, call, organization, project, project_key, web};
use crate::sessions::{Browser, signed_up};

const MONITORS: &str = "/api/public/monitors";
const KEY_HEX: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
const SECRET: &str = "whsec-blackbox-0123456789";

/// OTLP/JSON: `errors` spans at level ERROR and one healthy span, all starting now.
fn spans(errors: usize, run: u8) -> Value {
    let now = chrono::Utc::now().timestamp_nanos_opt().unwrap();
    let trace = format!("{run:02x}{}", "ab".repeat(15));
    let mut spans =
        vec![json!({"traceId": trace, "spanId": format!("{run:02x}00000000000001"), "name": "root",
        "kind": 1, "startTimeUnixNano": now.to_string(), "endTimeUnixNano": (now + 1_000_000).to_string()})];
    for i in 0..errors {
        spans.push(json!({
            "traceId": trace, "spanId": format!("{run:02x}{:014x}", i + 2), "parentSpanId": format!("{run:02x}00000000000001"),
            "name": "call llm", "kind": 1, "startTimeUnixNano": now.to_string(), "endTimeUnixNano": (now + 1_000_000).to_string(),
            "attributes": [{"key": "langfuse.observation.level", "value": {"stringValue": "ERROR"}}],
        }));
    }
    json!({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "blackbox"}, "spans": spans}]}]})
}

fn monitor(threshold: f64, channels: Value) -> Value {
    json!({
        "name": "LLM errors", "description": "errors in the last 5 minutes",
        "query": {"view": "observations", "measure": "count", "aggregation": "count",
                  "filters": [{"column": "level", "operator": "=", "value": "ERROR", "type": "string"}]},
        "windowSeconds": 300, "comparison": ">=", "threshold": threshold, "intervalSeconds": 10,
        "channels": channels,
    })
}

/// Polls `path` (as the bootstrap key) until `done` holds, evaluating the monitor now at each
/// turn when `nudge` names it; fails after a minute with the last answer and the worker's log.
async fn until(
    app: &App,
    worker: &App,
    path: &str,
    nudge: Option<&str>,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let key = basic(PUBLIC_KEY, SECRET_KEY);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(id) = nudge {
            let (status, body) = call(app, "POST", &format!("{MONITORS}/{id}/evaluate"), &key, None).await;
            assert_eq!(status, 200, "{body}");
        }
        let (status, body) = call(app, "GET", path, &key, None).await;
        if status == 200 && done(&body) {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "GET {path} never matched: {status} {body}\n{}",
            worker.log_tail()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

fn verify(header: &str, body: &str) -> bool {
    let Some((t, v1)) = header.strip_prefix("t=").and_then(|rest| rest.split_once(",v1=")) else {
        return false;
    };
    let Ok(expected) = hex::decode(v1) else { return false };
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, SECRET.as_bytes());
    ring::hmac::verify(&key, format!("{t}.{body}").as_bytes(), &expected).is_ok()
}

#[tokio::test]
async fn a_monitor_over_ingested_errors_alerts_once_and_recovers() {
    let mut stack = Stack::new().await;
    for (name, value) in [
        ("ENCRYPTION_KEY", KEY_HEX),
        ("LANGFUSE_MONITORS_POLL_INTERVAL_MS", "200"),
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
    ] {
        stack.env.insert(name.into(), value.into());
    }
    let app = web(&stack.env).await;
    let mut worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
    let key = basic(PUBLIC_KEY, SECRET_KEY);
    let receiver = Receiver::start(&[500, 500], 200).await;

    let channels = json!([{"type": "webhook", "url": format!("{}/loupe", receiver.url), "secret": SECRET}]);
    let (status, created) = call(&app, "POST", MONITORS, &key, Some(monitor(3.0, channels))).await;
    assert_eq!(status, 200, "{created}");
    assert!(!created.to_string().contains(SECRET), "the secret is never returned: {created}");
    assert_eq!(created["channels"][0]["displaySecret"], "...6789");
    let id = created["id"].as_str().unwrap().to_owned();
    let path = format!("{MONITORS}/{id}");
    let evaluations = format!("{path}/evaluations");
    let notifications = format!("{path}/notifications");

    // No errors yet: the first evaluation finds 0 and stays OK.
    let first =
        until(&app, &worker, &evaluations, None, |b| b["meta"]["totalItems"].as_u64() >= Some(1)).await;
    assert_eq!(
        (&first["data"][0]["value"], &first["data"][0]["state"]),
        (&json!(0.0), &json!("OK")),
        "{first}"
    );

    // Three errors arrive through OTLP: the monitor goes ALERTING.
    let sent = http()
        .post(format!("{}/api/public/otel/v1/traces", app.base_url))
        .header("Authorization", &key)
        .header("x-langfuse-ingestion-version", "4")
        .json(&spans(3, 1))
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), 200);
    let alerting = until(&app, &worker, &path, Some(&id), |m| m["state"] == "ALERTING").await;
    assert_eq!(alerting["lastValue"], 3.0, "{alerting}");

    // One notification, delivered on the third attempt; the delivery log has every status code.
    let delivered =
        until(&app, &worker, &notifications, None, |b| b["data"][0]["status"] == "delivered").await;
    assert_eq!(delivered["meta"]["totalItems"], 1, "{delivered}");
    let codes: Vec<Value> = delivered["data"][0]["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["statusCode"].clone())
        .collect();
    assert_eq!(codes, [json!(500), json!(500), json!(200)], "{delivered}");
    let received = receiver.received();
    assert_eq!(received.len(), 3);
    for request in &received {
        let signature = request.header("x-loupe-signature").unwrap();
        assert!(verify(signature, &request.text()), "a valid signature: {signature}");
        assert_eq!(request.header("x-loupe-delivery"), delivered["data"][0]["id"].as_str());
    }
    let payload: Value = serde_json::from_slice(&received[2].body).unwrap();
    assert_eq!(
        (&payload["type"], &payload["value"], &payload["threshold"]),
        (&json!("monitor.alerting"), &json!(3.0), &json!(3.0))
    );
    assert_eq!(payload["monitor"], json!({"id": id, "name": "LLM errors", "projectId": "project-blackbox"}));

    // Still breaching: two more evaluations, no more notifications (no storm).
    let seen = until(&app, &worker, &evaluations, None, |b| b["data"][0]["state"] == "ALERTING").await;
    let before = seen["meta"]["totalItems"].as_u64().unwrap();
    until(&app, &worker, &evaluations, Some(&id), |b| b["meta"]["totalItems"].as_u64() >= Some(before + 2))
        .await;
    let (_, listed) = call(&app, "GET", &notifications, &key, None).await;
    assert_eq!(listed["meta"]["totalItems"], 1, "{listed}");
    assert_eq!(receiver.received().len(), 3);

    // A worker stopped and another started: the next one goes on from what PostgreSQL holds.
    crate::lifecycle::terminate(&mut worker).await;
    worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;

    // The threshold moves above the value: back to OK, one resolved notification.
    let (status, patched) = call(&app, "PATCH", &path, &key, Some(json!({"threshold": 100}))).await;
    assert_eq!((status, &patched["threshold"]), (200, &json!(100.0)), "{patched}");
    until(&app, &worker, &path, None, |m| m["state"] == "OK").await;
    let resolved = receiver.wait_for(4, Duration::from_secs(30)).await;
    assert_eq!(resolved.len(), 4);
    assert_eq!(resolved[3].header("x-loupe-event"), Some("monitor.resolved"));

    // Muted: it goes ALERTING again, and nobody is told.
    let (status, muted) = call(&app, "POST", &format!("{path}/mute"), &key, None).await;
    assert_eq!((status, &muted["muted"]), (200, &json!(true)), "{muted}");
    call(&app, "PATCH", &path, &key, Some(json!({"threshold": 1}))).await;
    until(&app, &worker, &path, None, |m| m["state"] == "ALERTING").await;
    let history = until(&app, &worker, &evaluations, None, |b| b["data"][0]["state"] == "ALERTING").await;
    assert_eq!(
        (&history["data"][0]["transition"], &history["data"][0]["muted"]),
        (&json!(true), &json!(true))
    );
    let (_, listed) = call(&app, "GET", &notifications, &key, None).await;
    assert_eq!(listed["meta"]["totalItems"], 2, "no notification while muted: {listed}");
    let (status, unmuted) = call(&app, "POST", &format!("{path}/unmute"), &key, None).await;
    assert_eq!((status, &unmuted["muted"], &unmuted["state"]), (200, &json!(false), &json!("ALERTING")));
    assert_eq!(receiver.received().len(), 4);

    let (status, gone) = call(&app, "DELETE", &path, &key, None).await;
    assert_eq!((status, &gone["message"]), (200, &json!("Monitor successfully deleted")));
    assert_eq!(call(&app, "GET", &evaluations, &key, None).await.0, 404);
}

async fn as_person(
    app: &App,
    who: &mut Browser,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let answer = who.send(app, method, path, body, &[("X-Loupe-Project", "project-blackbox")]).await;
    (answer.status, answer.body)
}

#[tokio::test]
async fn monitors_check_input_roles_and_projects() {
    let mut stack = Stack::new().await;
    stack.env.insert("ENCRYPTION_KEY".into(), KEY_HEX.into());
    stack.env.insert("LANGFUSE_INIT_USER_EMAIL".into(), "owner@example.com".into());
    stack.env.insert("LANGFUSE_INIT_USER_PASSWORD".into(), "owner password".into());
    let app = web(&stack.env).await;
    let key = basic(PUBLIC_KEY, SECRET_KEY);
    let webhook = json!([{"type": "webhook", "url": "https://hooks.example.com/x", "secret": SECRET}]);

    // Bad input: 400 with a message naming the problem, as JSON.
    let with = |change: Value| {
        let mut body = monitor(3.0, json!([]));
        for (k, v) in change.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    let bad = [
        (with(json!({"name": ""})), "name must be"),
        (with(json!({"windowSeconds": 10})), "windowSeconds must be between 60"),
        (with(json!({"intervalSeconds": 1})), "intervalSeconds must be between 10"),
        (with(json!({"comparison": "=="})), "Invalid request data"),
        (with(json!({"surprise": 1})), "Invalid request data"),
        (
            with(json!({"query": {"view": "vibes", "measure": "count", "aggregation": "count"}})),
            "Invalid view `vibes`",
        ),
        (
            with(json!({"query": {"view": "observations", "measure": "nope", "aggregation": "sum"}})),
            "Invalid metric nope",
        ),
        (
            with(
                json!({"query": {"view": "observations", "measure": "latency", "aggregation": "histogram"}}),
            ),
            "one number",
        ),
        (
            with(json!({"channels": [{"type": "webhook", "url": "http://10.1.2.3:1/x", "secret": SECRET}]})),
            "LANGFUSE_OUTBOUND_ALLOWED_HOSTS",
        ),
        (
            with(json!({"channels": [{"type": "webhook", "url": "https://x.example", "secret": "short"}]})),
            "channels[0].secret",
        ),
        (with(json!({"channels": [{"type": "pager", "url": "https://x.example"}]})), "Invalid request data"),
        (
            with(
                json!({"channels": [{"type": "github", "owner": "a b", "repo": "r", "token": "t", "eventType": "e"}]}),
            ),
            "channels[0].owner",
        ),
    ];
    for (body, expected) in bad {
        let (status, answer) = call(&app, "POST", MONITORS, &key, Some(body)).await;
        assert_eq!(status, 400, "{expected}: {answer}");
        assert!(answer["message"].as_str().unwrap().contains(expected), "{expected:?} not in {answer}");
        assert!(answer["error"].is_string(), "{answer}");
    }
    assert_eq!(call(&app, "GET", &format!("{MONITORS}?limit=500"), &key, None).await.0, 400);

    // Roles over the session: a VIEWER reads and writes nothing; a MEMBER writes.
    let mut owner = Browser::default();
    let credentials = json!({"email": "owner@example.com", "password": "owner password"});
    owner.expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;
    let mut people = Vec::new();
    for (email, role) in [("member@example.com", "MEMBER"), ("viewer@example.com", "VIEWER")] {
        let mut person = signed_up(&app, email).await;
        let me = person.expect(&app, 200, "GET", "/api/ui/me", None).await;
        let body = json!({"userId": me["user"]["id"], "role": role});
        owner.expect(&app, 200, "PUT", "/api/ui/organizations/org-blackbox/members", Some(body)).await;
        people.push(person);
    }
    let (mut member, mut viewer) = (people.remove(0), people.remove(0));
    let (status, created) =
        as_person(&app, &mut member, "POST", MONITORS, Some(monitor(3.0, webhook.clone()))).await;
    assert_eq!(status, 200, "{created}");
    let path = format!("{MONITORS}/{}", created["id"].as_str().unwrap());
    let (status, read) = as_person(&app, &mut viewer, "GET", &path, None).await;
    assert_eq!((status, &read["name"]), (200, &json!("LLM errors")), "{read}");
    assert_eq!(as_person(&app, &mut viewer, "GET", &format!("{path}/evaluations"), None).await.0, 200);
    for (method, suffix, body) in [
        ("POST", "", Some(monitor(1.0, json!([])))),
        ("PATCH", "/x", Some(json!({"threshold": 1}))),
        ("DELETE", "/x", None),
        ("POST", "/x/mute", None),
        ("POST", "/x/unmute", None),
        ("POST", "/x/evaluate", None),
    ] {
        let target = if suffix.is_empty() { MONITORS.to_owned() } else { suffix.replacen("/x", &path, 1) };
        let (status, answer) = as_person(&app, &mut viewer, method, &target, body).await;
        assert_eq!(status, 403, "a VIEWER may not {method} {target}: {answer}");
    }

    // Another project's key sees none of it.
    let other_org = organization(&app, "elsewhere").await;
    let other = project(&app, &other_org, "other").await;
    let (other_key, _) = project_key(&app, &other_org, &other).await;
    let (status, list) = call(&app, "GET", MONITORS, &other_key, None).await;
    assert_eq!((status, &list["data"]), (200, &json!([])), "{list}");
    for (method, suffix) in
        [("GET", ""), ("PATCH", ""), ("DELETE", ""), ("POST", "/mute"), ("GET", "/notifications")]
    {
        let body = (method == "PATCH").then(|| json!({"threshold": 1}));
        let (status, answer) = call(&app, method, &format!("{path}{suffix}"), &other_key, body).await;
        assert_eq!(status, 404, "{method} {suffix}: {answer}");
    }
    let (status, list) = call(&app, "GET", MONITORS, &key, None).await;
    assert_eq!((status, &list["meta"]["totalItems"]), (200, &json!(1)), "{list}");

    // The routes are in the OpenAPI document.
    let (status, doc) = call(&app, "GET", "/api/public/openapi.json", &key, None).await;
    assert_eq!(status, 200);
    for route in ["/api/public/monitors", "/api/public/monitors/{monitorId}/notifications"] {
        assert!(doc["paths"][route].is_object(), "{route} documented");
    }

    // Without ENCRYPTION_KEY a channel's secret cannot be stored: 400 naming the setting.
    // (A stack of its own: this one stores channel secrets now.)
    let bare = Stack::new().await;
    let plain = web(&bare.env).await;
    let (status, answer) = call(&plain, "POST", MONITORS, &key, Some(monitor(3.0, webhook))).await;
    assert_eq!(status, 400, "{answer}");
    assert!(answer["message"].as_str().unwrap().contains("ENCRYPTION_KEY"), "{answer}");
    let (status, answer) = call(&plain, "POST", MONITORS, &key, Some(monitor(3.0, json!([])))).await;
    assert_eq!(status, 200, "a monitor without channels needs no key: {answer}");
}
