//! The Anthropic Messages API (`POST {base}/v1/messages`, `x-api-key`, `anthropic-version`).
//! System messages go to the top-level `system`; structured output is a tool the model is
//! forced to call (`tool_choice: {type: "tool"}`), whose `input` is the object.

use crate::wire::HttpCall;
use crate::{ChatRequest, ChatResponse, ChatRole, Connection, LlmError, Usage, base_url};
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use std::time::Duration;

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const API_VERSION: &str = "2023-06-01";
/// The Messages API requires `max_tokens`; this when the request leaves it unset.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

pub(crate) fn build(connection: &Connection, request: &ChatRequest) -> Result<HttpCall, LlmError> {
    let base = base_url(connection, DEFAULT_BASE_URL);
    // Accept a base given with or without the version segment.
    let url = if base.ends_with("/v1") { format!("{base}/messages") } else { format!("{base}/v1/messages") };
    let headers = vec![
        ("x-api-key", connection.api_key.expose_secret().to_owned()),
        ("anthropic-version", API_VERSION.to_owned()),
    ];
    let (system, turns) = request.split_system();
    let messages: Vec<Value> = turns
        .iter()
        .map(|message| {
            let role = if message.role == ChatRole::Assistant { "assistant" } else { "user" };
            json!({ "role": role, "content": message.content })
        })
        .collect();
    let mut body = json!({
        "model": request.model,
        "max_tokens": request.params.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
    });
    if let Some(system) = system {
        body["system"] = json!(system);
    }
    body["messages"] = json!(messages);
    if let Some(temperature) = request.params.temperature {
        body["temperature"] = json!(temperature);
    }
    if let Some(top_p) = request.params.top_p {
        body["top_p"] = json!(top_p);
    }
    if let Some(output) = &request.output {
        let name = crate::openai::schema_name(&output.name);
        body["tools"] = json!([{
            "name": name,
            "description": "Reply by calling this tool with the answer as its input.",
            "input_schema": output.schema,
        }]);
        body["tool_choice"] = json!({ "type": "tool", "name": name });
    }
    Ok(HttpCall { url, headers, body })
}

pub(crate) fn parse(body: &Value, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| LlmError::bad_output("the reply has no content"))?;
    let mut text = blocks
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("");
    let stop = body.get("stop_reason").and_then(Value::as_str);
    let cut = if stop == Some("max_tokens") { " (the reply was cut at max_tokens)" } else { "" };
    let structured = match &request.output {
        Some(_) => {
            let input = blocks
                .iter()
                .find(|block| block.get("type").and_then(Value::as_str) == Some("tool_use"))
                .and_then(|block| block.get("input"))
                .filter(|input| input.is_object())
                .ok_or_else(|| {
                    LlmError::bad_output(format!("the reply has no tool call with the object{cut}"))
                })?;
            text = input.to_string();
            Some(input.clone())
        }
        None if text.is_empty() => return Err(LlmError::bad_output(format!("the reply has no text{cut}"))),
        None => None,
    };
    let usage = body.get("usage").map(|usage| {
        let count = |name: &str| usage.get(name).and_then(Value::as_u64).unwrap_or(0);
        let (input, output) = (count("input_tokens"), count("output_tokens"));
        Usage { input, output, total: input + output }
    });
    let model = body.get("model").and_then(Value::as_str).unwrap_or(&request.model).to_owned();
    Ok(ChatResponse { text, structured, usage, model, latency: Duration::ZERO })
}
