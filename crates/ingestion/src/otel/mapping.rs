//! Field rules: one function per event field, each a reading of reference/public-api.md §3.4–3.6 and
//! reference/storage.md §7.3 (key lists in `keys.rs`).

use chrono::{DateTime, NaiveDate, NaiveDateTime};
use domain::event::{Experiment, Level, Metadata, Micros};
use opentelemetry_proto::tonic::trace::v1::Status;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use serde_json::{Map, Value};

use super::attributes::{Attributes, is_truthy, parse_json_text, to_text};
use super::keys;
use super::metadata::{Leaves, flatten_into};

pub fn observation_name(span_name: String, attributes: &Attributes) -> String {
    if let Some(name) = attributes.first_text(keys::NAME_KEYS) {
        return name;
    }
    // Vercel AI SDK: the tool name, else `<function id>:<operation id>`.
    if let Some(tool) = attributes.get("ai.toolCall.name") {
        return to_text(tool);
    }
    if let Some(operation) = attributes.get("ai.operationId") {
        let prefix = attributes.truthy("ai.telemetry.functionId").map(|f| format!("{}:", to_text(f)));
        return format!("{}{}", prefix.unwrap_or_default(), to_text(operation));
    }
    span_name
}

/// Each key on the span, then on the resource (key order first, as upstream), else `default`.
pub fn environment(attributes: &Attributes, resource: &Attributes) -> String {
    keys::ENVIRONMENT_KEYS
        .iter()
        .find_map(|k| attributes.truthy(k).or_else(|| resource.truthy(k)))
        .map_or_else(|| keys::DEFAULT_ENVIRONMENT.to_owned(), to_text)
}

pub fn version(attributes: &Attributes, resource: &Attributes) -> Option<String> {
    attributes.get(keys::VERSION).or_else(|| resource.get(keys::SERVICE_VERSION)).map(to_text)
}

pub fn release(attributes: &Attributes, resource: &Attributes) -> Option<String> {
    attributes.get(keys::RELEASE).or_else(|| resource.get(keys::RELEASE)).map(to_text)
}

/// The explicit level, else ERROR for an OTel error status, else DEBUG for LiveKit's noisy
/// spans, else DEFAULT. An unknown explicit level falls through rather than failing the span.
pub fn level(attributes: &Attributes, status: Option<&Status>, scope_name: &str, span_name: &str) -> Level {
    if let Some(level) = attributes.str(keys::OBSERVATION_LEVEL).and_then(Level::parse) {
        return level;
    }
    if status.is_some_and(|s| s.code == StatusCode::Error as i32) {
        return Level::Error;
    }
    if scope_name == keys::LIVEKIT_SCOPE && keys::LIVEKIT_DEBUG_SPAN_NAMES.contains(&span_name) {
        return Level::Debug;
    }
    Level::Default
}

pub fn status_message(attributes: &Attributes, status: Option<&Status>) -> String {
    attributes
        .get(keys::OBSERVATION_STATUS_MESSAGE)
        .map(to_text)
        .or_else(|| status.map(|s| s.message.clone()))
        .unwrap_or_default()
}

pub fn user_id(attributes: &Attributes) -> Option<String> {
    attributes.first_text(keys::USER_ID_KEYS)
}

pub fn session_id(attributes: &Attributes) -> Option<String> {
    attributes.first_text(keys::SESSION_ID_KEYS)
}

/// Tags from an array, a JSON-array string, a comma-separated string or a single string.
pub fn tags(attributes: &Attributes) -> Option<Vec<String>> {
    let value = keys::TAG_KEYS.iter().find_map(|k| attributes.truthy(k))?;
    Some(match value {
        Value::Array(items) => items.iter().map(to_text).collect(),
        Value::String(text) => {
            let json_array =
                text.trim_start().starts_with('[').then(|| serde_json::from_str::<Vec<Value>>(text).ok());
            match json_array.flatten() {
                Some(items) => items.iter().map(to_text).collect(),
                None if text.contains(',') => text.split(',').map(|t| t.trim().to_owned()).collect(),
                None => vec![text.clone()],
            }
        }
        other => vec![to_text(other)],
    })
}

