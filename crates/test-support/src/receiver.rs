//! A stand-in for an outside HTTP service (a webhook receiver, Slack, GitHub's API): a real axum
//! server on `127.0.0.1:0` that records every request it gets and answers with the statuses it is
//! told to, in order, then with the default one.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};

/// One request as received.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub path: String,
    /// Header names lower-case.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub at: Instant,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

#[derive(Default)]
struct Script {
    statuses: VecDeque<u16>,
    default: u16,
    received: Vec<Received>,
}

/// The server; it stops when dropped.
pub struct Receiver {
    pub url: String,
    script: Arc<Mutex<Script>>,
    task: tokio::task::JoinHandle<()>,
}

impl Receiver {
    /// A receiver answering `statuses` in order, then `default` to every later request.
    pub async fn start(statuses: &[u16], default: u16) -> Self {
        let script = Arc::new(Mutex::new(Script {
            statuses: statuses.iter().copied().collect(),
            default,
            received: Vec::new(),
        }));
        let app = axum::Router::new().fallback(record).with_state(script.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
        let url = format!("http://{}", listener.local_addr().expect("a bound address"));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { url, script, task }
    }

    /// Every request so far.
    pub fn received(&self) -> Vec<Received> {
        self.script.lock().map(|s| s.received.clone()).unwrap_or_default()
    }

    /// Waits, up to `limit`, until at least `count` requests came; returns them all.
    pub async fn wait_for(&self, count: usize, limit: Duration) -> Vec<Received> {
        let deadline = Instant::now() + limit;
        loop {
            let received = self.received();
            if received.len() >= count || Instant::now() >= deadline {
                return received;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn record(
    State(script): State<Arc<Mutex<Script>>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let Ok(mut script) = script.lock() else { return StatusCode::INTERNAL_SERVER_ERROR };
    script.received.push(Received {
        method: method.to_string(),
        path: uri.path_and_query().map_or_else(|| uri.path().to_owned(), ToString::to_string),
        headers: headers
            .iter()
            .map(|(n, v)| (n.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect(),
        body: body.to_vec(),
        at: Instant::now(),
    });
    let status = script.statuses.pop_front().unwrap_or(script.default);
    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}
