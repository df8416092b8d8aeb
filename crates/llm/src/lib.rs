//! The one client every LLM call goes through (evaluators' judge calls, later the playground).
//!
//! A [`Connection`] says which provider and how to reach it (the decrypted form of a stored LLM
//! connection); a [`ChatRequest`] says what to ask. [`LlmClient::chat`] speaks the provider's
//! own wire format (no provider SDK): OpenAI chat completions (and any OpenAI-compatible server
//! through `base_url`), Azure OpenAI deployments, the Anthropic Messages API and Google AI
//! Studio's Gemini `generateContent` and Vertex AI's (with a service-account key). Bedrock is
//! refused as not supported yet.
//!
//! Failures come back classified ([`LlmError`]) so callers retry only what may succeed later
//! (429 with its `Retry-After`, 5xx, connect errors, timeouts) and record the provider's own
//! message otherwise. The API key never appears in an error or a log line.

mod anthropic;
mod google;
mod openai;
pub mod vertex;
mod wire;

use domain::outbound::OutboundPolicy;
use secrecy::SecretString;
use std::time::{Duration, Instant};

/// How Loupe talks to a provider: the SDK's `LlmAdapter` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Adapter {
    OpenAi,
    Anthropic,
    Azure,
    GoogleAiStudio,
    GoogleVertexAi,
    Bedrock,
}

impl Adapter {
    pub const ALL: [Adapter; 6] = [
        Adapter::OpenAi,
        Adapter::Anthropic,
        Adapter::Azure,
        Adapter::GoogleAiStudio,
        Adapter::GoogleVertexAi,
        Adapter::Bedrock,
    ];

    /// The wire name (`LlmAdapter` in the SDKs), also the stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            Adapter::OpenAi => "openai",
            Adapter::Anthropic => "anthropic",
            Adapter::Azure => "azure",
            Adapter::GoogleAiStudio => "google-ai-studio",
            Adapter::GoogleVertexAi => "google-vertex-ai",
            Adapter::Bedrock => "bedrock",
        }
    }

    pub fn parse(text: &str) -> Option<Adapter> {
        Adapter::ALL.into_iter().find(|adapter| adapter.as_str() == text)
    }

    /// Whether [`LlmClient::chat`] can call this adapter's provider. Bedrock (SigV4 signing) is
    /// not implemented yet.
    pub fn supported(self) -> bool {
        !matches!(self, Adapter::Bedrock)
    }
}

impl std::fmt::Display for Adapter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A provider connection with its secret in plain text (decrypted from storage only for a call).
#[derive(Clone)]
pub struct Connection {
    pub adapter: Adapter,
    /// OpenAI: the API root (`https://api.openai.com/v1` when unset; any OpenAI-compatible
    /// server). Azure: `https://<resource>.openai.azure.com/openai/deployments` (required).
    /// Anthropic and Google: the API root, defaulting to the public one.
    pub base_url: Option<String>,
    pub api_key: SecretString,
    /// Sent with every request after the adapter's own headers.
    pub extra_headers: Vec<(String, String)>,
    /// Adapter-specific settings as stored (`{"useResponsesApi": bool}` for OpenAI is accepted
    /// and ignored: calls use chat completions).
    pub config: Option<serde_json::Value>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let header_names: Vec<&str> = self.extra_headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("Connection")
            .field("adapter", &self.adapter)
            .field("base_url", &self.base_url)
            .field("api_key", &"[redacted]")
            .field("extra_headers", &header_names)
            .field("config", &self.config)
            .finish()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatRole {
    System,
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatMessage {
    pub role: ChatRole,
    pub content: String,
}

impl ChatMessage {
    pub fn system(content: impl Into<String>) -> Self {
        Self { role: ChatRole::System, content: content.into() }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self { role: ChatRole::User, content: content.into() }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self { role: ChatRole::Assistant, content: content.into() }
    }
}

/// Sampling settings; unset ones are left to the provider's defaults (Anthropic requires a
/// `max_tokens`: [`anthropic::DEFAULT_MAX_TOKENS`] when unset).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelParams {
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub top_p: Option<f64>,
}

/// Ask for a reply that is one JSON object matching `schema` (a JSON Schema of type `object`).
/// OpenAI and Azure: `response_format: json_schema`; Anthropic: a tool named `name` the model
/// is forced to call; Google: `responseSchema` (the schema's OpenAPI subset).
#[derive(Debug, Clone, PartialEq)]
pub struct StructuredOutput {
    pub name: String,
    pub schema: serde_json::Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// The model (Azure: the deployment name).
    pub model: String,
    pub messages: Vec<ChatMessage>,
    pub params: ModelParams,
    pub output: Option<StructuredOutput>,
}

impl ChatRequest {
    /// The request as the providers with a separate system field take it (Anthropic's `system`,
    /// Google's `systemInstruction`): the system messages' text joined, and the other turns in
    /// order. A prompt made only of system text has no turn, which both APIs need: its text
    /// becomes the one user turn.
    pub fn split_system(&self) -> (Option<String>, Vec<ChatMessage>) {
        let (system, turns): (Vec<&ChatMessage>, Vec<&ChatMessage>) =
            self.messages.iter().partition(|message| message.role == ChatRole::System);
        let text = system.iter().map(|message| message.content.as_str()).collect::<Vec<_>>().join("\n\n");
        if turns.is_empty() {
            return (None, vec![ChatMessage { role: ChatRole::User, content: text }]);
        }
        let system = (!system.is_empty()).then_some(text);
        (system, turns.into_iter().cloned().collect())
    }
}

/// Token counts as the provider reported them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub total: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    /// The reply's text (with structured output: the JSON text of `structured`).
    pub text: String,
    /// The object the model returned when the request asked for structured output.
    pub structured: Option<serde_json::Value>,
    pub usage: Option<Usage>,
    /// The model that answered as the provider names it (the requested one when not said).
    pub model: String,
    pub latency: Duration,
}

