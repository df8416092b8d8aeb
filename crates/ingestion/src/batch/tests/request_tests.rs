//! Whole-request errors, the envelope, the 207 result, and the gates (events_only write mode,
//! public-key auth); every event must be accounted for.

use domain::config::WriteMode;
use serde_json::{Value, json};

use super::support::*;
use crate::batch::{BatchError, parse_batch};

fn whole(body: &str) -> BatchError {
    parse_batch(body.as_bytes(), &context()).unwrap_err()
}

#[test]
fn whole_request_errors_say_what_is_wrong() {
    assert!(matches!(whole("{\"batch\": ["), BatchError::NotJson(_)));
    assert!(whole("").to_string().starts_with("request body is not valid JSON"));
    assert_eq!(whole("[]"), BatchError::NotAnObject("an array"));
    assert_eq!(whole("{}"), BatchError::MissingBatch);
    assert_eq!(whole(r#"{"batch": {"id": "x"}}"#), BatchError::BatchNotArray("an object"));
    assert_eq!(whole(r#"{"batch": null}"#), BatchError::BatchNotArray("null"));
    assert_eq!(whole(r#"{"batch": [], "metadata": "x"}"#), BatchError::MetadataNotObject("a string"));
    assert_eq!(
        whole(r#"{"batch": [], "metadata": [1]}"#).to_string(),
        "`metadata` must be an object or null, got an array"
    );
    assert_eq!(BatchError::MissingBatch.to_string(), "`batch` is required: an array of ingestion events");
}

#[test]
fn empty_batch_and_nullish_metadata() {
    for body in [r#"{"batch": []}"#, r#"{"batch": [], "metadata": null}"#, r#"{"batch": [], "metadata": {}}"#]
    {
        let parsed = parse_batch(body.as_bytes(), &context()).unwrap();
        assert_eq!(serde_json::to_value(parsed.response()).unwrap(), json!({"successes": [], "errors": []}));
    }
}

#[test]
fn response_has_the_207_wire_shape() {
    let parsed = run(vec![
        event("ok", "trace-create", json!({"id": "t1"})),
        event("bad", "trace-create", json!({"id": "t2", "public": "yes"})),
    ]);
    let wire = serde_json::to_value(parsed.response()).unwrap();
    assert_eq!(wire["successes"], json!([{"id": "ok", "status": 201}]));
    assert_eq!(wire["errors"][0]["id"], "bad");
    assert_eq!(wire["errors"][0]["status"], 400);
    assert_eq!(wire["errors"][0]["message"], "Invalid request data");
    assert_eq!(wire["errors"][0]["error"], "body.public: expected a boolean, got a string");
}

#[test]
fn envelope_rules() {
    let body = json!({"id": "t1"});
    let cases = [
        (json!({"type": "trace-create", "timestamp": T0, "body": body}), "id: required"),
        (json!({"id": "", "type": "trace-create", "timestamp": T0, "body": body}), "id: must not be empty"),
        (json!({"id": "a\rb", "type": "trace-create", "timestamp": T0, "body": body}), "carriage return"),
        (
            json!({"id": "x".repeat(801), "type": "trace-create", "timestamp": T0, "body": body}),
            "at most 800",
        ),
        (json!({"id": 7, "type": "trace-create", "timestamp": T0, "body": body}), "id: expected a string"),
        (json!({"id": "e", "timestamp": T0, "body": body}), "type: required"),
        (
            json!({"id": "e", "type": "trace-update", "timestamp": T0, "body": body}),
            "unknown event type \"trace-update\"",
        ),
        (json!({"id": "e", "type": "trace-create", "body": body}), "timestamp: required"),
        (
            json!({"id": "e", "type": "trace-create", "timestamp": "2024-05-01T12:00:00", "body": body}),
            "timestamp: expected an ISO-8601",
        ),
        (json!({"id": "e", "type": "trace-create", "timestamp": T0}), "body: required"),
        (
            json!({"id": "e", "type": "trace-create", "timestamp": T0, "body": [body]}),
            "body: expected an object, got an array",
        ),
    ];
    for (event, expected) in cases {
        let error = invalid(event.clone());
        assert!(error.contains(expected), "{event}: {error}");
    }
    assert!(
        accepted(json!({"id": "x".repeat(800), "type": "trace-create", "timestamp": T0, "body": body}))
            .traces
            .len()
            == 1
    );
    // Envelope metadata may be any JSON.
    accepted(
        json!({"id": "e", "type": "trace-create", "timestamp": T0, "body": body, "metadata": [1, "two"]}),
    );
}

#[test]
fn every_problem_of_an_event_is_reported_with_its_path() {
    let error = invalid(json!({"id": "e", "type": "span-create", "timestamp": "soon", "body": {
        "id": "s1", "startTime": "later", "level": "LOUD", "name": 3
    }}));
    for expected in [
        "timestamp: expected an ISO-8601",
        "body.startTime:",
        "body.level: expected one of DEBUG",
        "body.name: expected a string",
    ] {
        assert!(error.contains(expected), "{expected} missing from {error}");
    }
}

#[test]
fn result_ids_are_envelope_ids_or_unknown() {
    let parsed =
        run(vec![json!("not an event"), json!({"type": "trace-create"}), json!({"id": 5, "type": "x"})]);
    let ids: Vec<_> = parsed.errors.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["unknown", "unknown", "unknown"]);
    assert_eq!(parsed.errors[0].error.as_deref(), Some("event: expected an object, got a string"));
}

#[test]
fn results_keep_the_order_of_the_batch() {
    let parsed = run(vec![
        event("u", "span-update", json!({"id": "s1"})),
        event("bad1", "span-create", json!({})),
        event("c", "span-create", json!({"id": "s1"})),
        event("bad2", "span-create", json!({})),
    ]);
    let ids =
        |results: &[crate::batch::EventResult]| results.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&parsed.successes), ["u", "c"]);
    assert_eq!(ids(&parsed.errors), ["bad1", "bad2"]);
}

#[test]
fn an_event_without_entity_id_is_refused_not_lost() {
    for (event_type, body) in [
        ("trace-create", json!({"name": "no id"})),
        ("score-create", json!({"name": "s", "value": 1, "traceId": "t"})),
        ("observation-create", json!({"type": "SPAN"})),
        ("span-create", json!({"id": null})),
        ("generation-update", json!({})),
    ] {
        let error = invalid(event("e", event_type, body));
        assert!(
            error.starts_with("body.id: required: an event without an entity id cannot be stored"),
            "{event_type}: {error}"
        );
    }
}

#[test]
fn sdk_log_is_counted_and_kept() {
    let parsed = accepted(event("log-1", "sdk-log", json!({"log": {"level": "warn", "msg": "retrying"}})));
    assert_eq!(parsed.successes[0].status, 201);
    assert_eq!(parsed.logs, vec![json!({"level": "warn", "msg": "retrying"})]);
    assert!(parsed.traces.is_empty() && parsed.observations.is_empty() && parsed.scores.is_empty());
    // `log` may be null but must be present.
    assert_eq!(accepted(event("log-2", "sdk-log", json!({"log": null}))).logs, vec![Value::Null]);
    assert_eq!(invalid(event("log-3", "sdk-log", json!({"message": "x"}))), "body.log: required");
}

#[test]
fn dataset_run_items_are_internal_only() {
    let error = invalid(event("e", "dataset-run-item-create", json!({"runId": "r", "datasetItemId": "i"})));
    assert_eq!(error, "type: Dataset run item creation is only allowed for internal usage");
}

#[test]
fn events_only_mode_accepts_only_scores_and_logs() {
    let context = crate::batch::BatchContext { write_mode: WriteMode::EventsOnly, ..context() };
    let score = json!({"id": "sc", "name": "n", "value": 1, "traceId": "t"});
    let parsed = run_with(
        &context,
        vec![
            event("trace", "trace-create", json!({"id": "t"})),
            event("span", "span-create", json!({"id": "s"})),
            event("tool", "tool-create", json!({"id": "o"})),
            event("garbage", "no-such-type", json!({})),
            json!(42),
            event("score", "score-create", score),
            event("log", "sdk-log", json!({"log": "x"})),
        ],
    );
    let ok: Vec<_> = parsed.successes.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ok, ["score", "log"]);
    assert_eq!(parsed.errors.len(), 5);
    for error in &parsed.errors {
        assert_eq!(error.status, 400);
        assert_eq!(error.message.as_deref(), Some("Event type not accepted"));
        let text = error.error.as_deref().unwrap();
        assert!(text.contains("/api/public/otel/v1/traces") && text.contains("events_only"), "{text}");
    }
    assert!(parsed.errors[0].error.as_deref().unwrap().starts_with("Event type \"trace-create\""));
    assert!(parsed.errors[4].error.as_deref().unwrap().starts_with("Event type \"unknown\""));
    assert!(parsed.traces.is_empty() && parsed.observations.is_empty());
    assert_eq!(parsed.scores.len(), 1);
    // Other modes take everything.
    for mode in [WriteMode::Legacy, WriteMode::Dual] {
        let context = crate::batch::BatchContext { write_mode: mode, ..context.clone() };
        assert!(run_with(&context, vec![event("t", "trace-create", json!({"id": "t"}))]).errors.is_empty());
    }
}

#[test]
fn public_key_auth_may_only_send_scores() {
    let context = crate::batch::BatchContext { scores_only: true, ..context() };
    let parsed = run_with(
        &context,
        vec![
            event("trace", "trace-create", json!({"id": "t"})),
            event("gen", "generation-update", json!({"id": "g"})),
            event("score", "score-create", json!({"id": "sc", "name": "n", "value": 1, "traceId": "t"})),
            event("log", "sdk-log", json!({"log": 1})),
        ],
    );
    assert_eq!(parsed.successes.len(), 2);
    let wire = serde_json::to_value(parsed.response()).unwrap();
    assert_eq!(
        wire["errors"],
        json!([
            {"id": "trace", "status": 401, "message": "Authentication error", "error": "Access Scope Denied"},
            {"id": "gen", "status": 401, "message": "Authentication error", "error": "Access Scope Denied"}
        ])
    );
    // A scope-denied event is refused before validation: no record, whatever its body.
    assert!(parsed.traces.is_empty() && parsed.observations.is_empty());
}

#[test]
fn unknown_body_keys_are_ignored() {
    // Python SDK 2 sends snake_case extras (`start_time`, `parent_observation_id`); upstream strips them.
    let parsed =
        accepted(event("e", "trace-create", json!({"id": "t", "start_time": "x", "whatever": {"a": 1}})));
    assert_eq!(parsed.traces[0].id, "t");
}
