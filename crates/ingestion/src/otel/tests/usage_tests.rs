//! Usage normalisation.

use serde_json::json;

use crate::otel::usage::{Usage, normalise_usage};

fn usage(pairs: &[(&str, u64)]) -> Usage {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

#[test]
fn openai_chat_completions_shape() {
    let value = json!({
        "prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120,
        "prompt_tokens_details": {"cached_tokens": 30, "audio_tokens": null},
        "completion_tokens_details": {"reasoning_tokens": 5},
    });
    let expected = usage(&[
        ("input", 70),
        ("input_cached_tokens", 30),
        ("output", 15),
        ("output_reasoning_tokens", 5),
        ("total", 120),
    ]);
    assert_eq!(normalise_usage(&value), expected);
    // Only the exact shape is mapped (upstream's strict schema): without `total_tokens` the keys
    // are kept as sent (issue 17).
    assert_eq!(normalise_usage(&json!({"prompt_tokens": 3})), usage(&[("prompt_tokens", 3)]));
    assert_eq!(
        normalise_usage(&json!({"prompt_tokens": 10, "completion_tokens": 5})),
        usage(&[("completion_tokens", 5), ("prompt_tokens", 10)])
    );
}

#[test]
fn openai_responses_shape() {
    let value = json!({"input_tokens": 10, "output_tokens": 4, "total_tokens": 14, "input_tokens_details": {"cached_tokens": 20}});
    assert_eq!(
        normalise_usage(&value),
        usage(&[("input", 0), ("input_cached_tokens", 20), ("output", 4), ("total", 14)])
    );
}

#[test]
fn free_form_counts() {
    let value =
        json!({"input": 42, "output": "9", "total": 51.0, "bad": "x", "negative": -1, "nested": {"a": 1}});
    assert_eq!(normalise_usage(&value), usage(&[("input", 42), ("output", 9), ("total", 51)]));
    // Mixed with other keys, OpenAI names are kept as sent (free-form).
    let mixed = json!({"prompt_tokens": 1, "custom": 2});
    assert_eq!(normalise_usage(&mixed), usage(&[("custom", 2), ("prompt_tokens", 1)]));
    assert_eq!(normalise_usage(&json!([1, 2])), Usage::new());
}
