//! The monitors job against the real stores (PostgreSQL, ClickHouse on the test stack) and real
//! HTTP receivers on loopback: transitions, exactly one notification each, retries with their
//! delivery log, signatures, no storm, mute, the Slack and GitHub shapes, and claims that keep two
//! workers off the same monitor. Each test drives `tick` itself, so nothing waits on a timer it
//! does not need.

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sqlx::PgPool;

use domain::config::{MonitorSettings, WriteMode};
use domain::outbound::OutboundPolicy;
use domain::secrets::EncryptionKey;
use monitors::model::{MonitorPatch, NewMonitor};
use monitors::{Monitors, Rules, Tick};
use reads::Params;
use storage::clickhouse::ClickHouse;
use test_support::receiver::Receiver;
use test_support::{TestClickHouse, TestPostgres};

const PROJECT: &str = "p-monitors";
const SECRET: &str = "whsec-0123456789abcdef";

struct Env {
    _pg: TestPostgres,
    _ch: TestClickHouse,
    pool: PgPool,
    clickhouse: ClickHouse,
    key: EncryptionKey,
    policy: OutboundPolicy,
}

async fn env() -> Env {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let (pg, ch) = (TestPostgres::create().await, TestClickHouse::create().await);
    let pool = pg.pool().await;
    let clickhouse = ClickHouse::connect(&ch.settings());
    storage::schema::migrate(&pool, &clickhouse).await.unwrap();
    sqlx::query("INSERT INTO organizations (id, name) VALUES ('o', 'o')").execute(&pool).await.unwrap();
    for project in [PROJECT, "other"] {
        sqlx::query("INSERT INTO projects (id, org_id, name) VALUES ($1, 'o', $1)")
            .bind(project)
            .execute(&pool)
            .await
            .unwrap();
    }
    Env {
        _pg: pg,
        _ch: ch,
        pool,
        clickhouse,
        key: EncryptionKey::parse(&"5a".repeat(32)).unwrap(),
        policy: OutboundPolicy::allow_all(),
    }
}

impl Env {
    fn rules(&self) -> Rules<'_> {
        Rules { version: reads::metrics::Version::V2, key: Some(&self.key), policy: &self.policy }
    }

    fn job(&self, github: &str) -> Monitors {
        Monitors {
            postgres: self.pool.clone(),
            clickhouse: self.clickhouse.clone(),
            settings: MonitorSettings {
                poll_interval: Duration::from_millis(100),
                max_per_tick: 20,
                github_api_url: github.to_owned(),
            },
            write_mode: WriteMode::EventsOnly,
            key: Some(self.key.clone()),
            policy: self.policy.clone(),
            http: monitors::http_client(&self.policy),
        }
    }

    /// A monitor on the observation count of the last 5 minutes (0 in an empty database), so
    /// `>= 0` breaches and `>= 1` does not.
    async fn monitor(&self, threshold: f64, channels: Value) -> String {
        let new: NewMonitor = serde_json::from_value(json!({
            "name": "errors", "windowSeconds": 300, "comparison": ">=", "threshold": threshold,
            "intervalSeconds": 3600, "channels": channels,
            "query": {"view": "observations", "measure": "count", "aggregation": "count",
                      "filters": [{"column": "level", "operator": "=", "value": "ERROR", "type": "string"}]},
        }))
        .unwrap();
        monitors::api::create(&self.pool, PROJECT, None, new, &self.rules()).await.unwrap().id
    }

    async fn threshold(&self, id: &str, threshold: f64) {
        let patch = MonitorPatch { threshold: Some(threshold), ..MonitorPatch::default() };
        monitors::api::update(&self.pool, PROJECT, id, patch, &self.rules()).await.unwrap();
    }

    async fn notifications(&self, id: &str) -> Value {
        let page =
            monitors::api::notifications(&self.pool, PROJECT, id, &Params::from_pairs([])).await.unwrap();
        serde_json::to_value(page).unwrap()["data"].clone()
    }

    async fn evaluations(&self, id: &str) -> Value {
        let page =
            monitors::api::evaluations(&self.pool, PROJECT, id, &Params::from_pairs([])).await.unwrap();
        serde_json::to_value(page).unwrap()["data"].clone()
    }
}

