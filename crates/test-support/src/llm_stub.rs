//! A stand-in LLM provider for tests: a real HTTP server on `127.0.0.1:0` that answers the
//! wire formats the `llm` crate speaks, with replies the test scripts, failures it injects, and a
//! record of every request it received.
//!
//! Paths it answers (any method POST):
//! - `…/chat/completions` — OpenAI chat completions, so OpenAI (`baseURL` = [`LlmStub::openai_base_url`])
//!   and Azure (`baseURL` = [`LlmStub::azure_base_url`], path `/openai/deployments/{d}/chat/completions`).
//! - `…/v1/messages` — the Anthropic Messages API (`baseURL` = [`LlmStub::base_url`]).
//! - `…/models/{model}:generateContent` — Google AI Studio and Vertex AI (`baseURL` = [`LlmStub::base_url`]).
//! - `…/token` — a Google OAuth token endpoint for Vertex AI's service-account keys
//!   (`token_uri` = [`LlmStub::token_uri`]); always answers a token, without taking a scripted reply.
//!
//! ```ignore
//! let stub = LlmStub::start().await;
//! // An evaluator's judge: every structured request gets this object, in each provider's form
//! // (OpenAI/Gemini: the JSON text of the message; Anthropic: a `tool_use` block's input).
//! stub.set_default(StubReply::json(json!({"score": 0.9, "reasoning": "good"})));
//! // Or script the next replies in order (FIFO before the default):
//! stub.push(StubReply::RateLimited { retry_after_secs: 1 });
//! stub.push(StubReply::ServerError);
//! stub.push(StubReply::Hang(Duration::from_secs(30))); // longer than the client's timeout
//! // Or choose by request (for concurrent calls whose order is not fixed):
//! stub.respond_with(|request| if request.body_text().contains("bad") { StubReply::text("no") } else { StubReply::text("yes") });
//! // … create an LLM connection with `baseURL: stub.openai_base_url()` and run the code …
//! let seen = stub.wait_for_requests(3, Duration::from_secs(20)).await;
//! assert_eq!(seen[0].header("authorization"), Some("Bearer sk-test"));
//! assert_eq!(seen[0].body["model"], "gpt-4o-mini");
//! ```
//!
//! Replies carry usage `{input: 10, output: 5, total: 15}` and echo the requested model.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// What the stub answers to one request.
#[derive(Debug, Clone)]
pub enum StubReply {
    /// A plain text reply.
    Text(String),
    /// A structured reply: this object as the provider returns structured output.
    Json(Value),
    /// 429 with `Retry-After: retry_after_secs` and a provider-shaped error body.
    RateLimited { retry_after_secs: u64 },
    /// 500 with a provider-shaped error body.
    ServerError,
    /// Any status with this JSON body (e.g. 401 `{"error": {"message": "Invalid API key"}}`).
    Status(u16, Value),
    /// Wait this long, then answer with the default reply (to trip the caller's timeout).
    Hang(Duration),
}

impl StubReply {
    pub fn text(text: impl Into<String>) -> Self {
        StubReply::Text(text.into())
    }
    pub fn json(value: Value) -> Self {
        StubReply::Json(value)
    }
}

