//! The legacy single-object endpoints and `POST /api/public/scores`, including the score
//! requests of the newer SDK captures.

use domain::config::WriteMode;
use domain::event::ObservationType;
use domain::v3::ScoreDataType;
use serde_json::{Value, json};

use super::fixture_tests::{context_for, fixture};
use super::support::*;
use crate::batch::{BatchContext, BatchError, SingleKind, parse_scores, parse_single};

fn single(kind: SingleKind, body: Value) -> (crate::batch::ParsedBatch, String) {
    parse_single(kind, &serde_json::to_vec(&body).unwrap(), &context()).unwrap()
}

#[test]
fn each_kind_creates_its_object() {
    let (parsed, id) = single(SingleKind::Trace, json!({"id": "t1", "name": "legacy trace"}));
    assert_eq!(id, "t1");
    assert_eq!(parsed.successes[0].id, "t1");
    assert_eq!(parsed.traces[0].name.as_deref(), Some("legacy trace"));
    assert_eq!(parsed.traces[0].timestamp, Some(RECEIVED), "no envelope: the request time");

    for (kind, expected) in [
        (SingleKind::Span, ObservationType::Span),
        (SingleKind::Generation, ObservationType::Generation),
        (SingleKind::Event, ObservationType::Event),
    ] {
        let (parsed, id) = single(kind, json!({"id": "o1", "traceId": "t1"}));
        assert_eq!(id, "o1");
        assert_eq!(parsed.observations[0].observation_type, Some(expected));
        assert_eq!(parsed.observations[0].start_time, Some(RECEIVED));
    }

    let (parsed, id) =
        single(SingleKind::Score, json!({"id": "s1", "name": "n", "value": 1, "traceId": "t1"}));
    assert_eq!(id, "s1");
    assert_eq!(parsed.scores[0].timestamp, RECEIVED);
}

#[test]
fn a_missing_id_is_generated() {
    for body in [json!({"name": "x"}), json!({"id": null, "name": "x"})] {
        let (parsed, id) = single(SingleKind::Trace, body);
        assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
        assert_eq!(parsed.traces[0].id, id);
        assert_eq!(parsed.successes[0].id, id);
    }
    // Without a trace: the observation gets a wrapper trace, as in a batch.
    let (parsed, id) = single(SingleKind::Span, json!({"name": "orphan"}));
    assert_eq!(parsed.observations[0].trace_id.as_deref(), Some(id.as_str()));
    assert_eq!(parsed.traces[0].id, id);
}

#[test]
fn bodies_are_validated_like_batch_bodies() {
    let (parsed, _) = single(SingleKind::Generation, json!({"id": "g", "promptName": "p", "level": "LOUD"}));
    assert!(parsed.successes.is_empty() && parsed.observations.is_empty());
    let error = parsed.errors[0].error.as_deref().unwrap();
    assert!(
        error.contains("body.level: expected one of") && error.contains("promptName and promptVersion"),
        "{error}"
    );
    let (parsed, _) = single(SingleKind::Score, json!({"name": "n", "value": 1}));
    assert!(parsed.errors[0].error.as_deref().unwrap().contains("provide exactly one of the following"));
    let (parsed, id) = single(SingleKind::Trace, json!({"id": 12}));
    assert_eq!(id, "unknown");
    assert_eq!(parsed.errors[0].error.as_deref(), Some("body.id: expected a string, got a number"));
}

#[test]
fn old_generation_bodies_use_prompt_and_completion() {
    let (parsed, _) = single(
        SingleKind::Generation,
        json!({
            "id": "g", "traceId": "t", "prompt": [{"role": "user", "content": "hi"}], "completion": "hello"
        }),
    );
    let generation = &parsed.observations[0];
    let input: Value = serde_json::from_str(generation.input.as_deref().unwrap()).unwrap();
    assert_eq!(input, json!([{"role": "user", "content": "hi"}]));
    assert_eq!(generation.output.as_deref(), Some("hello"));
    // `input` wins when both are sent.
    let (parsed, _) = single(SingleKind::Generation, json!({"id": "g", "input": "new", "prompt": "old"}));
    assert_eq!(parsed.observations[0].input.as_deref(), Some("new"));
}

#[test]
fn whole_request_errors() {
    let context = context();
    assert!(matches!(parse_single(SingleKind::Trace, b"{", &context), Err(BatchError::NotJson(_))));
    assert_eq!(
        parse_single(SingleKind::Span, b"[]", &context).unwrap_err(),
        BatchError::NotAnObject("an array")
    );
    assert_eq!(parse_scores(b"\"score\"", &context).unwrap_err(), BatchError::NotScores("a string"));
    assert!(parse_scores(b"", &context).is_err());
}