/// Why a call failed. Messages are the provider's own (or ours when it gave none), never the key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    /// 429: retry after `retry_after` when the provider said (`Retry-After`, `retry-after-ms`,
    /// or Google's `RetryInfo`).
    #[error("rate limited by the LLM provider: {message}")]
    RateLimited { message: String, retry_after: Option<Duration> },
    /// 5xx, connection failure or no answer within the client's timeout (`status` is `None`).
    #[error("LLM provider unavailable{}: {message}", status.map(|s| format!(" ({s})")).unwrap_or_default())]
    Unavailable { status: Option<u16>, message: String },
    /// Any other 4xx (bad key, unknown model, invalid request): retrying will not help. Also a
    /// connection this client cannot use (unsupported adapter, invalid header, missing URL),
    /// reported as 400.
    #[error("LLM provider refused the request ({status}): {message}")]
    Refused { status: u16, message: String },
    /// The provider answered 2xx but not with what was asked (no text, no object matching the
    /// schema, a refusal, a truncated reply).
    #[error("unusable LLM reply: {message}")]
    BadOutput { message: String },
}

impl LlmError {
    /// Whether the same call may succeed later.
    pub fn retryable(&self) -> bool {
        matches!(self, LlmError::RateLimited { .. } | LlmError::Unavailable { .. })
    }

    /// The `retry_after` of a rate limit.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            LlmError::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    fn refused(message: impl Into<String>) -> Self {
        LlmError::Refused { status: 400, message: message.into() }
    }

    fn bad_output(message: impl Into<String>) -> Self {
        LlmError::BadOutput { message: message.into() }
    }
}

/// One HTTP client shared by all calls (connection pooling); cheap to clone.
#[derive(Clone)]
pub struct LlmClient {
    http: std::sync::Arc<wire::Http>,
    timeout: Duration,
    /// Vertex AI access tokens, reused until shortly before they expire.
    tokens: std::sync::Arc<vertex::TokenCache>,
}

impl LlmClient {
    /// `timeout` bounds a whole call (connect, send, the provider's generation, the reply);
    /// `policy` says which destinations base URLs may reach (`LANGFUSE_OUTBOUND_ALLOWED_HOSTS`).
    pub fn new(policy: OutboundPolicy, timeout: Duration) -> Self {
        // reqwest is built without a default TLS provider; the binaries install ring's, tests may not.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let policy = std::sync::Arc::new(policy);
        let client = outbound::guarded_builder(std::sync::Arc::clone(&policy))
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .user_agent(concat!("loupe/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("an HTTP client with rustls (the crypto provider is installed above)");
        Self { http: std::sync::Arc::new(wire::Http { client, policy }), timeout, tokens: Default::default() }
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// One chat completion, mapped to and from `connection.adapter`'s wire format.
    pub async fn chat(
        &self,
        connection: &Connection,
        request: &ChatRequest,
    ) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        let call = match connection.adapter {
            Adapter::OpenAi => openai::build(connection, request, openai::Flavor::OpenAi)?,
            Adapter::Azure => openai::build(connection, request, openai::Flavor::Azure)?,
            Adapter::Anthropic => anthropic::build(connection, request)?,
            Adapter::GoogleAiStudio => google::build(connection, request)?,
            Adapter::GoogleVertexAi => {
                let body = vertex::call(&self.http, self.timeout, &self.tokens, connection, request).await?;
                let mut response = google::parse(&body, request)?;
                response.latency = started.elapsed();
                return Ok(response);
            }
            Adapter::Bedrock => {
                return Err(LlmError::refused(format!(
                    "the {} adapter is not supported yet by Loupe",
                    connection.adapter
                )));
            }
        };
        let body = wire::send(&self.http, self.timeout, connection, call).await?;
        let mut response = match connection.adapter {
            Adapter::OpenAi | Adapter::Azure => openai::parse(&body, request)?,
            Adapter::Anthropic => anthropic::parse(&body, request)?,
            _ => google::parse(&body, request)?,
        };
        response.latency = started.elapsed();
        Ok(response)
    }
}

/// The base URL without its trailing slashes, or `default`.
fn base_url<'a>(connection: &'a Connection, default: &'a str) -> &'a str {
    connection
        .base_url
        .as_deref()
        .map(str::trim)
        .filter(|url| !url.is_empty())
        .unwrap_or(default)
        .trim_end_matches('/')
}

/// Parse `text` as the JSON object structured output asked for.
fn structured_from_text(text: &str) -> Result<serde_json::Value, LlmError> {
    let trimmed = text.trim();
    // Some compatible servers wrap JSON in a Markdown fence despite the response format.
    let trimmed = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|rest| rest.trim_end().strip_suffix("```"))
        .unwrap_or(trimmed)
        .trim();
    match serde_json::from_str::<serde_json::Value>(trimmed) {
        Ok(value @ serde_json::Value::Object(_)) => Ok(value),
        Ok(_) => Err(LlmError::bad_output("the reply is JSON but not an object")),
        Err(error) => {
            Err(LlmError::bad_output(format!("the reply is not the JSON object asked for: {error}")))
        }
    }
}

#[cfg(test)]
mod tests;
