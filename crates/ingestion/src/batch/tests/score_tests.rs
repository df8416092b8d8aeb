//! `score-create`: data types, the target rule, inflation and attribution.

use domain::v3::ScoreDataType;
use serde_json::{Value, json};

use super::support::*;

fn score(body: Value) -> domain::v3::ScoreRecord {
    let parsed = accepted(event("e", "score-create", body));
    assert_eq!(parsed.scores.len(), 1);
    parsed.scores.into_iter().next().unwrap()
}

fn base(extra: Value) -> Value {
    let mut body = json!({"id": "sc", "name": "quality", "traceId": "t"});
    body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    body
}

#[test]
fn numeric_score_with_everything() {
    let record = score(base(json!({
        "value": 0.85, "dataType": "NUMERIC", "observationId": "o", "comment": "good answer",
        "environment": "capture-env", "metadata": {"reviewer": "bot", "round": 2}, "configId": "cfg",
        "queueId": "q", "executionTraceId": "x", "source": "EVAL"
    })));
    assert_eq!(record.id, "sc");
    assert_eq!(record.project_id, "project-1");
    assert_eq!(record.data_type, ScoreDataType::Numeric);
    assert_eq!(record.value, 0.85);
    assert_eq!(record.string_value, None);
    assert_eq!((record.trace_id.as_deref(), record.observation_id.as_deref()), (Some("t"), Some("o")));
    assert_eq!(record.comment.as_deref(), Some("good answer"));
    assert_eq!(record.environment, "capture-env");
    assert_eq!(record.metadata["round"], "2");
    assert_eq!(record.config_id.as_deref(), Some("cfg"));
    assert_eq!(record.queue_id.as_deref(), Some("q"));
    assert_eq!(record.execution_trace_id.as_deref(), Some("x"));
    assert_eq!(record.source, "EVAL");
    assert_eq!(record.timestamp, ms(T0), "the envelope timestamp");
    assert_eq!((record.created_at, record.updated_at, record.event_ts), (RECEIVED, RECEIVED, RECEIVED));
    assert_eq!(record.ingestion_api_key, "pk-lf-test");
    assert_eq!(
        (record.ingestion_sdk_name.as_str(), record.ingestion_sdk_version.as_str()),
        ("python", "2.60.10")
    );
}

#[test]
fn defaults_and_inference() {
    let record = score(base(json!({"value": 3})));
    assert_eq!(record.data_type, ScoreDataType::Numeric, "a number without dataType is NUMERIC");
    assert_eq!(record.source, "API");
    assert_eq!(record.environment, "default");
    assert!(record.metadata.is_empty());
    let record = score(base(json!({"value": "positive"})));
    assert_eq!(record.data_type, ScoreDataType::Categorical, "a string without dataType is CATEGORICAL");
    assert_eq!(record.string_value.as_deref(), Some("positive"));
    assert_eq!(record.value, 0.0, "without a config a category has no value");
}

#[test]
fn a_categorical_score_of_a_config_takes_the_value_web_wrote() {
    let with_config = score(base(json!({"value": "good", "configId": "cfg", "configCategoryValue": 2.5})));
    assert_eq!((with_config.value, with_config.string_value.as_deref()), (2.5, Some("good")));
    let without = score(base(json!({"value": "good", "configCategoryValue": 2.5})));
    assert_eq!(without.value, 0.0, "only bodies web fitted to a config carry a value there");
}

#[test]
fn boolean_scores_get_a_string_value() {
    for (value, label) in [(json!(1), "True"), (json!(1.0), "True"), (json!(0), "False")] {
        let record = score(base(json!({"value": value, "dataType": "BOOLEAN"})));
        assert_eq!(record.data_type, ScoreDataType::Boolean);
        assert_eq!(record.string_value.as_deref(), Some(label));
    }
    let error = invalid(event("e", "score-create", base(json!({"value": 0.5, "dataType": "BOOLEAN"}))));
    assert_eq!(error, "body.value: Value must be a number equal to either 0 or 1 for data type BOOLEAN");
}

#[test]
fn value_must_match_the_data_type() {
    for (extra, expected) in [
        (
            json!({"value": "high", "dataType": "NUMERIC"}),
            "body.value: expected a number for data type NUMERIC, got a string",
        ),
        (
            json!({"value": 1, "dataType": "CATEGORICAL"}),
            "body.value: expected a string for data type CATEGORICAL, got a number",
        ),
        (
            json!({"value": true, "dataType": "BOOLEAN"}),
            "body.value: expected a number for data type BOOLEAN, got a boolean",
        ),
        (json!({"value": [1]}), "body.value: expected a number or a string, got an array"),
        (json!({}), "body.value: required"),
        (json!({"value": null}), "body.value: required"),
        (
            json!({"value": 1, "dataType": "numeric"}),
            "body.dataType: expected one of NUMERIC, CATEGORICAL, BOOLEAN, CORRECTION, TEXT",
        ),
        (json!({"value": 1, "source": "USER"}), "body.source: expected one of API, EVAL, ANNOTATION"),
        (
            json!({"value": "", "dataType": "TEXT"}),
            "body.value: must be 1 to 500 characters long for data type TEXT",
        ),
        (json!({"value": "x".repeat(501), "dataType": "TEXT"}), "for data type TEXT"),
        (
            json!({"value": "fix", "dataType": "CORRECTION", "configId": "c"}),
            "body.configId: must not be set for data type CORRECTION",
        ),
        (json!({"value": 1, "comment": 5}), "body.comment: expected a string"),
        (json!({"value": 1, "timestamp": "noon"}), "body.timestamp: expected an ISO-8601"),
    ] {
        let error = invalid(event("e", "score-create", base(extra.clone())));
        assert!(error.contains(expected), "{extra}: {error}");
    }
}

