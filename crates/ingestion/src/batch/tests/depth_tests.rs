//! Nesting (crate::depth): a body nested far past the JSON cap is a clear 400 on every legacy
//! endpoint, never a stack overflow (this overflows the test thread's stack if the cap is
//! lifted); a body at the cap is taken and its values stored as JSON text.

use serde_json::Value;

use super::support::*;
use crate::batch::{BatchError, SingleKind, parse_batch, parse_scores, parse_single};
use crate::depth::MAX_JSON_DEPTH;
use crate::error::IngestError;

const DEEP: usize = 100_000;

fn nested_arrays(levels: usize) -> String {
    format!("{}{}", "[".repeat(levels), "]".repeat(levels))
}

/// A one-trace batch whose trace input is `input` (raw JSON text).
fn batch_with_input(input: &str) -> String {
    format!(
        r#"{{"batch":[{{"id":"e1","type":"trace-create","timestamp":"{T0}","body":{{"id":"t1","input":{input}}}}}]}}"#
    )
}

#[test]
fn a_body_nested_a_hundred_thousand_levels_is_a_clear_400() {
    let context = context();
    let deep = nested_arrays(DEEP);
    let errors = [
        parse_batch(deep.as_bytes(), &context).unwrap_err(),
        parse_batch(batch_with_input(&deep).as_bytes(), &context).unwrap_err(),
        parse_scores(deep.as_bytes(), &context).unwrap_err(),
        parse_single(SingleKind::Trace, deep.as_bytes(), &context).unwrap_err(),
    ];
    for error in errors {
        let BatchError::NotJson(detail) = &error else { panic!("{error:?}") };
        assert!(detail.starts_with(&format!("JSON nested deeper than {MAX_JSON_DEPTH} levels")), "{detail}");
        let error = IngestError::from(error);
        assert_eq!(error.kind.http_status(), 400);
        assert!(error.detail.unwrap().contains("nested deeper than"));
    }
}

#[test]
fn a_body_nested_up_to_the_cap_is_taken() {
    // The batch, its array, the event and its body are four levels; the input takes the rest.
    let input = nested_arrays(MAX_JSON_DEPTH - 4);
    let parsed = parse_batch(batch_with_input(&input).as_bytes(), &context()).unwrap();
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    assert_eq!(parsed.traces[0].input.as_deref(), Some(input.as_str()));
    // What is stored parses again in the worker.
    assert!(serde_json::from_str::<Value>(parsed.traces[0].input.as_deref().unwrap()).is_ok());

    let over = nested_arrays(MAX_JSON_DEPTH - 3);
    assert!(matches!(
        parse_batch(batch_with_input(&over).as_bytes(), &context()),
        Err(BatchError::NotJson(_))
    ));
}