#[test]
fn gates_apply_to_single_objects() {
    let scores_only = BatchContext { scores_only: true, ..context() };
    let (parsed, _) = parse_single(SingleKind::Trace, br#"{"id": "t"}"#, &scores_only).unwrap();
    assert_eq!(parsed.errors[0].status, 401);
    let (parsed, _) = parse_single(
        SingleKind::Score,
        br#"{"id": "s", "name": "n", "value": 1, "traceId": "t"}"#,
        &scores_only,
    )
    .unwrap();
    assert!(parsed.errors.is_empty());
    let events_only = BatchContext { write_mode: WriteMode::EventsOnly, ..context() };
    let (parsed, _) = parse_single(SingleKind::Generation, br#"{"id": "g"}"#, &events_only).unwrap();
    assert_eq!(parsed.errors[0].message.as_deref(), Some("Event type not accepted"));
    let (parsed, _) = parse_scores(br#"{"name": "n", "value": 1, "sessionId": "s"}"#, &events_only).unwrap();
    assert_eq!(parsed.scores.len(), 1);
}

#[test]
fn scores_endpoint_takes_an_object_or_an_array() {
    let context = context();
    let (parsed, ids) = parse_scores(br#"{"name": "n", "value": 1, "traceId": "t"}"#, &context).unwrap();
    assert_eq!(ids.len(), 1);
    assert_eq!(parsed.scores[0].id, ids[0]);

    let body = br#"[{"id": "a", "name": "n", "value": 1, "traceId": "t"}, 7, {"name": "bad", "value": 1}, {"name": "m", "value": "x", "sessionId": "s"}]"#;
    let (parsed, ids) = parse_scores(body, &context).unwrap();
    assert_eq!(ids[0], "a");
    assert_eq!(ids[1], "unknown");
    assert_eq!(parsed.successes.len(), 2);
    assert_eq!(parsed.errors.len(), 2);
    assert_eq!(parsed.errors[0].error.as_deref(), Some("score: expected an object, got a number"));
    assert_eq!(parsed.errors[1].id, ids[2]);
    assert_eq!(parsed.scores.len(), 2);

    let (parsed, ids) = parse_scores(b"[]", &context).unwrap();
    assert!(ids.is_empty() && parsed.successes.is_empty());
}

/// The newest SDKs (Python 5) post scores as a JSON array to `/api/public/scores`.
#[test]
fn replays_the_scores_requests_of_newer_sdks() {
    let mut replayed = 0;
    for file in ["py-langfuse-5.0.4.json", "py-langfuse-5.0.4-nocompression.json"] {
        let capture = fixture(file);
        for request in capture["requests"].as_array().unwrap() {
            if request["path"] != "/api/public/scores" {
                continue;
            }
            let sent = request["body"].as_array().unwrap();
            let body = serde_json::to_vec(&request["body"]).unwrap();
            let (parsed, ids) = parse_scores(&body, &context_for(request, RECEIVED)).unwrap();
            assert!(parsed.errors.is_empty(), "{file}: {:?}", parsed.errors);
            let sent_ids: Vec<&str> = sent.iter().map(|s| s["id"].as_str().unwrap()).collect();
            assert_eq!(ids, sent_ids);
            assert_eq!(parsed.scores.len(), 5);
            let by_name = |name: &str| parsed.scores.iter().find(|s| s.name == name).unwrap();
            assert_eq!(by_name("relevance").data_type, ScoreDataType::Numeric);
            assert!(by_name("relevance").observation_id.is_some());
            assert_eq!(by_name("quality").comment.as_deref(), Some("good answer"));
            assert_eq!(by_name("sentiment").string_value.as_deref(), Some("positive"));
            assert_eq!(by_name("is-correct").string_value.as_deref(), Some("True"));
            let session = by_name("session-rating");
            assert_eq!(
                (session.session_id.as_deref(), session.trace_id.as_deref()),
                (Some("session-abc"), None)
            );
            assert_eq!(session.value, 4.0);
            for (score, sent) in parsed.scores.iter().zip(sent) {
                assert_eq!(score.environment, "capture-env");
                assert_eq!(
                    score.timestamp,
                    ms(sent["timestamp"].as_str().unwrap()),
                    "the body timestamp is kept"
                );
                assert_eq!(score.ingestion_sdk_name, "python");
                assert_eq!(score.ingestion_sdk_version, "5.0.4");
            }
            replayed += 1;
        }
    }
    assert_eq!(replayed, 2);
}

/// The score-create batches of the OTel-era SDKs (Python 3/4, JS 4/5) go through the batch API.
#[test]
fn replays_the_score_batches_of_otel_era_sdks() {
    let mut replayed = 0;
    for file in [
        "py-langfuse-3.15.0.json",
        "py-langfuse-4.14.3.json",
        "py-langfuse-4.18.0.json",
        "py-langfuse-4.18.0-gzip.json",
        "js-langfuse-otel-4.6.1.json",
        "js-langfuse-otel-5.11.1.json",
    ] {
        let capture = fixture(file);
        for request in capture["requests"].as_array().unwrap() {
            if request["path"] != "/api/public/ingestion" {
                continue;
            }
            let body = serde_json::to_vec(&request["body"]).unwrap();
            let parsed = crate::batch::parse_batch(&body, &context_for(request, RECEIVED)).unwrap();
            assert_eq!(serde_json::to_value(parsed.response()).unwrap(), request["response_body"], "{file}");
            let types: Vec<_> = parsed.scores.iter().map(|s| (s.name.as_str(), s.data_type)).collect();
            assert!(types.contains(&("relevance", ScoreDataType::Numeric)), "{file}: {types:?}");
            assert!(types.contains(&("is-correct", ScoreDataType::Boolean)), "{file}");
            assert!(types.contains(&("sentiment", ScoreDataType::Categorical)), "{file}");
            let session = parsed.scores.iter().find(|s| s.name == "session-rating").unwrap();
            assert_eq!(session.session_id.as_deref(), Some("session-abc"));
            replayed += 1;
        }
    }
    assert_eq!(replayed, 6);
}
