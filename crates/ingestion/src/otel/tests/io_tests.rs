//! Input/output conventions.

use opentelemetry_proto::tonic::trace::v1::Span;
use serde_json::{Value, json};

use super::build::*;

fn io(span: Span) -> (String, String) {
    let event = one(span).event;
    (event.input, event.output)
}

fn as_json(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn langfuse_keys_come_first() {
    let (input, output) = io(span(
        "s",
        vec![
            s("input.value", "other"),
            s("langfuse.observation.input", "{\"q\": 1}"),
            s("langfuse.observation.output", ""),
        ],
    ));
    assert_eq!((input.as_str(), output.as_str()), ("{\"q\": 1}", ""));
}

#[test]
fn gen_ai_message_events() {
    let (input, output) = io(Span {
        events: vec![
            event("gen_ai.system.message", vec![s("content", "be brief")]),
            event("gen_ai.user.message", vec![s("content", "hi")]),
            event("gen_ai.choice", vec![i("index", 0), s("message", "hello")]),
            event("exception", vec![s("exception.message", "ignored")]),
        ],
        ..span("s", vec![])
    });
    assert_eq!(
        as_json(&input),
        json!([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}])
    );
    assert_eq!(as_json(&output), json!({"index": 0, "message": "hello"}));
}

#[test]
fn legacy_content_events_and_indexed_attributes() {
    let (input, output) = io(Span {
        events: vec![event("gen_ai.content.prompt", vec![s("gen_ai.prompt", "[{\"role\": \"user\"}]")])],
        ..span(
            "s",
            vec![
                s("gen_ai.completion.0.role", "assistant"),
                s("gen_ai.completion.0.content", "a"),
                s("gen_ai.completion.1.content", "b"),
                s("gen_ai.completion.1.tool_calls.0.name", "f"),
            ],
        )
    });
    assert_eq!(input, "[{\"role\": \"user\"}]");
    assert_eq!(
        as_json(&output),
        json!([{"role": "assistant", "content": "a"}, {"content": "b", "tool_calls": {"0": {"name": "f"}}}])
    );
    let (input, _) = io(span("s", vec![s("gen_ai.prompt.system", "x"), s("gen_ai.prompt.user.text", "y")]));
    assert_eq!(as_json(&input), json!({"system": "x", "user": {"text": "y"}}));
}

#[test]
fn framework_key_pairs() {
    for (input_key, output_key) in [
        ("traceloop.entity.input", "traceloop.entity.output"),
        ("input.value", "output.value"),
        ("mlflow.spanInputs", "mlflow.spanOutputs"),
        ("gen_ai.input.messages", "gen_ai.output.messages"),
        ("gen_ai.tool.call.arguments", "gen_ai.tool.call.result"),
        ("tool_arguments", "tool_response"),
    ] {
        let (input, output) = io(span("s", vec![s(input_key, "in"), s(output_key, "out")]));
        assert_eq!((input.as_str(), output.as_str()), ("in", "out"), "{input_key}");
    }
    let (input, output) = io(span(
        "s",
        vec![
            s("llm.input_messages.0.message.role", "user"),
            s("llm.output_messages.0.message.content", "ok"),
        ],
    ));
    assert_eq!(as_json(&input), json!([{"message": {"role": "user"}}]));
    assert_eq!(as_json(&output), json!([{"message": {"content": "ok"}}]));
}

#[test]
fn each_side_takes_its_first_source() {
    // Upstream would stop at traceloop and store no output.
    let (input, output) = io(span("s", vec![s("traceloop.entity.input", "in"), s("output.value", "out")]));
    assert_eq!((input.as_str(), output.as_str()), ("in", "out"));
}

#[test]
fn vercel_ai_sdk_scope() {
    let event = one_in(
        vec![],
        "ai",
        span(
            "s",
            vec![s("ai.prompt.messages", "[]"), s("ai.response.text", "t"), s("ai.response.toolCalls", "[]")],
        ),
    )
    .event;
    assert_eq!(event.input, "[]");
    assert_eq!(as_json(&event.output), json!({"role": "assistant", "content": "t", "tool_calls": "[]"}));
}

#[test]
fn vertex_livekit_and_logfire() {
    let (input, output) = io(span(
        "s",
        vec![
            s("gcp.vertex.agent.llm_request", "{}"),
            s("gcp.vertex.agent.tool_call_args", "args"),
            s("gcp.vertex.agent.llm_response", "resp"),
        ],
    ));
    assert_eq!((input.as_str(), output.as_str()), ("args", "resp"));
    let (input, output) = io(span("s", vec![s("lk.user_transcript", "hello"), s("lk.response.text", "hi")]));
    assert_eq!((input.as_str(), output.as_str()), ("hello", "hi"));
    let events = r#"[{"event.name": "gen_ai.user.message", "content": "q"}, {"event.name": "gen_ai.choice", "content": "a"}]"#;
    let (input, output) = io(span("s", vec![s("events", events)]));
    assert_eq!(as_json(&input), json!([{"event.name": "gen_ai.user.message", "content": "q"}]));
    assert_eq!(as_json(&output), json!({"event.name": "gen_ai.choice", "content": "a"}));
}

#[test]
fn trace_io_prefers_trace_keys_on_roots() {
    let converted = one(root(
        "r",
        vec![
            s("langfuse.trace.output", "trace out"),
            s("langfuse.observation.input", "obs in"),
            s("langfuse.observation.output", "obs out"),
        ],
    ));
    assert_eq!(converted.trace.input.as_deref(), Some("obs in"));
    assert_eq!(converted.trace.output.as_deref(), Some("trace out"));
    assert_eq!(converted.event.output, "obs out");
}

/// A hostile key of 100,000 dots once built a value 100,000 objects deep, whose drop overflowed the
/// worker's stack on every restart. The path is rebuilt 32 levels deep; the rest stays in one key.
#[test]
fn a_key_of_a_hundred_thousand_dots_is_bounded_in_depth_and_keeps_its_value() {
    let key = format!("llm.input_messages.0.{}", "a.".repeat(100_000));
    let (input, _) = io(span("s", vec![s(&key, "deep")]));
    let value = as_json(&input);
    let mut depth = 0;
    let mut current = &value[0];
    while let Value::Object(object) = current {
        depth += 1;
        current = object.values().next().unwrap();
    }
    assert_eq!(current, &json!("deep"), "the value is kept");
    assert!(depth <= 32, "{depth} levels");
}
