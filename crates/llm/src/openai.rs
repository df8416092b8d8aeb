//! OpenAI chat completions (`POST {base}/chat/completions`, `Authorization: Bearer`), also
//! spoken by OpenAI-compatible servers, and Azure OpenAI's deployment form of the same body
//! (`POST {base}/{deployment}/chat/completions?api-version=…`, `api-key` header).

use crate::wire::HttpCall;
use crate::{
    ChatRequest, ChatResponse, ChatRole, Connection, LlmError, Usage, base_url, structured_from_text,
};
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use std::time::Duration;

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// The API version Langfuse pins for its Azure calls; Loupe uses the same.
pub const AZURE_API_VERSION: &str = "2025-02-01-preview";

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    OpenAi,
    Azure,
}

pub(crate) fn build(
    connection: &Connection,
    request: &ChatRequest,
    flavor: Flavor,
) -> Result<HttpCall, LlmError> {
    let key = connection.api_key.expose_secret().to_owned();
    let (url, headers) = match flavor {
        Flavor::OpenAi => {
            let url = format!("{}/chat/completions", base_url(connection, DEFAULT_BASE_URL));
            (url, vec![("authorization", format!("Bearer {key}"))])
        }
        Flavor::Azure => {
            let base = base_url(connection, "");
            if base.is_empty() {
                return Err(LlmError::refused(
                    "an Azure connection needs its baseURL (https://<resource>.openai.azure.com/openai/deployments)",
                ));
            }
            let deployment = url_segment(&request.model);
            let url = format!("{base}/{deployment}/chat/completions?api-version={AZURE_API_VERSION}");
            (url, vec![("api-key", key)])
        }
    };
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|message| {
            let role = match message.role {
                ChatRole::System => "system",
                ChatRole::User => "user",
                ChatRole::Assistant => "assistant",
            };
            json!({ "role": role, "content": message.content })
        })
        .collect();
    let mut body = json!({ "model": request.model, "messages": messages });
    let params = &request.params;
    if let Some(temperature) = params.temperature {
        body["temperature"] = json!(temperature);
    }
    if let Some(max_tokens) = params.max_tokens {
        body["max_tokens"] = json!(max_tokens);
    }
    if let Some(top_p) = params.top_p {
        body["top_p"] = json!(top_p);
    }
    if let Some(output) = &request.output {
        body["response_format"] = json!({
            "type": "json_schema",
            "json_schema": { "name": schema_name(&output.name), "schema": output.schema },
        });
    }
    Ok(HttpCall { url, headers, body })
}

pub(crate) fn parse(body: &Value, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
    let choice = body
        .get("choices")
        .and_then(|choices| choices.get(0))
        .ok_or_else(|| LlmError::bad_output("the reply has no choices"))?;
    let message =
        choice.get("message").ok_or_else(|| LlmError::bad_output("the reply's choice has no message"))?;
    if let Some(refusal) = message.get("refusal").and_then(Value::as_str) {
        return Err(LlmError::bad_output(format!("the model refused: {refusal}")));
    }
    let text = message.get("content").and_then(Value::as_str).unwrap_or_default().to_owned();
    let finish = choice.get("finish_reason").and_then(Value::as_str);
    let structured = match &request.output {
        Some(_) => Some(structured_from_text(&text).map_err(|error| truncated(error, finish))?),
        None if text.is_empty() => {
            return Err(truncated(LlmError::bad_output("the reply has no text"), finish));
        }
        None => None,
    };
    let usage = body.get("usage").map(|usage| {
        let count = |name: &str| usage.get(name).and_then(Value::as_u64).unwrap_or(0);
        let (input, output) = (count("prompt_tokens"), count("completion_tokens"));
        let total = usage.get("total_tokens").and_then(Value::as_u64).unwrap_or(input + output);
        Usage { input, output, total }
    });
    let model = body.get("model").and_then(Value::as_str).unwrap_or(&request.model).to_owned();
    Ok(ChatResponse { text, structured, usage, model, latency: Duration::ZERO })
}

/// Name a cut-off reply as such: the cause is the token limit, not the model's manners.
fn truncated(error: LlmError, finish: Option<&str>) -> LlmError {
    match (error, finish) {
        (LlmError::BadOutput { message }, Some("length")) => {
            LlmError::bad_output(format!("{message} (the reply was cut at max_tokens)"))
        }
        (error, _) => error,
    }
}

/// OpenAI wants `^[a-zA-Z0-9_-]{1,64}$` for a schema's name.
pub(crate) fn schema_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .take(64)
        .collect();
    if cleaned.is_empty() { "output".to_owned() } else { cleaned }
}

/// A model or deployment name as one URL path segment.
pub(crate) fn url_segment(name: &str) -> String {
    url::form_urlencoded::byte_serialize(name.as_bytes()).collect::<String>().replace('+', "%20")
}
