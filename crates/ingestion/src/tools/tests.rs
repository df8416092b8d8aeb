use serde_json::{Value, json};

use super::extract;

fn from(input: Value, output: Value) -> domain::event::Tools {
    let (input, output) = (input.to_string(), output.to_string());
    extract(Some(&input), Some(&output))
}

fn definition(tools: &domain::event::Tools, name: &str) -> Value {
    serde_json::from_str(&tools.definitions[name]).unwrap()
}

fn calls(tools: &domain::event::Tools) -> Vec<Value> {
    tools.calls.iter().map(|c| serde_json::from_str(c).unwrap()).collect()
}

#[test]
fn openai_tools_and_choices() {
    let input = json!({
        "messages": [{"role": "user", "content": "Weather in NYC?"}],
        "tools": [
            {"type": "function", "function": {"name": "get_weather", "description": "Get weather",
             "parameters": {"type": "object", "properties": {"location": {"type": "string"}}}}},
            {"type": "function", "function": {"name": "search_web"}},
            {"type": "function", "function": {"description": "no name"}}
        ]
    });
    let output = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"location\":\"NYC\"}"}}
    ]}}]});
    let tools = from(input, output);
    assert_eq!(tools.definitions.keys().collect::<Vec<_>>(), ["get_weather", "search_web"]);
    let weather = definition(&tools, "get_weather");
    assert_eq!(weather["description"], "Get weather");
    let parameters: Value = serde_json::from_str(weather["parameters"].as_str().unwrap()).unwrap();
    assert_eq!(parameters["properties"]["location"]["type"], "string");
    assert_eq!(definition(&tools, "search_web"), json!({"description": "", "parameters": ""}));
    assert_eq!(tools.call_names, ["get_weather"]);
    assert_eq!(
        calls(&tools),
        [json!({"id": "call_1", "arguments": "{\"location\":\"NYC\"}", "type": "function", "index": 0})]
    );
    assert!(tools.calls[0].starts_with(r#"{"id":"#), "stored key order: {}", tools.calls[0]);
}

#[test]
fn anthropic_definitions_and_tool_use_blocks() {
    let input =
        json!({"tools": [{"name": "lookup", "description": "Look up", "input_schema": {"type": "object"}}]});
    let output = json!({"content": [
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "x"}}
    ]});
    let tools = from(input, output);
    assert_eq!(definition(&tools, "lookup")["parameters"], r#"{"type":"object"}"#);
    assert_eq!(tools.call_names, ["lookup"]);
    assert_eq!(
        calls(&tools)[0],
        json!({"id": "toolu_1", "arguments": "{\"q\":\"x\"}", "type": "tool_use", "index": 0})
    );
}

#[test]
fn langgraph_tool_messages_and_langchain_calls_counted_once() {
    let input = json!([
        {"role": "user", "content": "a joke"},
        {"role": "tool", "content": {"type": "function", "function": {"name": "pun", "description": "Puns"}}},
        {"role": "tool", "content": {"type": "function", "function": {"name": "pun"}}},
        {"role": "tool", "content": "a tool's answer is not a definition"}
    ]);
    let output = json!({
        "role": "assistant",
        "tool_calls": [{"name": "pun", "args": {"topic": "code"}, "id": "c1", "type": "tool_call"}],
        "additional_kwargs": {"tool_calls": [{"id": "c1", "function": {"name": "pun", "arguments": "{}"}}]}
    });
    let tools = from(input, output);
    assert_eq!(tools.definitions.len(), 1, "{:?}", tools.definitions);
    assert_eq!(definition(&tools, "pun")["description"], "Puns");
    assert_eq!(tools.call_names, ["pun"]);
    assert_eq!(calls(&tools)[0]["arguments"], r#"{"topic":"code"}"#);
}

#[test]
fn message_lists_vercel_calls_and_explicit_indexes() {
    let output = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "tool_calls": [
            {"toolCallId": "v1", "toolName": "search", "args": {"q": "t"}},
            {"id": "c2", "name": "fetch", "arguments": "{}", "index": 7},
            {"id": "c3", "arguments": "{}"}
        ]}
    ]);
    let tools = from(json!(null), output);
    assert_eq!(tools.call_names, ["search", "fetch"]);
    let stored = calls(&tools);
    assert_eq!(stored[0], json!({"id": "v1", "arguments": "{\"q\":\"t\"}", "type": "", "index": 0}));
    assert_eq!(stored[1]["index"], 7);
}

#[test]
fn json_inside_a_json_string_is_read() {
    let output =
        json!({"tool_calls": [{"id": "c1", "name": "get_weather", "args": {"city": "NYC"}}]}).to_string();
    let quoted = Value::String(output).to_string();
    let tools = extract(None, Some(&quoted));
    assert_eq!(tools.call_names, ["get_weather"]);
}

#[test]
fn anything_else_yields_nothing() {
    for text in
        ["plain text about tools", "{\"tools\": \"not a list\"}", "[1, 2, \"tool\"]", "{\"tool_calls\": {}}"]
    {
        let tools = extract(Some(text), Some(text));
        assert!(tools.definitions.is_empty() && tools.calls.is_empty(), "{text}: {tools:?}");
    }
    assert_eq!(extract(None, None), domain::event::Tools::default());
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert!(extract(Some(&deep), Some(&deep)).calls.is_empty());
}

/// Calls are told apart by id with a lookup: a scan of the calls found so far made an output
/// of 200,000 calls take minutes of worker CPU (quadratic), and this test with it.
#[test]
fn an_output_of_two_hundred_thousand_calls_is_read_in_linear_time() {
    let mut calls: Vec<Value> = (0..200_000).map(|i| json!({"id": format!("c{i}"), "name": "f"})).collect();
    calls.push(json!({"id": "c7", "name": "again"}));
    let output = json!({"tool_calls": calls}).to_string();
    let started = std::time::Instant::now();
    let tools = extract(None, Some(&output));
    assert_eq!(tools.call_names.len(), 200_000, "the repeated id is counted once");
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "took {:?}", started.elapsed());
}
