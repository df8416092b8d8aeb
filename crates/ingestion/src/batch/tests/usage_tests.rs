//! Usage and cost normalisation of generation bodies (reference/public-api.md §2.3).

use std::collections::BTreeMap;

use domain::event::Decimal12;
use serde_json::{Value, json};

use super::support::*;

fn usage_of(body: Value) -> (BTreeMap<String, u64>, BTreeMap<String, Decimal12>) {
    let mut body = body;
    body["id"] = json!("g");
    let parsed = accepted(event("e", "generation-create", body));
    let generation = parsed.observations.into_iter().next().unwrap();
    (generation.provided_usage_details, generation.provided_cost_details)
}

fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

fn cost(amount: f64) -> Decimal12 {
    Decimal12::from_f64(amount).unwrap()
}

#[test]
fn legacy_usage_with_costs() {
    let (usage, costs) = usage_of(json!({"usage": {
        "input": 3, "output": 1, "total": 4, "unit": "TOKENS", "inputCost": 3e-6, "outputCost": 2e-6, "totalCost": 5e-6
    }}));
    assert_eq!(usage, counts(&[("input", 3), ("output", 1), ("total", 4)]));
    assert_eq!(costs["input"], cost(3e-6));
    assert_eq!(costs["total"], cost(5e-6));
}

#[test]
fn legacy_usage_derives_a_missing_total() {
    assert_eq!(
        usage_of(json!({"usage": {"input": 3, "output": 1}})).0,
        counts(&[("input", 3), ("output", 1), ("total", 4)])
    );
    assert_eq!(usage_of(json!({"usage": {"output": 5}})).0, counts(&[("output", 5), ("total", 5)]));
    // Not when usageDetails are sent too: those carry their own total (or none).
    assert_eq!(
        usage_of(json!({"usage": {"input": 3, "output": 1}, "usageDetails": {"cached": 2}})).0,
        counts(&[("input", 3), ("output", 1), ("cached", 2)])
    );
    assert!(usage_of(json!({"usage": {}})).0.is_empty(), "an empty usage says nothing");
}

#[test]
fn openai_style_legacy_usage() {
    let (usage, costs) = usage_of(
        json!({"usage": {"promptTokens": 10, "completionTokens": 5, "totalTokens": 15, "inputCost": 1.0}}),
    );
    assert_eq!(usage, counts(&[("input", 10), ("output", 5), ("total", 15)]));
    assert!(costs.is_empty(), "upstream drops the costs of the OpenAI style");
    // Any OpenAI key switches to that style, even alongside the plain keys.
    assert_eq!(
        usage_of(json!({"usage": {"input": 99, "promptTokens": 7}})).0,
        counts(&[("input", 7), ("total", 7)])
    );
}

#[test]
fn legacy_usage_rules() {
    for (usage, expected) in [
        (json!("42 tokens"), "body.usage: expected an object, got a string"),
        (json!({"input": 1.5}), "body.usage.input: expected an integer, got 1.5"),
        (json!({"input": "3"}), "body.usage.input: expected an integer, got \"3\""),
        (
            json!({"unit": "WORDS"}),
            "body.usage.unit: expected one of CHARACTERS, TOKENS, MILLISECONDS, SECONDS, IMAGES, REQUESTS",
        ),
        (json!({"totalCost": "0.1"}), "body.usage.totalCost: expected a number, got a string"),
        (json!({"promptTokens": true}), "body.usage.promptTokens: expected an integer"),
    ] {
        let error = invalid(event("e", "generation-create", json!({"id": "g", "usage": usage})));
        assert!(error.contains(expected), "{usage}: {error}");
    }
    // Negative counts and amounts cannot be stored (unsigned / Decimal columns): dropped.
    let (usage, costs) = usage_of(json!({"usage": {"input": -1, "output": 2, "inputCost": -0.5}}));
    assert_eq!(usage, counts(&[("output", 2), ("total", 2)]));
    assert!(costs.is_empty());
}