#[test]
fn name_is_required_and_non_empty() {
    for body in [
        json!({"id": "sc", "traceId": "t", "value": 1}),
        json!({"id": "sc", "name": "", "traceId": "t", "value": 1}),
    ] {
        assert_eq!(invalid(event("e", "score-create", body)), "body.name: required, a non-empty string");
    }
}

#[test]
fn exactly_one_target() {
    let rule = "body.traceId: provide exactly one of the following: traceId (with optional observationId), sessionId or datasetRunId. ObservationId requires traceId";
    for body in [
        json!({"id": "sc", "name": "n", "value": 1}),
        json!({"id": "sc", "name": "n", "value": 1, "traceId": "t", "sessionId": "s"}),
        json!({"id": "sc", "name": "n", "value": 1, "sessionId": "s", "datasetRunId": "d"}),
        json!({"id": "sc", "name": "n", "value": 1, "sessionId": "s", "observationId": "o"}),
        json!({"id": "sc", "name": "n", "value": 1, "traceId": "", "observationId": "o"}),
    ] {
        assert_eq!(invalid(event("e", "score-create", body.clone())), rule, "{body}");
    }
    let session =
        score(json!({"id": "sc", "name": "n", "value": 4, "sessionId": "session-abc", "traceId": null}));
    assert_eq!((session.session_id.as_deref(), session.trace_id.as_deref()), (Some("session-abc"), None));
    let run = score(json!({"id": "sc", "name": "n", "value": 4, "datasetRunId": "run-1"}));
    assert_eq!(run.dataset_run_id.as_deref(), Some("run-1"));
}

#[test]
fn corrections_and_text_scores() {
    let correction = score(base(json!({"value": "the right answer", "dataType": "CORRECTION"})));
    assert_eq!(correction.data_type, ScoreDataType::Correction);
    assert_eq!(correction.name, "output", "upstream stores corrections under the name `output`");
    assert_eq!(correction.string_value.as_deref(), Some("the right answer"));
    let error = invalid(event(
        "e",
        "score-create",
        json!({
            "id": "sc", "name": "n", "value": "x", "dataType": "CORRECTION", "sessionId": "s"
        }),
    ));
    assert!(error.contains("CORRECTION scores need a traceId target"), "{error}");

    let text = score(base(json!({"value": "free text", "dataType": "TEXT"})));
    assert_eq!(text.data_type, ScoreDataType::Text);
    assert_eq!(text.string_value.as_deref(), Some("free text"));
}

#[test]
fn body_timestamp_wins_over_the_envelope() {
    let record = score(base(json!({"value": 1, "timestamp": "2026-11-21T19:41:10.124392Z"})));
    assert_eq!(record.timestamp, ms("2026-11-21T19:41:10.124Z"));
}

#[test]
fn attribution_defaults_to_unknown() {
    let context = crate::batch::BatchContext { sdk: Default::default(), ..context() };
    let parsed = run_with(&context, vec![event("e", "score-create", base(json!({"value": 1})))]);
    let record = &parsed.scores[0];
    assert_eq!(
        (record.ingestion_sdk_name.as_str(), record.ingestion_sdk_version.as_str()),
        ("unknown", "unknown")
    );
}

#[test]
fn a_repeated_score_id_keeps_the_latest() {
    let parsed = run(vec![
        at("a", "score-create", "2024-05-01T12:00:01Z", base(json!({"value": 2}))),
        at("b", "score-create", "2024-05-01T12:00:00Z", base(json!({"value": 1}))),
    ]);
    assert_eq!(parsed.successes.len(), 2);
    assert_eq!(parsed.scores.len(), 1);
    assert_eq!(parsed.scores[0].value, 2.0, "ordered by timestamp, not by position");
}

#[test]
fn only_a_person_authors_a_score() {
    let body = base(json!({"value": 1, "authorUserId": "claimed"}));
    assert_eq!(score(body.clone()).author_user_id, None, "an SDK's authorUserId is not taken");
    let request = json!({"batch": [event("e", "score-create", body)]});
    let person = crate::batch::BatchContext { public_key: "user:u-1".to_owned(), ..context() };
    let parsed = crate::batch::parse_batch(request.to_string().as_bytes(), &person).unwrap();
    assert_eq!(parsed.scores[0].author_user_id.as_deref(), Some("u-1"));
}
