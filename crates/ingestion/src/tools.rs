//! The `tool_*` columns: which tools an observation offered the model (from its input) and which
//! it called (from its output), in the shapes the common SDKs and frameworks log (reference/storage.md §7.3).
//!
//! Definitions come from `tools` lists (OpenAI `{type, function: {…}}` or flat `{name, …}`, also
//! inside `messages`) and from LangGraph's `role: "tool"` messages whose content is a definition.
//! Calls come from `tool_calls` (flat, OpenAI's `choices[].message`, LangChain's
//! `additional_kwargs`, Vercel AI's `toolCallId`/`toolName`/`args`) and Anthropic `tool_use`
//! content blocks. Anything without a name is skipped; nothing here can fail a span.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use domain::event::Tools;

/// Extracts the tools of an observation from its input and output text. Text that is not JSON, or
/// does not mention a tool at all, costs one substring search.
pub fn extract(input: Option<&str>, output: Option<&str>) -> Tools {
    let mut tools = Tools::default();
    if let Some(input) = input.and_then(parse) {
        collect_definitions(&input, &mut tools.definitions);
    }
    if let Some(output) = output.and_then(parse) {
        let mut calls = Calls::default();
        collect_calls(&output, &mut calls);
        for (position, call) in calls.list.into_iter().enumerate() {
            let stored = StoredCall {
                id: call.id,
                arguments: call.arguments,
                r#type: call.r#type,
                index: call.index.unwrap_or(position as u64),
            };
            tools.calls.push(serde_json::to_string(&stored).unwrap_or_default());
            tools.call_names.push(call.name);
        }
    }
    tools
}

/// JSON text (or JSON text inside a JSON string, as some SDKs send it) that mentions a tool.
fn parse(text: &str) -> Option<Value> {
    if !text.contains("tool") {
        return None;
    }
    match serde_json::from_str::<Value>(text).ok()? {
        Value::String(inner) => serde_json::from_str(&inner).ok(),
        value => Some(value),
    }
}

/// A definition as the `tool_definitions` map holds it, keyed by the tool's name.
#[derive(Serialize)]
struct StoredDefinition {
    description: String,
    parameters: String,
}

fn collect_definitions(input: &Value, definitions: &mut BTreeMap<String, String>) {
    let messages = match input {
        Value::Object(object) => {
            list(object.get("tools")).for_each(|tool| add_definition(tool, definitions));
            object.get("messages")
        }
        array => Some(array),
    };
    for message in list(messages) {
        list(message.get("tools")).for_each(|tool| add_definition(tool, definitions));
        if message.get("role").and_then(Value::as_str) == Some("tool")
            && let Some(content @ Value::Object(_)) = message.get("content")
        {
            add_definition(content, definitions);
        }
    }
}

fn add_definition(tool: &Value, definitions: &mut BTreeMap<String, String>) {
    let spec = tool.get("function").filter(|f| f.is_object()).unwrap_or(tool);
    let Some(name) = spec.get("name").and_then(Value::as_str).filter(|n| !n.is_empty()) else { return };
    if definitions.contains_key(name) {
        return;
    }
    let parameters = ["parameters", "input_schema", "parameters_json_schema"]
        .iter()
        .find_map(|key| spec.get(*key))
        .map(text)
        .unwrap_or_default();
    let description = spec.get("description").and_then(Value::as_str).unwrap_or_default().to_owned();
    let stored = StoredDefinition { description, parameters };
    definitions.insert(name.to_owned(), serde_json::to_string(&stored).unwrap_or_default());
}

/// A call as `tool_calls` holds it; its name goes to `tool_call_names` at the same position.
#[derive(Serialize)]
struct StoredCall {
    id: String,
    arguments: String,
    r#type: String,
    index: u64,
}

/// The calls found so far, and their ids: an output can list hundreds of thousands of calls, so
/// a repeated id is found by lookup, not by a scan of the list (quadratic: minutes of CPU).
#[derive(Default)]
struct Calls {
    list: Vec<Call>,
    ids: HashSet<String>,
}

struct Call {
    name: String,
    id: String,
    arguments: String,
    r#type: String,
    index: Option<u64>,
}

fn collect_calls(output: &Value, calls: &mut Calls) {
    match output {
        Value::Array(messages) => {
            messages.iter().filter(|m| m.is_object()).for_each(|m| collect_calls(m, calls))
        }
        Value::Object(object) => {
            list(object.get("tool_calls")).for_each(|call| add_call(call, calls));
            for choice in list(object.get("choices")) {
                let message_calls = choice.get("message").and_then(|m| m.get("tool_calls"));
                list(message_calls).for_each(|call| add_call(call, calls));
            }
            let kwargs_calls = object.get("additional_kwargs").and_then(|k| k.get("tool_calls"));
            list(kwargs_calls).for_each(|call| add_call(call, calls));
            list(object.get("content"))
                .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_use"))
                .for_each(|block| add_call(block, calls));
        }
        _ => {}
    }
}

fn add_call(call: &Value, calls: &mut Calls) {
    let function = call.get("function").filter(|f| f.is_object());
    let field =
        |keys: &[&str]| keys.iter().find_map(|key| function.and_then(|f| f.get(*key)).or(call.get(*key)));
    let Some(name) = field(&["name", "toolName"]).and_then(Value::as_str).filter(|n| !n.is_empty()) else {
        return;
    };
    let id = field(&["id", "toolCallId"]).and_then(Value::as_str).unwrap_or_default().to_owned();
    // LangChain logs the same call under `tool_calls` and `additional_kwargs.tool_calls`.
    if !id.is_empty() && !calls.ids.insert(id.clone()) {
        return;
    }
    calls.list.push(Call {
        name: name.to_owned(),
        id,
        arguments: field(&["arguments", "args", "input"]).map(text).unwrap_or_default(),
        r#type: call.get("type").and_then(Value::as_str).unwrap_or_default().to_owned(),
        index: call.get("index").and_then(Value::as_u64),
    });
}

/// The items of a JSON array; nothing for anything else.
fn list(value: Option<&Value>) -> impl Iterator<Item = &Value> {
    value.and_then(Value::as_array).into_iter().flatten()
}

/// A string as it is, anything else as JSON text.
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests;