#[test]
fn openai_chat_completions_usage_details() {
    let (usage, _) = usage_of(json!({"usageDetails": {
        "prompt_tokens": 100, "completion_tokens": 40, "total_tokens": 140,
        "prompt_tokens_details": {"cached_tokens": 30, "audio_tokens": null},
        "completion_tokens_details": {"reasoning_tokens": 50}
    }}));
    assert_eq!(
        usage,
        counts(&[
            ("input", 70),
            ("input_cached_tokens", 30),
            ("output", 0),
            ("output_reasoning_tokens", 50),
            ("total", 140)
        ]),
        "details are subtracted, floored at 0"
    );
}

#[test]
fn openai_responses_usage_details() {
    let (usage, _) = usage_of(json!({"usageDetails": {
        "input_tokens": 12, "output_tokens": 8, "total_tokens": 20, "input_tokens_details": {"cached_tokens": 2}, "output_tokens_details": null
    }}));
    assert_eq!(usage, counts(&[("input", 10), ("input_cached_tokens", 2), ("output", 8), ("total", 20)]));
}

#[test]
fn the_openai_shapes_are_strict() {
    // An extra key, a missing count or a bad detail: not the OpenAI shape, so a free-form record.
    let (usage, _) = usage_of(
        json!({"usageDetails": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3, "cost": 4}}),
    );
    assert_eq!(
        usage,
        counts(&[("prompt_tokens", 1), ("completion_tokens", 2), ("total_tokens", 3), ("cost", 4)])
    );
    let (usage, _) = usage_of(json!({"usageDetails": {"prompt_tokens": 1, "completion_tokens": 2}}));
    assert_eq!(usage, counts(&[("prompt_tokens", 1), ("completion_tokens", 2)]));
    let (usage, _) = usage_of(json!({"usageDetails": {
        "input_tokens": 1, "output_tokens": 2, "total_tokens": 3, "input_tokens_details": {"cached_tokens": -1}
    }}));
    assert_eq!(usage, counts(&[("input_tokens", 1), ("output_tokens", 2), ("total_tokens", 3)]));
}

#[test]
fn free_form_usage_details() {
    let (usage, _) = usage_of(json!({"usageDetails": {
        "input": 42, "output": 9.0, "total": "51", "cache_read": "12 tokens", "audio": "n/a",
        "fraction": 1.5, "negative": -3, "flag": true, "nested": {"a": 1}, "nothing": null
    }}));
    assert_eq!(usage, counts(&[("input", 42), ("output", 9), ("total", 51), ("cache_read", 12)]));
    assert!(usage_of(json!({"usageDetails": {}})).0.is_empty());
    let error = invalid(event("e", "generation-create", json!({"id": "g", "usageDetails": [1, 2]})));
    assert_eq!(error, "body.usageDetails: expected an object, got an array");
}

#[test]
fn usage_details_overlay_legacy_usage() {
    let (usage, _) =
        usage_of(json!({"usage": {"input": 1, "output": 2, "total": 3}, "usageDetails": {"input": 10}}));
    assert_eq!(usage, counts(&[("input", 10), ("output", 2), ("total", 3)]));
}

#[test]
fn cost_details() {
    let (_, costs) = usage_of(json!({
        "usage": {"inputCost": 1.0, "totalCost": 9.0},
        "costDetails": {"input": 2.1e-5, "output": 1.8e-5, "total": 3.9e-5, "bad": "1.0", "negative": -1, "nothing": null, "huge": 1e9}
    }));
    let expected: BTreeMap<String, Decimal12> =
        [("input", cost(2.1e-5)), ("output", cost(1.8e-5)), ("total", cost(3.9e-5))]
            .map(|(k, v)| (k.to_owned(), v))
            .into();
    assert_eq!(costs, expected);
    assert!(usage_of(json!({"costDetails": {}})).1.is_empty());
    let error = invalid(event("e", "generation-create", json!({"id": "g", "costDetails": 0.3})));
    assert_eq!(error, "body.costDetails: expected an object, got a number");
}

#[test]
fn span_bodies_carry_no_usage() {
    let parsed = accepted(event(
        "e",
        "span-create",
        json!({"id": "s", "traceId": "t", "usage": {"input": 1}, "usageDetails": "x"}),
    ));
    assert!(parsed.observations[0].provided_usage_details.is_empty(), "stripped, like upstream");
}