/// Ticks until `done` says so, with a deadline.
async fn tick_until(job: &Monitors, limit: Duration, mut done: impl AsyncFnMut() -> bool) -> Tick {
    let deadline = Instant::now() + limit;
    let mut total = Tick::default();
    loop {
        let tick = job.tick().await.unwrap();
        total.evaluated += tick.evaluated;
        total.transitions += tick.transitions;
        total.delivered += tick.delivered;
        total.undelivered += tick.undelivered;
        if done().await {
            return total;
        }
        assert!(Instant::now() < deadline, "condition not met within {limit:?}: {total:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn verify(secret: &str, header: &str, body: &str) -> bool {
    let (Some(t), Some(v1)) =
        (header.strip_prefix("t=").and_then(|r| r.split(',').next()), header.split(",v1=").nth(1))
    else {
        return false;
    };
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret.as_bytes());
    let expected = hex::decode(v1).unwrap_or_default();
    ring::hmac::verify(&key, format!("{t}.{body}").as_bytes(), &expected).is_ok()
}

#[tokio::test]
async fn one_signed_notification_per_transition_with_retries_logged() {
    let env = env().await;
    let receiver = Receiver::start(&[500, 500], 200).await;
    let channels = json!([{"type": "webhook", "url": format!("{}/hook", receiver.url), "secret": SECRET}]);
    let id = env.monitor(0.0, channels).await;
    let job = env.job("http://127.0.0.1:9");

    // OK → ALERTING: one notification, delivered on the third attempt (500, 500, 200).
    let total = tick_until(&job, Duration::from_secs(30), async || {
        env.notifications(&id).await[0]["status"] == "delivered"
    })
    .await;
    assert_eq!((total.transitions, total.delivered, total.undelivered), (1, 1, 2), "{total:?}");
    let notifications = env.notifications(&id).await;
    assert_eq!(notifications.as_array().unwrap().len(), 1, "{notifications}");
    let codes: Vec<&Value> =
        notifications[0]["deliveries"].as_array().unwrap().iter().map(|d| &d["statusCode"]).collect();
    assert_eq!(codes, [&json!(500), &json!(500), &json!(200)], "{notifications}");
    let received = receiver.received();
    assert_eq!(received.len(), 3);
    let gaps: Vec<Duration> = received.windows(2).map(|w| w[1].at - w[0].at).collect();
    assert!(
        gaps[0] >= Duration::from_millis(900) && gaps[1] >= Duration::from_millis(1900),
        "back-off: {gaps:?}"
    );
    for request in &received {
        assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/hook"));
        let signature = request.header("x-loupe-signature").unwrap();
        assert!(verify(SECRET, signature, &request.text()), "{signature}");
        assert!(!verify("another secret!!", signature, &request.text()));
        assert_eq!(request.header("x-loupe-delivery"), notifications[0]["id"].as_str());
        assert_eq!(request.header("x-loupe-event"), Some("monitor.alerting"));
        assert_eq!(request.body, received[0].body, "a retry sends the same body");
    }
    let payload: Value = serde_json::from_slice(&received[0].body).unwrap();
    assert_eq!(
        (&payload["type"], &payload["state"], &payload["previousState"], &payload["value"]),
        (&json!("monitor.alerting"), &json!("ALERTING"), &json!("OK"), &json!(0.0)),
        "{payload}"
    );
    assert_eq!(payload["monitor"]["id"], id.as_str());
    assert_eq!(
        (&payload["comparison"], &payload["threshold"], &payload["windowSeconds"]),
        (&json!(">="), &json!(0.0), &json!(300))
    );

    // Still breaching: evaluations go on, nothing more is sent (no storm).
    for _ in 0..3 {
        monitors::api::evaluate_now(&env.pool, PROJECT, &id).await.unwrap();
        let tick = job.tick().await.unwrap();
        assert_eq!((tick.evaluated, tick.transitions), (1, 0), "{tick:?}");
    }
    assert_eq!(env.evaluations(&id).await.as_array().unwrap().len(), 4);
    assert_eq!(env.notifications(&id).await.as_array().unwrap().len(), 1);
    assert_eq!(receiver.received().len(), 3);

    // The threshold moves above the value: ALERTING → OK, one resolved notification.
    env.threshold(&id, 1.0).await;
    tick_until(&job, Duration::from_secs(10), async || receiver.received().len() == 4).await;
    let resolved = &receiver.received()[3];
    assert_eq!(resolved.header("x-loupe-event"), Some("monitor.resolved"));
    let payload: Value = serde_json::from_slice(&resolved.body).unwrap();
    assert_eq!((&payload["state"], &payload["previousState"]), (&json!("OK"), &json!("ALERTING")));
    let evaluations = env.evaluations(&id).await;
    assert_eq!((&evaluations[0]["state"], &evaluations[0]["transition"]), (&json!("OK"), &json!(true)));

    // Muted: the state still changes, no notification is made.
    monitors::api::set_muted(&env.pool, PROJECT, &id, true).await.unwrap();
    env.threshold(&id, 0.0).await;
    tick_until(&job, Duration::from_secs(10), async || {
        monitors::api::get(&env.pool, PROJECT, &id).await.unwrap().state == "ALERTING"
    })
    .await;
    let evaluations = env.evaluations(&id).await;
    assert_eq!((&evaluations[0]["transition"], &evaluations[0]["muted"]), (&json!(true), &json!(true)));
    assert_eq!(env.notifications(&id).await.as_array().unwrap().len(), 2, "none for a muted transition");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(receiver.received().len(), 4);

    // Another project sees none of it.
    let other = monitors::api::get(&env.pool, "other", &id).await.unwrap_err();
    assert!(other.to_string().contains("not found"), "{other}");
}

#[tokio::test]
async fn slack_and_github_get_their_own_shapes() {
    let env = env().await;
    let slack = Receiver::start(&[], 200).await;
    let github = Receiver::start(&[], 204).await;
    let channels = json!([
        {"type": "slack", "url": format!("{}/services/T000/B000/XXXX", slack.url)},
        {"type": "github", "owner": "acme", "repo": "app", "token": "ghp_test_token_1234", "eventType": "loupe-alert"},
    ]);
    let id = env.monitor(0.0, channels).await;
    let shown = monitors::api::get(&env.pool, PROJECT, &id).await.unwrap();
    let shown = serde_json::to_string(&shown).unwrap();
    assert!(!shown.contains("ghp_test_token") && !shown.contains("/services/T000"), "{shown}");
    assert!(shown.contains("...1234") && shown.contains("...XXXX"), "{shown}");

    let job = env.job(&format!("{}/api/v3", github.url));
    tick_until(&job, Duration::from_secs(10), async || {
        slack.received().len() == 1 && github.received().len() == 1
    })
    .await;
    let message = &slack.received()[0];
    assert_eq!(message.path, "/services/T000/B000/XXXX");
    let body: Value = serde_json::from_slice(&message.body).unwrap();
    let text = body["text"].as_str().unwrap();
    assert!(text.contains("\"errors\" is ALERTING") && text.contains(">= 0"), "{text}");
    assert_eq!(body["blocks"][0]["text"]["text"], text);

    let dispatch = &github.received()[0];
    assert_eq!(
        (dispatch.method.as_str(), dispatch.path.as_str()),
        ("POST", "/api/v3/repos/acme/app/dispatches")
    );
    assert_eq!(dispatch.header("authorization"), Some("Bearer ghp_test_token_1234"));
    assert_eq!(dispatch.header("accept"), Some("application/vnd.github+json"));
    let body: Value = serde_json::from_slice(&dispatch.body).unwrap();
    assert_eq!(body["event_type"], "loupe-alert");
    assert_eq!(body["client_payload"]["state"], "ALERTING");
    assert!(body["client_payload"].as_object().unwrap().len() <= 10, "GitHub's limit: {body}");
    let statuses: Vec<Value> = env
        .notifications(&id)
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["deliveries"][0]["statusCode"].clone())
        .collect();
    assert_eq!(statuses.len(), 2);
    assert!(statuses.contains(&json!(200)) && statuses.contains(&json!(204)), "{statuses:?}");
}

