//! Trace and observation bodies: every event type valid and invalid, and each field rule.

use domain::event::{Level, ObservationType};
use serde_json::json;

use super::support::*;

#[test]
fn trace_create_maps_every_field() {
    let parsed = accepted(event(
        "e",
        "trace-create",
        json!({
            "id": "t1", "timestamp": "2024-05-01T11:00:00+00:00", "name": "chat", "userId": "u", "sessionId": "s",
            "release": "r1", "version": "v1", "environment": "Prod-EU", "public": true, "tags": ["b", "a", "b"],
            "metadata": {"tenant": "acme", "n": 2, "nested": {"k": [1]}, "nothing": null},
            "input": {"q": "hi"}, "output": "plain text", "externalId": "ext"
        }),
    ));
    let trace = &parsed.traces[0];
    assert_eq!(trace.id, "t1");
    assert_eq!(trace.project_id, "project-1");
    assert_eq!(trace.timestamp, Some(ms("2024-05-01T11:00:00Z")));
    assert_eq!(trace.name.as_deref(), Some("chat"));
    assert_eq!((trace.user_id.as_deref(), trace.session_id.as_deref()), (Some("u"), Some("s")));
    assert_eq!((trace.release.as_deref(), trace.version.as_deref()), (Some("r1"), Some("v1")));
    assert_eq!(trace.environment.as_deref(), Some("prod-eu"), "environments are lowercased");
    assert_eq!(trace.public, Some(true));
    assert_eq!(trace.tags, Some(vec!["a".to_owned(), "b".to_owned()]), "sorted set, as upstream");
    assert_eq!(trace.metadata["tenant"], "acme");
    assert_eq!(trace.metadata["n"], "2");
    assert_eq!(trace.metadata["nested"], r#"{"k":[1]}"#);
    assert_eq!(trace.metadata["nothing"], "null");
    assert_eq!(trace.input.as_deref(), Some(r#"{"q":"hi"}"#));
    assert_eq!(trace.output.as_deref(), Some("plain text"), "strings are stored as sent");
    assert_eq!(trace.event_ts, RECEIVED);
}

#[test]
fn trace_defaults_and_nullish_fields() {
    let parsed =
        accepted(event("e", "trace-create", json!({"id": "t1", "name": null, "tags": null, "input": null})));
    let trace = &parsed.traces[0];
    assert_eq!(trace.timestamp, Some(ms(T0)), "the envelope timestamp when the body has none");
    assert_eq!(trace.name, None);
    assert_eq!(trace.tags, None);
    assert_eq!(trace.input, None);
    assert_eq!(trace.environment, None, "not said: the stored environment (or `default`) stays");
}

#[test]
fn trace_rules() {
    for (body, expected) in [
        (json!({"id": "t", "name": "n".repeat(1001)}), "body.name: must be at most 1000 characters long"),
        (json!({"id": "t", "tags": "a,b"}), "body.tags: expected an array of strings, got a string"),
        (json!({"id": "t", "tags": ["a", 1]}), "body.tags.1: expected a string, got a number"),
        (json!({"id": "t", "public": 1}), "body.public: expected a boolean, got a number"),
        (json!({"id": "t", "userId": 5}), "body.userId: expected a string, got a number"),
        (json!({"id": "t", "timestamp": 1714564800000_i64}), "body.timestamp: expected an ISO-8601"),
        (json!({"id": ["t"]}), "body.id: expected a string, got an array"),
        (json!({"id": "t", "externalId": 1}), "body.externalId: expected a string"),
    ] {
        let error = invalid(event("e", "trace-create", body.clone()));
        assert!(error.contains(expected), "{body}: {error}");
    }
    accepted(event("e", "trace-create", json!({"id": "t", "name": "n".repeat(1000)})));
}

#[test]
fn environment_rule() {
    for (environment, ok) in [
        ("production", true),
        ("capture-env", true),
        ("a_b-9", true),
        ("PROD", true),
        ("", false),
        ("has space", false),
        ("ümlaut", false),
        ("langfuse-prompt-experiment", false),
        ("LangfuseX", false),
        ("my-langfuse", true),
        (&"e".repeat(40), true),
        (&"e".repeat(41), false),
    ] {
        let body = json!({"id": "t", "environment": environment});
        let parsed = run(vec![event("e", "trace-create", body)]);
        assert_eq!(parsed.errors.is_empty(), ok, "{environment:?}: {:?}", parsed.errors);
        if !ok {
            assert!(parsed.errors[0].error.as_deref().unwrap().starts_with("body.environment: "));
        }
    }
    assert!(
        invalid(event("e", "span-create", json!({"id": "s", "environment": 3})))
            .contains("expected a string")
    );
}

#[test]
fn span_create_and_update() {
    let parsed = run(vec![
        at(
            "c",
            "span-create",
            "2024-05-01T12:00:00.000Z",
            json!({
                "id": "s1", "traceId": "t1", "name": "retrieve", "startTime": "2024-05-01T11:59:59.500Z",
                "metadata": {"route": "/chat", "attempt": 1}, "input": {"query": "q"}, "version": "v2",
                "parentObservationId": "root", "environment": "capture-env", "level": "DEBUG"
            }),
        ),
        at(
            "u",
            "span-update",
            "2024-05-01T12:00:02.000Z",
            json!({
                "id": "s1", "traceId": "t1", "endTime": "2024-05-01T12:00:01.000Z", "output": [1, 2],
                "level": "WARNING", "statusMessage": "slow"
            }),
        ),
    ]);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    assert_eq!(parsed.observations.len(), 1);
    let span = &parsed.observations[0];
    assert_eq!(span.observation_type, Some(ObservationType::Span));
    assert_eq!(span.trace_id.as_deref(), Some("t1"));
    assert_eq!(span.start_time, Some(ms("2024-05-01T11:59:59.500Z")));
    assert_eq!(span.end_time, Some(ms("2024-05-01T12:00:01Z")));
    assert_eq!(span.level, Some(Level::Warning));
    assert_eq!(span.status_message.as_deref(), Some("slow"));
    assert_eq!(span.metadata["attempt"], "1");
    assert_eq!(span.input.as_deref(), Some(r#"{"query":"q"}"#));
    assert_eq!(span.output.as_deref(), Some("[1,2]"));
    assert_eq!(span.parent_observation_id.as_deref(), Some("root"));
    assert_eq!(span.environment.as_deref(), Some("capture-env"));
    assert_eq!(span.version.as_deref(), Some("v2"));
    assert!(parsed.traces.is_empty(), "the observation names its trace: no wrapper");
}

#[test]
fn event_create_has_no_end_time() {
    let parsed = accepted(event(
        "e",
        "event-create",
        json!({
            "id": "ev", "traceId": "t", "name": "clicked", "endTime": "2024-05-01T12:00:01Z", "model": "ignored"
        }),
    ));
    let observation = &parsed.observations[0];
    assert_eq!(observation.observation_type, Some(ObservationType::Event));
    assert_eq!(observation.start_time, Some(ms(T0)), "the envelope timestamp when startTime is absent");
    assert_eq!(observation.end_time, None, "event bodies have no endTime (stripped, like upstream)");
    assert_eq!(observation.provided_model_name, None, "nor generation fields");
}

#[test]
fn generation_create_fields() {
    let parsed = accepted(event(
        "e",
        "generation-create",
        json!({
            "id": "g", "traceId": "t", "name": "llm", "model": "gpt-4o-mini",
            "modelParameters": {"temperature": 0.2, "max_tokens": 256, "stop": ["\n"], "extra": {"a": "b"}, "seed": null, "stream": false},
            "completionStartTime": "2024-05-01T12:00:00.250Z", "promptName": "capture-prompt", "promptVersion": 1
        }),
    ));
    let generation = &parsed.observations[0];
    assert_eq!(generation.observation_type, Some(ObservationType::Generation));
    assert_eq!(generation.provided_model_name.as_deref(), Some("gpt-4o-mini"));
    let parameters: serde_json::Value =
        serde_json::from_str(generation.model_parameters.as_deref().unwrap()).unwrap();
    assert_eq!(parameters["temperature"], 0.2);
    assert_eq!(parameters["stop"], json!(["\n"]));
    assert_eq!(generation.completion_start_time, Some(ms("2024-05-01T12:00:00.250Z")));
    assert_eq!(generation.prompt_name.as_deref(), Some("capture-prompt"));
    assert_eq!(generation.prompt_version, Some(1));
}

#[test]
fn generation_rules() {
    for (body, expected) in [
        (
            json!({"id": "g", "modelParameters": "hot"}),
            "body.modelParameters: expected an object, got a string",
        ),
        (
            json!({"id": "g", "modelParameters": {"stop": [1]}}),
            "body.modelParameters.stop: expected a string, number, boolean",
        ),
        (json!({"id": "g", "modelParameters": {"o": {"k": 1}}}), "body.modelParameters.o:"),
        (json!({"id": "g", "promptName": "p"}), "promptName and promptVersion must be set together"),
        (json!({"id": "g", "promptVersion": 2}), "promptName and promptVersion must be set together"),
        (
            json!({"id": "g", "promptName": "p", "promptVersion": 1.5}),
            "body.promptVersion: expected an integer",
        ),
        (
            json!({"id": "g", "promptName": "p", "promptVersion": 70000}),
            "body.promptVersion: must be between 1 and 65535",
        ),
        (json!({"id": "g", "model": 4}), "body.model: expected a string"),
        (json!({"id": "g", "completionStartTime": "now"}), "body.completionStartTime: expected an ISO-8601"),
        (
            json!({"id": "g", "level": "warning"}),
            "body.level: expected one of DEBUG, DEFAULT, WARNING, ERROR, got \"warning\"",
        ),
    ] {
        for event_type in ["generation-create", "generation-update"] {
            let error = invalid(event("e", event_type, body.clone()));
            assert!(error.contains(expected), "{event_type} {body}: {error}");
        }
    }
    // Both-or-neither is by truthiness, as upstream: an empty name with version 0 is "neither".
    let parsed =
        accepted(event("e", "generation-create", json!({"id": "g", "promptName": "", "promptVersion": 0})));
    assert_eq!(parsed.observations[0].prompt_name, None);
}

#[test]
fn server_side_observation_types_take_generation_bodies() {
    for (event_type, expected) in [
        ("agent-create", ObservationType::Agent),
        ("tool-create", ObservationType::Tool),
        ("chain-create", ObservationType::Chain),
        ("retriever-create", ObservationType::Retriever),
        ("evaluator-create", ObservationType::Evaluator),
        ("embedding-create", ObservationType::Embedding),
        ("guardrail-create", ObservationType::Guardrail),
    ] {
        let parsed = accepted(event(
            "e",
            event_type,
            json!({
                "id": "o", "traceId": "t", "model": "text-embedding-3-small", "usageDetails": {"input": 7}
            }),
        ));
        let observation = &parsed.observations[0];
        assert_eq!(observation.observation_type, Some(expected));
        assert_eq!(observation.provided_model_name.as_deref(), Some("text-embedding-3-small"));
        assert_eq!(observation.provided_usage_details["input"], 7);
        let error = invalid(event("e", event_type, json!({"id": "o", "promptName": "p"})));
        assert!(error.contains("promptName and promptVersion"), "{event_type}: {error}");
    }
    assert!(
        invalid(event("e", "tool-update", json!({"id": "o"}))).contains("unknown event type \"tool-update\"")
    );
}

#[test]
fn legacy_observation_bodies() {
    let parsed = run(vec![
        at(
            "c",
            "observation-create",
            "2024-05-01T12:00:00Z",
            json!({
                "id": "o", "traceId": "t", "type": "GENERATION", "name": "old", "model": "m",
                "modelParameters": {"temperature": 1}, "usage": {"promptTokens": 3, "completionTokens": 4, "totalTokens": 7},
                "environment": "ignored-here"
            }),
        ),
        at(
            "u",
            "observation-update",
            "2024-05-01T12:00:01Z",
            json!({
                "id": "o", "type": "GENERATION", "endTime": "2024-05-01T12:00:02Z", "output": "done"
            }),
        ),
    ]);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let observation = &parsed.observations[0];
    assert_eq!(observation.observation_type, Some(ObservationType::Generation));
    assert_eq!(observation.environment, None, "the legacy body has no environment");
    assert_eq!(observation.provided_usage_details["total"], 7);
    assert_eq!(observation.output.as_deref(), Some("done"));

    for (body, expected) in [
        (json!({"id": "o"}), "body.type: required, one of GENERATION, SPAN, EVENT"),
        (json!({"id": "o", "type": "TOOL"}), "body.type: expected one of GENERATION, SPAN, EVENT"),
        (json!({"id": "o", "type": "span"}), "body.type: expected one of"),
        (
            json!({"id": "o", "type": "SPAN", "modelParameters": {"stop": ["x"]}}),
            "body.modelParameters.stop: expected a string, number or boolean",
        ),
    ] {
        let error = invalid(event("e", "observation-create", body.clone()));
        assert!(error.contains(expected), "{body}: {error}");
    }
}

#[test]
fn observation_id_rules() {
    for (body, expected) in [
        (json!({"id": "s", "traceId": ""}), "body.traceId: must not be empty"),
        (json!({"id": "s", "traceId": "a\rb"}), "body.traceId: must not contain carriage return"),
        (json!({"id": "x".repeat(801)}), "body.id: must be at most 800"),
        (json!({"id": "s", "parentObservationId": 1}), "body.parentObservationId: expected a string"),
        (json!({"id": "s", "statusMessage": {}}), "body.statusMessage: expected a string"),
        (json!({"id": "s", "version": 2}), "body.version: expected a string"),
        (json!({"id": "s", "endTime": "2024-13-01T00:00:00Z"}), "body.endTime: expected an ISO-8601"),
    ] {
        let error = invalid(event("e", "span-create", body.clone()));
        assert!(error.contains(expected), "{body}: {error}");
    }
}

#[test]
fn scalar_and_array_metadata_are_kept_under_metadata() {
    let parsed = run(vec![
        event("a", "span-create", json!({"id": "a", "traceId": "t", "metadata": "just text"})),
        event("b", "span-create", json!({"id": "b", "traceId": "t", "metadata": [1, "x"]})),
        event("c", "span-create", json!({"id": "c", "traceId": "t", "metadata": 4.5})),
    ]);
    assert_eq!(parsed.observations[0].metadata["metadata"], "just text");
    assert_eq!(parsed.observations[1].metadata["metadata"], r#"[1,"x"]"#);
    assert_eq!(parsed.observations[2].metadata["metadata"], "4.5");
}
