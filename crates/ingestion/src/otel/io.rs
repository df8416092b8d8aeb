//! Input and output (reference/public-api.md §3.6 "Input/Output", reference/storage.md §7.3): an ordered list of
//! framework conventions.
//!
//! Upstream stops at the first convention that yields either side and takes both sides from it.
//! Here each side takes the first convention that yields *that* side, so a span with
//! `gen_ai.content.prompt` events and `gen_ai.completion.*` attributes (the plain-OTel capture)
//! keeps both its input and its output instead of an empty output.

use std::collections::BTreeMap;

use opentelemetry_proto::tonic::trace::v1::span::Event as SpanEvent;
use serde_json::{Map, Value};

use super::attributes::{Attributes, is_truthy};
use super::keys;

pub struct IoSource<'a> {
    pub attributes: &'a Attributes,
    pub events: &'a [SpanEvent],
    pub scope_name: &'a str,
}

/// Which record the input/output is for: the trace prefers `langfuse.trace.input/output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoDomain {
    Observation,
    Trace,
}

#[derive(Debug, Default, PartialEq)]
pub struct Io {
    pub input: Option<Value>,
    pub output: Option<Value>,
}

enum Stage {
    /// An (input key, output key) pair; a side counts when its value is truthy.
    Keys(&'static str, &'static str),
    Custom(fn(&IoSource<'_>) -> Io),
}

/// After the Langfuse keys, in priority order.
const STAGES: &[Stage] = &[
    Stage::Custom(vercel_ai),
    Stage::Custom(gen_ai_message_events),
    Stage::Custom(legacy_content_events),
    Stage::Custom(vertex_agent),
    Stage::Keys("prompt", "all_messages_events"), // Logfire
    Stage::Custom(livekit),
    Stage::Custom(logfire_events),
    Stage::Keys("mlflow.spanInputs", "mlflow.spanOutputs"),
    Stage::Keys("traceloop.entity.input", "traceloop.entity.output"),
    Stage::Keys("input.value", "output.value"), // OpenInference, SmolAgents
    Stage::Keys("input", "output"),             // Pydantic, Pipecat
    Stage::Custom(pydantic_ai_agent),
    Stage::Keys("tool_arguments", "tool_response"), // Pydantic AI tools
    Stage::Custom(gen_ai_indexed),
    Stage::Custom(openinference_messages),
    Stage::Keys("gen_ai.input.messages", "gen_ai.output.messages"),
    Stage::Keys("gen_ai.tool.call.arguments", "gen_ai.tool.call.result"),
];

pub fn extract(source: &IoSource<'_>, domain: IoDomain) -> Io {
    let mut io = langfuse(source.attributes, domain);
    for stage in STAGES {
        if io.input.is_some() && io.output.is_some() {
            break;
        }
        let found = match stage {
            Stage::Keys(input, output) => Io {
                input: source.attributes.truthy(input).cloned(),
                output: source.attributes.truthy(output).cloned(),
            },
            Stage::Custom(rule) => rule(source),
        };
        io.input = io.input.or(found.input);
        io.output = io.output.or(found.output);
    }
    io
}

fn langfuse(attributes: &Attributes, domain: IoDomain) -> Io {
    let side = |trace_key: &str, observation_key: &str| {
        let trace = (domain == IoDomain::Trace).then(|| attributes.truthy(trace_key)).flatten();
        trace.or_else(|| attributes.get(observation_key)).cloned()
    };
    Io {
        input: side(keys::TRACE_INPUT, keys::OBSERVATION_INPUT),
        output: side(keys::TRACE_OUTPUT, keys::OBSERVATION_OUTPUT),
    }
}

/// The first of `keys` present on the span (even if falsy: upstream tests `key in attributes`).
fn first_present(attributes: &Attributes, keys: &[&str]) -> Option<Value> {
    keys.iter().find_map(|k| attributes.get(k)).cloned()
}

fn vercel_ai(source: &IoSource<'_>) -> Io {
    if source.scope_name != keys::VERCEL_AI_SCOPE {
        return Io::default();
    }
    let a = source.attributes;
    let input = first_present(a, &["ai.prompt.messages", "ai.prompt", "ai.toolCall.args"]);
    let output = match (a.get("ai.response.text"), a.get("ai.response.toolCalls")) {
        (Some(text), Some(calls)) => Some(Value::String(
            serde_json::json!({"role": "assistant", "content": text, "tool_calls": calls}).to_string(),
        )),
        _ => a.truthy("ai.response.text").cloned().or_else(|| {
            first_present(
                a,
                &[
                    "ai.result.text",
                    "ai.toolCall.result",
                    "ai.response.object",
                    "ai.result.object",
                    "ai.response.toolCalls",
                    "ai.result.toolCalls",
                ],
            )
        }),
    };
    Io { input, output }
}

fn event_attributes(event: &SpanEvent) -> Attributes {
    Attributes::from_key_values(&event.attributes)
}

fn attributes_object(attributes: &Attributes) -> Map<String, Value> {
    attributes.iter().map(|(k, v)| (k.to_owned(), v.clone())).collect()
}

/// GenAI semantic-convention events: `gen_ai.<role>.message` events form the input list (role
/// from the event name), `gen_ai.choice` events the output.
fn gen_ai_message_events(source: &IoSource<'_>) -> Io {
    const ROLES: &[&str] = &["system", "user", "assistant", "tool"];
    let input: Vec<Value> = source
        .events
        .iter()
        .filter_map(|event| {
            let role = event.name.strip_prefix("gen_ai.")?.strip_suffix(".message")?;
            ROLES.contains(&role).then_some((role, event))
        })
        .map(|(role, event)| {
            let mut message = Map::from_iter([("role".to_owned(), Value::String(role.to_owned()))]);
            message.extend(attributes_object(&event_attributes(event)));
            Value::Object(message)
        })
        .collect();
    let mut output: Vec<Value> = source
        .events
        .iter()
        .filter(|e| e.name == "gen_ai.choice")
        .map(|e| Value::Object(attributes_object(&event_attributes(e))))
        .collect();
    Io {
        input: (!input.is_empty()).then_some(Value::Array(input)),
        output: match output.len() {
            0 => None,
            1 => output.pop(),
            _ => Some(Value::Array(output)),
        },
    }
}

/// Older semantic conventions (Semantic Kernel): `gen_ai.content.prompt`/`completion` events whose
/// `gen_ai.prompt`/`gen_ai.completion` attribute holds the messages.
fn legacy_content_events(source: &IoSource<'_>) -> Io {
    let side = |event_name: &str, key: &str| {
        let event = source.events.iter().find(|e| e.name == event_name)?;
        let attributes = event_attributes(event);
        Some(attributes.truthy(key).cloned().unwrap_or_else(|| Value::Object(attributes_object(&attributes))))
    };
    Io {
        input: side("gen_ai.content.prompt", "gen_ai.prompt"),
        output: side("gen_ai.content.completion", "gen_ai.completion"),
    }
}

/// Google ADK: LLM request/response, or, on tool spans (where those are `{}`), the tool call.
fn vertex_agent(source: &IoSource<'_>) -> Io {
    let a = source.attributes;
    let side = |main: &str, tool: &str| {
        a.truthy(main).filter(|v| v.as_str() != Some("{}")).or_else(|| a.truthy(tool)).cloned()
    };
    Io {
        input: side("gcp.vertex.agent.llm_request", "gcp.vertex.agent.tool_call_args"),
        output: side("gcp.vertex.agent.llm_response", "gcp.vertex.agent.tool_response"),
    }
}

fn livekit(source: &IoSource<'_>) -> Io {
    let a = source.attributes;
    Io {
        input: first_present(a, &["lk.input_text", "lk.user_transcript", "lk.chat_ctx"]).filter(is_truthy),
        output: a.truthy("lk.function_tool.output").or_else(|| a.truthy("lk.response.text")).cloned(),
    }
}

/// Logfire's single `events` attribute (array or JSON text): the `gen_ai.choice` entry is the
/// output, the other entries the input.
fn logfire_events(source: &IoSource<'_>) -> Io {
    let events = match source.attributes.get("events") {
        Some(Value::Array(items)) => items.clone(),
        Some(Value::String(text)) => serde_json::from_str(text).unwrap_or_default(),
        _ => return Io::default(),
    };
    let is_choice = |e: &Value| e.get("event.name").and_then(Value::as_str) == Some("gen_ai.choice");
    let output = events.iter().find(|e| is_choice(e)).cloned();
    let inputs: Vec<Value> = events.into_iter().filter(|e| !is_choice(e)).collect();
    Io { input: (!inputs.is_empty()).then_some(Value::Array(inputs)), output }
}

fn pydantic_ai_agent(source: &IoSource<'_>) -> Io {
    if source.scope_name != keys::PYDANTIC_AI_SCOPE {
        return Io::default();
    }
    Io {
        input: source.attributes.truthy("pydantic_ai.all_messages").cloned(),
        output: source.attributes.truthy("final_result").cloned(),
    }
}

fn gen_ai_indexed(source: &IoSource<'_>) -> Io {
    Io {
        input: indexed(source.attributes, "gen_ai.prompt"),
        output: indexed(source.attributes, "gen_ai.completion"),
    }
}

fn openinference_messages(source: &IoSource<'_>) -> Io {
    Io {
        input: indexed(source.attributes, "llm.input_messages"),
        output: indexed(source.attributes, "llm.output_messages"),
    }
}

/// How many levels a dotted attribute key is rebuilt into: deeper dots stay inside the last key, so
/// a key of 100,000 dots makes one object 32 deep, not a value whose drop and serialisation
/// recurse 100,000 times (a stack overflow that took the worker down on every restart).
const MAX_PATH_DEPTH: usize = 32;

/// Rebuilds `prefix.0.role`, `prefix.0.content`, … into `[{"role", "content"}, …]` (or an
/// object when the first path segment is not an index). The attribute `prefix` itself wins.
fn indexed(attributes: &Attributes, prefix: &str) -> Option<Value> {
    if let Some(whole) = attributes.truthy(prefix) {
        return Some(whole.clone());
    }
    let entries: Vec<(Vec<&str>, &Value)> = attributes
        .with_prefix(prefix)
        .map(|(rest, value)| (rest.splitn(MAX_PATH_DEPTH, '.').collect(), value))
        .collect();
    if entries.is_empty() {
        return None;
    }
    let is_index = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if entries.iter().any(|(path, _)| path.len() > 1 && is_index(path[0])) {
        // Indexes are kept in order but not used as positions, so a huge index cannot make a huge array.
        let mut items: BTreeMap<u64, Value> = BTreeMap::new();
        for (path, value) in &entries {
            let Some(index) = path[0].parse::<u64>().ok() else { continue };
            let item = items.entry(index).or_insert_with(|| Value::Object(Map::new()));
            set_path(item, &path[1..], value);
        }
        return Some(Value::Array(items.into_values().collect()));
    }
    let mut object = Value::Object(Map::new());
    for (path, value) in &entries {
        set_path(&mut object, path, value);
    }
    Some(object)
}

/// Sets `value` at `path` inside nested objects; a path through a non-object is skipped.
fn set_path(target: &mut Value, path: &[&str], value: &Value) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut current = target;
    for key in parents {
        let Value::Object(object) = current else { return };
        current = object.entry((*key).to_owned()).or_insert_with(|| Value::Object(Map::new()));
    }
    if let Value::Object(object) = current {
        object.insert((*last).to_owned(), value.clone());
    }
}