#[tokio::test]
async fn two_workers_never_evaluate_the_same_monitor() {
    let env = env().await;
    let mut ids = Vec::new();
    for _ in 0..12 {
        ids.push(env.monitor(0.0, json!([])).await);
    }
    let (a, b) = (env.job("http://127.0.0.1:9"), env.job("http://127.0.0.1:9"));
    let (ta, tb) = tokio::join!(a.tick(), b.tick());
    let (ta, tb) = (ta.unwrap(), tb.unwrap());
    assert_eq!(ta.evaluated + tb.evaluated, 12, "{ta:?} {tb:?}");
    for id in &ids {
        assert_eq!(env.evaluations(id).await.as_array().unwrap().len(), 1, "monitor {id} evaluated once");
    }
    // Due again only after their interval (an hour): a later poll evaluates nothing.
    assert_eq!(a.tick().await.unwrap().evaluated, 0);
}

#[tokio::test]
async fn a_permanent_refusal_is_not_retried() {
    let env = env().await;
    let receiver = Receiver::start(&[], 404).await;
    let channels = json!([{"type": "webhook", "url": receiver.url, "secret": SECRET}]);
    let id = env.monitor(0.0, channels).await;
    let job = env.job("http://127.0.0.1:9");
    tick_until(&job, Duration::from_secs(10), async || env.notifications(&id).await[0]["status"] == "failed")
        .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    job.tick().await.unwrap();
    assert_eq!(receiver.received().len(), 1);
    let notification = &env.notifications(&id).await[0];
    assert_eq!(notification["deliveries"][0]["statusCode"], 404, "{notification}");
}