pub fn public(attributes: &Attributes) -> Option<bool> {
    let value = keys::PUBLIC_KEYS.iter().find_map(|k| attributes.get(k))?;
    Some(matches!(value, Value::Bool(true)) || value.as_str() == Some("true"))
}

fn flag(attributes: &Attributes, key: &str) -> bool {
    match attributes.get(key) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s == "true",
        _ => false,
    }
}

/// No parent, or forced root by the SDK.
pub fn is_root(parent_span_id: &str, attributes: &Attributes) -> bool {
    parent_span_id.is_empty() || flag(attributes, keys::AS_ROOT)
}

pub fn is_app_root(attributes: &Attributes) -> bool {
    flag(attributes, keys::IS_APP_ROOT)
}

/// Whether the span carries trace-level attributes (reference/public-api.md §3.3).
pub fn has_trace_update(attributes: &Attributes) -> bool {
    keys::TRACE_UPDATE_KEYS.iter().any(|k| attributes.truthy(k).is_some())
        || attributes.iter().any(|(k, _)| k.starts_with(keys::TRACE_METADATA))
}

pub fn model_name(attributes: &Attributes) -> Option<String> {
    attributes.first_text(keys::MODEL_NAME_KEYS)
}

/// Model parameters as JSON object text, `{}` when the span has none.
pub fn model_parameters(attributes: &Attributes, scope_name: &str) -> String {
    let parameters = json_object(attributes, keys::OBSERVATION_MODEL_PARAMETERS)
        .map(sanitise_parameters)
        .or_else(|| (scope_name == keys::VERCEL_AI_SCOPE).then(|| vercel_ai_parameters(attributes)))
        .or_else(|| {
            keys::JSON_MODEL_PARAMETER_KEYS
                .iter()
                .find_map(|k| json_object(attributes, k))
                .map(sanitise_parameters)
        })
        .unwrap_or_else(|| {
            let request = attributes
                .with_prefix(keys::GEN_AI_REQUEST_PREFIX)
                .filter(|(k, _)| *k != "model")
                .map(|(k, v)| (k.to_owned(), v.clone()))
                .collect();
            sanitise_parameters(request)
        });
    Value::Object(parameters).to_string()
}

/// A JSON object carried as text (or already structured) in a truthy attribute.
fn json_object(attributes: &Attributes, key: &str) -> Option<Map<String, Value>> {
    match attributes.truthy(key).and_then(parse_json_text)? {
        Value::Object(object) => Some(object),
        _ => None,
    }
}

/// Model parameters are a flat record of strings and numbers; anything else becomes JSON text.
fn sanitise_parameters(parameters: Map<String, Value>) -> Map<String, Value> {
    parameters
        .into_iter()
        .map(|(k, v)| match v {
            Value::String(_) | Value::Number(_) => (k, v),
            other => (k, Value::String(other.to_string())),
        })
        .collect()
}

fn vercel_ai_parameters(attributes: &Attributes) -> Map<String, Value> {
    keys::AI_SDK_MODEL_PARAMETERS
        .iter()
        .map(|(name, sources)| {
            let value = sources.iter().find(|k| attributes.contains(k)).and_then(|k| attributes.get(k));
            ((*name).to_owned(), value.map_or(Value::Null, |v| Value::String(javascript_to_string(v))))
        })
        .collect()
}

/// JavaScript's `toString()`, which upstream applies to these values (arrays join with commas).
fn javascript_to_string(value: &Value) -> String {
    match value {
        Value::Array(items) => items
            .iter()
            .map(|v| if v.is_null() { String::new() } else { javascript_to_string(v) })
            .collect::<Vec<_>>()
            .join(","),
        other => to_text(other),
    }
}

