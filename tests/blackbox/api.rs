//! A running `web` and a JSON client for the resource endpoints, with a second project to prove
//! that one project's key never reaches another's data.

use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use reqwest::Method;
use serde_json::Value;

use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, http};

pub struct Api {
    pub web: App,
    pub stack: Stack,
    /// `Authorization` of the bootstrap project's key pair.
    pub key: String,
}

pub fn basic(public_key: &str, secret_key: &str) -> String {
    format!("Basic {}", STANDARD.encode(format!("{public_key}:{secret_key}")))
}

/// Project `other` with the key pair `pk-lf-other` / `sk-lf-other`, written the way bootstrap
/// writes keys: the second project of the isolation tests.
pub async fn add_other_project(stack: &Stack) {
    let pool = stack.pg.pool().await;
    sqlx::query("INSERT INTO projects (id, org_id, name) VALUES ('other', 'org-blackbox', 'Other')")
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO api_keys (id, project_id, public_key, hashed_secret_key, display_secret_key) \
         VALUES (gen_random_uuid(), 'other', 'pk-lf-other', $1, 'sk-lf-...ther')",
    )
    .bind(domain::auth::hash_secret("sk-lf-other", &"blackbox-salt".to_owned().into()))
    .execute(&pool)
    .await
    .unwrap();
}

impl Api {
    /// `web` alone (no worker) on a fresh stack, with `env` added to the defaults.
    pub async fn start(env: &[(&str, &str)]) -> Self {
        Self::start_with(env, &[]).await
    }

    /// Like [`Api::start`], without the default settings named in `remove`.
    pub async fn start_with(env: &[(&str, &str)], remove: &[&str]) -> Self {
        let mut stack = Stack::new().await;
        for name in remove {
            stack.env.remove(*name);
        }
        for (name, value) in env {
            stack.env.insert((*name).into(), (*value).into());
        }
        let mut web = App::spawn("web", &stack.env, free_port());
        web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
        Self { web, stack, key: basic(PUBLIC_KEY, SECRET_KEY) }
    }

    /// A worker on the same stack, once healthy; it stops when dropped.
    pub async fn worker(&self) -> App {
        let mut worker = App::spawn("worker", &self.stack.env, free_port());
        worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
        worker
    }

    /// A second project with its own key pair; returns that key's `Authorization`.
    pub async fn other_project(&self) -> String {
        add_other_project(&self.stack).await;
        basic("pk-lf-other", "sk-lf-other")
    }

    /// Sends a request as `key`; the status and the JSON body (`Null` when there is none).
    pub async fn send_as(&self, key: &str, method: Method, path: &str, body: Option<&Value>) -> (u16, Value) {
        let mut request =
            http().request(method, format!("{}{path}", self.web.base_url)).header("Authorization", key);
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    pub async fn send(&self, method: Method, path: &str, body: Option<&Value>) -> (u16, Value) {
        self.send_as(&self.key, method, path, body).await
    }

    /// Polls `GET path` until it answers 200 with a body for which `done` holds; fails after a
    /// minute with the last answer and web's log.
    pub async fn until(&self, path: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let (status, body) = self.send(Method::GET, path, None).await;
            if status == 200 && done(&body) {
                return body;
            }
            assert!(
                Instant::now() < deadline,
                "GET {path} never matched; last {status}: {body}\n{}",
                self.web.log_tail()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Sends a request that must answer `status`; returns the body.
    pub async fn expect(&self, status: u16, method: Method, path: &str, body: Option<&Value>) -> Value {
        let (got, answer) = self.send(method.clone(), path, body).await;
        assert_eq!(got, status, "{method} {path}: {answer}\n{}", self.web.log_tail());
        answer
    }
}