#[tokio::test]
async fn two_creates_racing_at_99_leave_exactly_100() {
    let env = env().await;
    for _ in 0..99 {
        env.monitor(1.0, json!([])).await;
    }
    let new = || -> NewMonitor {
        serde_json::from_value(json!({
            "name": "racer", "windowSeconds": 300, "comparison": ">=", "threshold": 1,
            "intervalSeconds": 3600, "channels": [],
            "query": {"view": "observations", "measure": "count", "aggregation": "count"},
        }))
        .unwrap()
    };
    let rules = env.rules();
    // Both count before either inserts unless the count and the insert are serialized.
    let (a, b) = tokio::join!(
        monitors::api::create(&env.pool, PROJECT, None, new(), &rules),
        monitors::api::create(&env.pool, PROJECT, None, new(), &rules),
    );
    let refused: Vec<String> = [a, b].into_iter().filter_map(Result::err).map(|e| e.to_string()).collect();
    assert_eq!(refused.len(), 1, "exactly one of the two is refused: {refused:?}");
    assert!(refused[0].contains("at most 100 monitors"), "{refused:?}");
    let (count,): (i64,) = sqlx::query_as("SELECT count(*) FROM monitors WHERE project_id = $1")
        .bind(PROJECT)
        .fetch_one(&env.pool)
        .await
        .unwrap();
    assert_eq!(count, 100);
    // Another project has its own 100.
    monitors::api::create(&env.pool, "other", None, new(), &rules).await.unwrap();
}