/// One request the stub received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    /// Lower-case names.
    pub headers: Vec<(String, String)>,
    /// The JSON body (a JSON string of the text when it was not JSON, e.g. a token request's form).
    pub body: Value,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    /// The body as text, to look for a phrase in the prompt whatever the provider's shape.
    pub fn body_text(&self) -> String {
        self.body.to_string()
    }

    /// Which wire format the request used.
    pub fn provider(&self) -> StubProvider {
        provider_of(&self.path)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StubProvider {
    OpenAi,
    Anthropic,
    Google,
    /// The OAuth token endpoint (Vertex AI).
    Token,
    Unknown,
}

fn provider_of(path: &str) -> StubProvider {
    if path.ends_with("/chat/completions") {
        StubProvider::OpenAi
    } else if path.ends_with("/v1/messages") {
        StubProvider::Anthropic
    } else if path.ends_with(":generateContent") {
        StubProvider::Google
    } else if path.ends_with("/token") {
        StubProvider::Token
    } else {
        StubProvider::Unknown
    }
}

type Responder = Arc<dyn Fn(&RecordedRequest) -> StubReply + Send + Sync>;

struct State {
    queue: VecDeque<StubReply>,
    default: StubReply,
    responder: Option<Responder>,
    requests: Vec<RecordedRequest>,
}

/// The running stub; the server stops when this is dropped.
pub struct LlmStub {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    notify: Arc<tokio::sync::Notify>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for LlmStub {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl LlmStub {
    /// Binds `127.0.0.1:0` and serves until dropped. The default reply is the text `stub reply`.
    pub async fn start() -> Self {
        let state = Arc::new(Mutex::new(State {
            queue: VecDeque::new(),
            default: StubReply::text("stub reply"),
            responder: None,
            requests: Vec::new(),
        }));
        let notify = Arc::new(tokio::sync::Notify::new());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind the LLM stub");
        let addr = listener.local_addr().expect("the stub's address");
        let (handler_state, handler_notify) = (state.clone(), notify.clone());
        let app = Router::new().fallback(move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
            let (state, notify) = (handler_state.clone(), handler_notify.clone());
            async move { answer(state, notify, method, uri, headers, body).await }
        });
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { addr, state, notify, server }
    }

    /// `http://127.0.0.1:<port>`: the base URL for Anthropic and Google AI Studio connections.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `…/v1`: the base URL for an OpenAI (or OpenAI-compatible) connection.
    pub fn openai_base_url(&self) -> String {
        format!("{}/v1", self.base_url())
    }

    /// `…/openai/deployments`: the base URL for an Azure connection.
    pub fn azure_base_url(&self) -> String {
        format!("{}/openai/deployments", self.base_url())
    }

    /// `…/token`: the `token_uri` of a service-account key for a Vertex AI connection.
    pub fn token_uri(&self) -> String {
        format!("{}/token", self.base_url())
    }

    /// Answer the next request with `reply` (replies queue in order, before the default).
    pub fn push(&self, reply: StubReply) {
        self.lock().queue.push_back(reply);
    }

    /// The reply when nothing is queued and no responder is set.
    pub fn set_default(&self, reply: StubReply) {
        self.lock().default = reply;
    }

    /// Choose each reply from the request (consulted when nothing is queued).
    pub fn respond_with(&self, responder: impl Fn(&RecordedRequest) -> StubReply + Send + Sync + 'static) {
        self.lock().responder = Some(Arc::new(responder));
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    /// The requests once there are at least `count`; panics after `deadline` with what came.
    pub async fn wait_for_requests(&self, count: usize, deadline: Duration) -> Vec<RecordedRequest> {
        let until = tokio::time::Instant::now() + deadline;
        loop {
            let notified = self.notify.notified();
            let seen = self.requests();
            if seen.len() >= count {
                return seen;
            }
            if tokio::time::timeout_at(until, notified).await.is_err() {
                panic!("the LLM stub got {} requests within {deadline:?}, expected {count}", seen.len());
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

async fn answer(
    state: Arc<Mutex<State>>,
    notify: Arc<tokio::sync::Notify>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let request = RecordedRequest {
        method: method.to_string(),
        path: uri.path().to_owned(),
        query: uri.query().map(str::to_owned),
        headers: headers
            .iter()
            .map(|(name, value)| {
                (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned())
            })
            .collect(),
        body: serde_json::from_slice(&body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned())),
    };
    if request.provider() == StubProvider::Token {
        state.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).requests.push(request);
        notify.notify_waiters();
        let token =
            json!({ "access_token": "stub-access-token", "expires_in": 3600, "token_type": "Bearer" });
        return (StatusCode::OK, axum::Json(token)).into_response();
    }
    let (reply, default) = {
        let mut state = state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        state.requests.push(request.clone());
        let default = state.default.clone();
        let reply = match state.queue.pop_front() {
            Some(reply) => reply,
            None => match state.responder.clone() {
                Some(responder) => responder(&request),
                None => default.clone(),
            },
        };
        (reply, default)
    };
    notify.notify_waiters();
    let reply = match reply {
        StubReply::Hang(wait) => {
            tokio::time::sleep(wait).await;
            default
        }
        other => other,
    };
    render(&request, reply)
}

fn render(request: &RecordedRequest, reply: StubReply) -> Response {
    let provider = request.provider();
    // Gemini names the model in the path (`/models/{model}:generateContent`), the others in the body.
    let from_path =
        request.path.rsplit_once("/models/").and_then(|(_, rest)| rest.strip_suffix(":generateContent"));
    let model =
        request.body.get("model").and_then(Value::as_str).or(from_path).unwrap_or("stub-model").to_owned();
    let error = |status: StatusCode, message: &str, kind: &str| {
        let body = match provider {
            StubProvider::Anthropic => {
                json!({ "type": "error", "error": { "type": kind, "message": message } })
            }
            StubProvider::Google => {
                json!({ "error": { "code": status.as_u16(), "message": message, "status": kind } })
            }
            _ => json!({ "error": { "message": message, "type": kind, "code": null } }),
        };
        (status, axum::Json(body))
    };
    let (text, object) = match reply {
        StubReply::RateLimited { retry_after_secs } => {
            let mut response =
                error(StatusCode::TOO_MANY_REQUESTS, "Rate limit reached (stub)", "rate_limit_error")
                    .into_response();
            response.headers_mut().insert("retry-after", retry_after_secs.into());
            return response;
        }
        StubReply::ServerError => {
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "The server had an error (stub)",
                "server_error",
            )
            .into_response();
        }
        StubReply::Status(status, body) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            return (status, axum::Json(body)).into_response();
        }
        StubReply::Text(text) => (text, None),
        StubReply::Json(value) => (value.to_string(), Some(value)),
        StubReply::Hang(_) => ("stub reply".to_owned(), None),
    };
    let body = match provider {
        StubProvider::Anthropic => {
            let content = match object {
                Some(input) => {
                    let name =
                        request.body.pointer("/tool_choice/name").and_then(Value::as_str).unwrap_or("output");
                    json!([{ "type": "tool_use", "id": "toolu_stub", "name": name, "input": input }])
                }
                None => json!([{ "type": "text", "text": text }]),
            };
            json!({
                "id": "msg_stub", "type": "message", "role": "assistant", "model": model, "content": content,
                "stop_reason": "end_turn", "usage": { "input_tokens": 10, "output_tokens": 5 },
            })
        }
        StubProvider::Google => json!({
            "candidates": [{ "content": { "role": "model", "parts": [{ "text": text }] }, "finishReason": "STOP" }],
            "usageMetadata": { "promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15 },
            "modelVersion": model,
        }),
        StubProvider::OpenAi => json!({
            "id": "chatcmpl-stub", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{ "index": 0, "message": { "role": "assistant", "content": text }, "finish_reason": "stop" }],
            "usage": { "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15 },
        }),
        StubProvider::Unknown | StubProvider::Token => {
            return error(
                StatusCode::NOT_FOUND,
                &format!("the LLM stub does not serve {}", request.path),
                "not_found",
            )
            .into_response();
        }
    };
    (StatusCode::OK, axum::Json(body)).into_response()
}
