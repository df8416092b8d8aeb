//! The hostile-input suite: what a tenant with a valid key (or only a public key) could send to
//! wedge, crash or exhaust Loupe. Each case runs on a fresh deployment (its own databases, web and
//! worker), sends its payload, and then [`Deployment::survives`] asserts what must hold after any
//! input: web and worker are alive, web's peak memory stayed under 1 GiB, a canary span from the
//! same project is readable within 60 s, and every span acknowledged is stored.

mod cases;

use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use prost::Message;
use serde_json::Value;

use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, http};

/// web's peak resident memory must stay below this whatever a client sends.
const WEB_MEMORY_LIMIT: u64 = 1 << 30;
/// A canary must be readable within this after a hostile payload.
const CANARY_WITHIN: Duration = Duration::from_secs(60);

pub struct Deployment {
    pub stack: Stack,
    pub web: App,
    pub worker: App,
    /// Spans acknowledged so far (answered 200), which must all be stored.
    pub acknowledged_spans: u64,
}

pub fn basic() -> String {
    format!("Basic {}", STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}")))
}

/// The hex trace id `test_support::otlp` gives the first trace of `run`.
fn first_trace_hex(run: u64) -> String {
    let mut id = (run | 1 << 63).to_be_bytes().to_vec();
    id.extend_from_slice(&1u64.to_be_bytes());
    id.iter().map(|b| format!("{b:02x}")).collect()
}

impl Deployment {
    /// A fresh deployment with these settings on top of the test stack's.
    pub async fn start(settings: &[(&str, &str)]) -> Self {
        let mut stack = Stack::new().await;
        for (name, value) in settings {
            stack.env.insert((*name).into(), (*value).into());
        }
        let mut web = App::spawn("web", &stack.env, free_port());
        web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
        let mut worker = App::spawn("worker", &stack.env, free_port());
        worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
        Self { stack, web, worker, acknowledged_spans: 0 }
    }

    /// Posts an OTLP/HTTP body; a 200 counts its `spans` as acknowledged. Returns status and body.
    pub async fn post_otlp(&mut self, body: Vec<u8>, headers: &[(&str, &str)], spans: u64) -> (u16, String) {
        let mut request = http()
            .post(format!("{}/api/public/otel/v1/traces", self.web.base_url))
            .header("authorization", basic())
            .header("content-type", "application/x-protobuf");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.body(body).send().await.unwrap();
        let status = response.status().as_u16();
        if status == 200 {
            self.acknowledged_spans += spans;
        }
        (status, response.text().await.unwrap_or_default())
    }

    /// Posts a JSON body to a public route; returns status and body.
    pub async fn post_json(&self, path: &str, body: Vec<u8>) -> (u16, String) {
        let response = http()
            .post(format!("{}{path}", self.web.base_url))
            .header("authorization", basic())
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.text().await.unwrap_or_default())
    }

    /// Spans stored in `events_full` for the bootstrap project.
    pub async fn stored_spans(&self) -> u64 {
        self.stack
            .ch
            .client()
            .query(
                "SELECT uniqExact(span_id, trace_id) FROM events_full WHERE project_id = 'project-blackbox'",
            )
            .fetch_one()
            .await
            .unwrap()
    }

    /// After any payload: both processes alive and answering, web's peak memory bounded, a canary
    /// readable within a minute, and every acknowledged span stored.
    pub async fn survives(mut self) {
        for app in [&mut self.web, &mut self.worker] {
            if let Ok(Some(status)) = app.child.try_wait() {
                panic!("a process exited with {status}:\n{}", app.log_tail());
            }
        }
        let peak = peak_memory(&self.web);
        assert!(peak < WEB_MEMORY_LIMIT, "web's peak memory reached {} MiB", peak >> 20);

        let run = 0xCA_0A_12;
        let canary = test_support::otlp::export(run, 0, 1, 1).encode_to_vec();
        let (status, body) = self.post_otlp(canary, &[], 1).await;
        assert_eq!(status, 200, "the canary is accepted: {body}");
        let url =
            format!("{}/api/public/v2/observations?traceId={}", self.web.base_url, first_trace_hex(run));
        let deadline = Instant::now() + CANARY_WITHIN;
        loop {
            let response = http().get(&url).header("authorization", basic()).send().await.unwrap();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            if body["data"].as_array().is_some_and(|spans| spans.len() == 1) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the canary is not readable within {CANARY_WITHIN:?}: {body}\nworker:\n{}",
                self.worker.log_tail()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        self.worker.drained().await;
        assert_eq!(self.stored_spans().await, self.acknowledged_spans, "every acknowledged span is stored");
    }
}

/// The process's peak resident set (`VmHWM`), in bytes.
fn peak_memory(app: &App) -> u64 {
    let pid = app.child.id().unwrap();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}
