//! Google AI Studio's Gemini API (`POST {base}/v1beta/models/{model}:generateContent`,
//! `x-goog-api-key`). System messages become `systemInstruction`, the assistant is `model`;
//! structured output is `responseMimeType: application/json` with `responseSchema`, which takes
//! an OpenAPI subset of JSON Schema (see [`response_schema`]).

use crate::wire::HttpCall;
use crate::{
    ChatRequest, ChatResponse, ChatRole, Connection, LlmError, Usage, base_url, structured_from_text,
};
use secrecy::ExposeSecret;
use serde_json::{Map, Value, json};
use std::time::Duration;

pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com";

pub(crate) fn build(connection: &Connection, request: &ChatRequest) -> Result<HttpCall, LlmError> {
    let base = base_url(connection, DEFAULT_BASE_URL);
    let model = request.model.strip_prefix("models/").unwrap_or(&request.model);
    let model = crate::openai::url_segment(model);
    let url = if base.ends_with("/v1beta") || base.ends_with("/v1") {
        format!("{base}/models/{model}:generateContent")
    } else {
        format!("{base}/v1beta/models/{model}:generateContent")
    };
    let headers = vec![("x-goog-api-key", connection.api_key.expose_secret().to_owned())];
    Ok(HttpCall { url, headers, body: generate_content_body(request) })
}

/// The `generateContent` body, the same for AI Studio and Vertex AI.
pub(crate) fn generate_content_body(request: &ChatRequest) -> Value {
    let (system, turns) = request.split_system();
    let contents: Vec<Value> = turns
        .iter()
        .map(|message| {
            let role = if message.role == ChatRole::Assistant { "model" } else { "user" };
            json!({ "role": role, "parts": [{ "text": message.content }] })
        })
        .collect();
    let mut body = json!({});
    if let Some(system) = system {
        body["systemInstruction"] = json!({ "parts": [{ "text": system }] });
    }
    body["contents"] = json!(contents);
    let mut config = Map::new();
    let params = &request.params;
    if let Some(temperature) = params.temperature {
        config.insert("temperature".into(), json!(temperature));
    }
    if let Some(max_tokens) = params.max_tokens {
        config.insert("maxOutputTokens".into(), json!(max_tokens));
    }
    if let Some(top_p) = params.top_p {
        config.insert("topP".into(), json!(top_p));
    }
    if let Some(output) = &request.output {
        config.insert("responseMimeType".into(), json!("application/json"));
        config.insert("responseSchema".into(), response_schema(&output.schema));
    }
    if !config.is_empty() {
        body["generationConfig"] = Value::Object(config);
    }
    body
}

pub(crate) fn parse(body: &Value, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
    let Some(candidate) = body.get("candidates").and_then(|candidates| candidates.get(0)) else {
        let reason = body
            .pointer("/promptFeedback/blockReason")
            .and_then(Value::as_str)
            .map(|reason| format!("the prompt was blocked ({reason})"))
            .unwrap_or_else(|| "the reply has no candidates".to_owned());
        return Err(LlmError::bad_output(reason));
    };
    let text: String = candidate
        .pointer("/content/parts")
        .and_then(Value::as_array)
        .map(|parts| parts.iter().filter_map(|part| part.get("text").and_then(Value::as_str)).collect())
        .unwrap_or_default();
    let finish = candidate.get("finishReason").and_then(Value::as_str).unwrap_or("");
    let why = match finish {
        "" | "STOP" => String::new(),
        other => format!(" (finishReason {other})"),
    };
    let structured = match &request.output {
        Some(_) => Some(structured_from_text(&text).map_err(|error| match error {
            LlmError::BadOutput { message } => LlmError::bad_output(format!("{message}{why}")),
            error => error,
        })?),
        None if text.is_empty() => return Err(LlmError::bad_output(format!("the reply has no text{why}"))),
        None => None,
    };
    let usage = body.get("usageMetadata").map(|usage| {
        let count = |name: &str| usage.get(name).and_then(Value::as_u64).unwrap_or(0);
        let (input, output) = (count("promptTokenCount"), count("candidatesTokenCount"));
        let total = usage.get("totalTokenCount").and_then(Value::as_u64).unwrap_or(input + output);
        Usage { input, output, total }
    });
    let model = body.get("modelVersion").and_then(Value::as_str).unwrap_or(&request.model).to_owned();
    Ok(ChatResponse { text, structured, usage, model, latency: Duration::ZERO })
}

/// The keys Gemini's `Schema` object accepts; others (`additionalProperties`, `$schema`,
/// `const`, …) are rejected by the API, so they are dropped.
const SCHEMA_KEYS: [&str; 17] = [
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "anyOf",
    "items",
];

/// A JSON Schema in Gemini's `Schema` form: upper-case `type` names, `["x", "null"]` types as
/// `nullable`, unsupported keywords dropped (recursively through `properties`, `items`, `anyOf`).
pub(crate) fn response_schema(schema: &Value) -> Value {
    let Some(object) = schema.as_object() else { return schema.clone() };
    let mut out = Map::new();
    for (key, value) in object {
        if !SCHEMA_KEYS.contains(&key.as_str()) && key != "minimum" && key != "maximum" {
            continue;
        }
        let converted = match key.as_str() {
            "type" => match value {
                Value::String(name) => json!(name.to_uppercase()),
                Value::Array(names) => {
                    let mut chosen = None;
                    for name in names.iter().filter_map(Value::as_str) {
                        if name == "null" {
                            out.insert("nullable".into(), json!(true));
                        } else if chosen.is_none() {
                            chosen = Some(name.to_uppercase());
                        }
                    }
                    match chosen {
                        Some(name) => json!(name),
                        None => continue,
                    }
                }
                _ => continue,
            },
            "properties" => match value.as_object() {
                Some(properties) => Value::Object(
                    properties
                        .iter()
                        .map(|(name, property)| (name.clone(), response_schema(property)))
                        .collect(),
                ),
                None => continue,
            },
            "items" => response_schema(value),
            "anyOf" => match value.as_array() {
                Some(options) => Value::Array(options.iter().map(response_schema).collect()),
                None => continue,
            },
            _ => value.clone(),
        };
        out.insert(key.clone(), converted);
    }
    Value::Object(out)
}