/// The linked prompt's name and version, each from the first source that has it.
pub fn prompt(attributes: &Attributes) -> (Option<String>, Option<u16>) {
    let ai_sdk = attributes.truthy(keys::AI_SDK_PROMPT).and_then(parse_json_text);
    let ai_sdk_field =
        |field: &str| ai_sdk.as_ref().and_then(|p| p.get(field)).filter(|v| !v.is_null()).cloned();
    let name = attributes
        .get(keys::OBSERVATION_PROMPT_NAME)
        .or_else(|| attributes.get(keys::LEGACY_PROMPT_NAME))
        .cloned()
        .or_else(|| ai_sdk_field("name"))
        .map(|v| to_text(&v));
    let version = attributes
        .get(keys::OBSERVATION_PROMPT_VERSION)
        .or_else(|| attributes.get(keys::LEGACY_PROMPT_VERSION))
        .cloned()
        .or_else(|| ai_sdk_field("version"))
        .and_then(|v| prompt_version(&v));
    (name, version)
}

fn prompt_version(value: &Value) -> Option<u16> {
    match value {
        // Whole numbers only, also when a JavaScript client sent them as doubles (`1.0`).
        Value::Number(n) => {
            n.as_f64().filter(|f| f.fract() == 0.0 && (0.0..=65535.0).contains(f)).map(|f| f as u16)
        }
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The explicit time (plain ISO or, as the SDKs send it, JSON-quoted ISO), else the Vercel AI
/// SDK's milliseconds-to-first-chunk added to the start.
pub fn completion_start_time(attributes: &Attributes, start_time: Micros) -> Option<Micros> {
    if let Some(text) = attributes.str(keys::OBSERVATION_COMPLETION_START_TIME) {
        let unquoted = serde_json::from_str::<String>(text).ok();
        if let Some(time) = parse_datetime(text).or_else(|| unquoted.as_deref().and_then(parse_datetime)) {
            return Some(time);
        }
    }
    let ms = ["ai.response.msToFirstChunk", "ai.stream.msToFirstChunk"]
        .iter()
        .find_map(|k| attributes.get(k))
        .filter(|v| is_truthy(v))
        .and_then(|v| match v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        })
        .filter(|ms| ms.is_finite() && ms.abs() < 1e12)?;
    Some(start_time.saturating_add(ms.ceil() as i64 * 1000))
}

/// An ISO-8601 time as microseconds: with an offset, or without one (taken as UTC), or a date.
pub fn parse_datetime(text: &str) -> Option<Micros> {
    let text = text.trim();
    if let Ok(time) = DateTime::parse_from_rfc3339(text) {
        return Some(time.timestamp_micros());
    }
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
        .or_else(|| NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?.and_hms_opt(0, 0, 0))
        .map(|naive| naive.and_utc().timestamp_micros())
}

/// Experiment fields, when the span belongs to an experiment run (any `langfuse.experiment.*`).
pub fn experiment(attributes: &Attributes) -> Option<Experiment> {
    attributes.with_prefix(keys::EXPERIMENT_PREFIX).next()?;
    let key = |suffix: &str| format!("{}.{suffix}", keys::EXPERIMENT_PREFIX);
    let text = |suffix: &str| attributes.truthy(&key(suffix)).map(to_text).unwrap_or_default();
    let metadata = |suffix: &str| {
        let mut metadata = Metadata::new();
        if let Some(object @ Value::Object(_)) = attributes.truthy(&key(suffix)).and_then(parse_json_text) {
            flatten_into(&mut metadata, "", &object, Leaves::Raw);
        }
        metadata
    };
    Some(Experiment {
        id: text("id"),
        name: text("name"),
        description: text("description"),
        metadata: metadata("metadata"),
        dataset_id: text("dataset.id"),
        item_id: text("item.id"),
        item_version: parse_datetime(&text("item.version")),
        item_expected_output: text("item.expected_output"),
        item_metadata: metadata("item.metadata"),
        item_root_span_id: text("item.root_observation_id"),
    })
}
