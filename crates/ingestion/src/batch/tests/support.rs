//! Builders shared by the batch tests.

use domain::config::WriteMode;
use domain::sdk::SdkInfo;
use serde_json::{Value, json};

use crate::batch::{BatchContext, EventResult, ParsedBatch, parse_batch};

/// When the test requests arrive.
pub const RECEIVED: i64 = 1_799_913_600_000;
pub const T0: &str = "2024-05-01T12:00:00.000Z";

pub fn context() -> BatchContext {
    BatchContext {
        project_id: "project-1".to_owned(),
        received_at_millis: RECEIVED,
        write_mode: WriteMode::Dual,
        scores_only: false,
        public_key: "pk-lf-test".to_owned(),
        sdk: SdkInfo {
            name: Some("python".to_owned()),
            version: Some("2.60.10".to_owned()),
            ingestion_version: None,
        },
    }
}

/// Milliseconds of an ISO timestamp, through the parser under test (itself tested in time_tests).
pub fn ms(iso: &str) -> i64 {
    crate::batch::time::parse_micros(iso).unwrap().div_euclid(1_000)
}

pub fn event(id: &str, event_type: &str, body: Value) -> Value {
    at(id, event_type, T0, body)
}

pub fn at(id: &str, event_type: &str, timestamp: &str, body: Value) -> Value {
    json!({"id": id, "type": event_type, "timestamp": timestamp, "body": body})
}

pub fn request(events: Vec<Value>) -> Vec<u8> {
    serde_json::to_vec(&json!({"batch": events, "metadata": {"sdk_name": "python"}})).unwrap()
}

pub fn run(events: Vec<Value>) -> ParsedBatch {
    run_with(&context(), events)
}

pub fn run_with(context: &BatchContext, events: Vec<Value>) -> ParsedBatch {
    parse_batch(&request(events), context).unwrap()
}

/// The single error of a one-event batch whose event was refused.
pub fn refused(event: Value) -> EventResult {
    let parsed = run(vec![event]);
    assert!(parsed.successes.is_empty(), "unexpected success: {parsed:?}");
    assert_eq!(parsed.errors.len(), 1);
    parsed.errors.into_iter().next().unwrap()
}

/// The `error` text of a refused one-event batch, asserting it is a 400 validation error.
pub fn invalid(event: Value) -> String {
    let result = refused(event);
    assert_eq!(result.status, 400, "{result:?}");
    assert_eq!(result.message.as_deref(), Some("Invalid request data"));
    result.error.unwrap()
}

/// The parsed batch of a one-event batch that must be accepted.
pub fn accepted(event: Value) -> ParsedBatch {
    let parsed = run(vec![event]);
    assert!(parsed.errors.is_empty(), "unexpected errors: {:?}", parsed.errors);
    assert_eq!(parsed.successes.len(), 1);
    parsed
}
