//! Ordering and merging within a batch (reference/public-api.md §2.5), and wrapper traces.

use domain::event::{Level, ObservationType};
use serde_json::{Value, json};

use super::support::*;
use crate::batch::ParsedBatch;

fn create() -> Value {
    at(
        "c",
        "span-create",
        "2024-05-01T12:00:00Z",
        json!({
            "id": "s", "traceId": "t", "name": "first", "startTime": "2024-05-01T12:00:00Z", "metadata": {"a": "1", "b": "1"}
        }),
    )
}

fn update() -> Value {
    // Stamped before the create on purpose: updates are applied after creates regardless.
    at(
        "u",
        "span-update",
        "2024-05-01T11:59:00Z",
        json!({
            "id": "s", "name": "renamed", "endTime": "2024-05-01T12:00:05Z", "level": "ERROR", "metadata": {"b": "2"}
        }),
    )
}

fn records(parsed: &ParsedBatch) -> (Vec<domain::v3::TraceUpdate>, Vec<domain::v3::ObservationUpdate>) {
    let mut traces = parsed.traces.clone();
    traces.sort_by(|a, b| a.id.cmp(&b.id));
    let mut observations = parsed.observations.clone();
    observations.sort_by(|a, b| a.id.cmp(&b.id));
    (traces, observations)
}

#[test]
fn create_then_update_equals_update_then_create() {
    let forward = run(vec![create(), update()]);
    let backward = run(vec![update(), create()]);
    assert_eq!(records(&forward), records(&backward));
    let span = &forward.observations[0];
    assert_eq!(forward.observations.len(), 1);
    assert_eq!(span.name.as_deref(), Some("renamed"), "the update wins");
    assert_eq!(
        span.start_time,
        Some(ms("2024-05-01T12:00:00Z")),
        "an update without startTime keeps the create's"
    );
    assert_eq!(span.end_time, Some(ms("2024-05-01T12:00:05Z")));
    assert_eq!(span.level, Some(Level::Error));
    assert_eq!(span.trace_id.as_deref(), Some("t"), "kept from the create");
    assert_eq!(span.metadata["a"], "1");
    assert_eq!(span.metadata["b"], "2", "metadata merges key by key, later wins");
    assert_eq!(span.observation_type, Some(ObservationType::Span));
}

#[test]
fn shuffled_batches_give_the_same_records() {
    let events = vec![
        at(
            "1",
            "trace-create",
            "2024-05-01T12:00:00Z",
            json!({"id": "t", "name": "one", "tags": ["x"], "metadata": {"k": "1"}}),
        ),
        at("2", "span-create", "2024-05-01T12:00:01Z", json!({"id": "s", "traceId": "t", "name": "span"})),
        at(
            "3",
            "generation-create",
            "2024-05-01T12:00:02Z",
            json!({"id": "g", "traceId": "t", "model": "m", "usage": {"input": 1}}),
        ),
        at(
            "4",
            "generation-update",
            "2024-05-01T12:00:03Z",
            json!({"id": "g", "usageDetails": {"output": 2}, "output": "a"}),
        ),
        at(
            "5",
            "generation-update",
            "2024-05-01T12:00:04Z",
            json!({"id": "g", "output": "b", "level": "WARNING"}),
        ),
        at(
            "6",
            "trace-create",
            "2024-05-01T12:00:05Z",
            json!({"id": "t", "name": "two", "tags": ["a"], "metadata": {"k": "2"}}),
        ),
        at("7", "span-update", "2024-05-01T12:00:06Z", json!({"id": "s", "output": "done"})),
        at(
            "8",
            "score-create",
            "2024-05-01T12:00:07Z",
            json!({"id": "sc", "name": "n", "value": 1, "traceId": "t"}),
        ),
        at("9", "event-create", "2024-05-01T12:00:08Z", json!({"id": "e", "traceId": "t"})),
    ];
    let reference = run(events.clone());
    assert!(reference.errors.is_empty());
    let expected = records(&reference);
    // A fixed set of permutations (reversal and rotations), deterministic and covering creates
    // before and after their updates.
    let mut permutations = vec![events.iter().rev().cloned().collect::<Vec<_>>()];
    for shift in 1..events.len() {
        let mut rotated = events.clone();
        rotated.rotate_left(shift);
        permutations.push(rotated);
    }
    for permutation in permutations {
        let parsed = run(permutation);
        assert_eq!(records(&parsed), expected);
        assert_eq!(parsed.scores, reference.scores);
        assert_eq!(parsed.successes.len(), 9);
    }
    let trace = &reference.traces[0];
    assert_eq!(trace.name.as_deref(), Some("two"));
    assert_eq!(trace.tags, Some(vec!["a".to_owned(), "x".to_owned()]), "tags merge as a sorted set");
    assert_eq!(trace.metadata["k"], "2");
    assert_eq!(trace.timestamp, Some(ms("2024-05-01T12:00:00Z")), "a trace keeps its first timestamp");
    let generation = reference.observations.iter().find(|o| o.id == "g").unwrap();
    assert_eq!(generation.output.as_deref(), Some("b"));
    assert_eq!(generation.provided_usage_details.get("input"), Some(&1));
    assert_eq!(generation.provided_usage_details.get("output"), Some(&2));
}

#[test]
fn equal_timestamps_keep_the_order_sent() {
    // JS SDKs stamp events in milliseconds; two updates in the same millisecond apply in order.
    let parsed = run(vec![
        at("c", "generation-create", T0, json!({"id": "g", "traceId": "t"})),
        at("u1", "generation-update", T0, json!({"id": "g", "output": "first"})),
        at("u2", "generation-update", T0, json!({"id": "g", "output": "second"})),
    ]);
    assert_eq!(parsed.observations[0].output.as_deref(), Some("second"));
}

#[test]
fn a_created_observation_without_trace_gets_a_wrapper_trace() {
    let parsed = run(vec![
        at(
            "c",
            "span-create",
            T0,
            json!({"id": "lonely", "startTime": "2024-05-01T11:00:00Z", "environment": "prod"}),
        ),
        at("u", "span-update", T0, json!({"id": "lonely", "endTime": "2024-05-01T11:00:01Z"})),
    ]);
    let span = &parsed.observations[0];
    assert_eq!(span.trace_id.as_deref(), Some("lonely"), "the observation is its own trace");
    assert_eq!(parsed.traces.len(), 1);
    let wrapper = &parsed.traces[0];
    assert_eq!(wrapper.id, "lonely");
    assert_eq!(wrapper.timestamp, Some(ms("2024-05-01T11:00:00Z")));
    assert_eq!(wrapper.environment.as_deref(), Some("prod"));
    assert_eq!(wrapper.event_ts, RECEIVED);
    assert_eq!((wrapper.name.as_ref(), wrapper.tags.as_ref()), (None, None));
}

#[test]
fn an_update_alone_gets_no_wrapper() {
    // It may belong to an observation stored earlier with a trace: a wrapper would move it.
    let parsed = run(vec![event("u", "generation-update", json!({"id": "g", "output": "x"}))]);
    let generation = &parsed.observations[0];
    assert_eq!(generation.trace_id, None);
    assert_eq!(generation.start_time, None, "an update without startTime does not move the start");
    assert_eq!(generation.observation_type, Some(ObservationType::Generation), "the update names its type");
    assert!(parsed.traces.is_empty());
}

#[test]
fn updates_do_not_change_a_created_type() {
    let parsed = run(vec![
        event("c", "tool-create", json!({"id": "o", "traceId": "t"})),
        event("u", "span-update", json!({"id": "o", "output": "x"})),
    ]);
    assert_eq!(parsed.observations[0].observation_type, Some(ObservationType::Tool));
}

#[test]
fn a_trace_in_the_batch_is_not_replaced_by_a_wrapper() {
    let parsed = run(vec![
        event("t", "trace-create", json!({"id": "x", "name": "real"})),
        event("s", "span-create", json!({"id": "x"})),
    ]);
    assert_eq!(parsed.traces.len(), 1);
    assert_eq!(parsed.traces[0].name.as_deref(), Some("real"));
}

#[test]
fn an_end_before_the_start_is_clamped() {
    let parsed = run(vec![event(
        "c",
        "span-create",
        json!({
            "id": "s", "traceId": "t", "startTime": "2024-05-01T12:00:05Z", "endTime": "2024-05-01T12:00:00Z"
        }),
    )]);
    assert_eq!(parsed.observations[0].end_time, Some(ms("2024-05-01T12:00:05Z")));
}

#[test]
fn later_environment_wins_but_absence_says_nothing() {
    let parsed = run(vec![
        at("1", "trace-create", "2024-05-01T12:00:00Z", json!({"id": "t", "environment": "capture-env"})),
        at("2", "trace-create", "2024-05-01T12:00:01Z", json!({"id": "t", "output": "o"})),
    ]);
    assert_eq!(parsed.traces[0].environment.as_deref(), Some("capture-env"));
    assert_eq!(parsed.traces[0].output.as_deref(), Some("o"));
}

#[test]
fn invalid_events_do_not_touch_the_records() {
    let parsed = run(vec![
        event("c", "span-create", json!({"id": "s", "traceId": "t", "name": "kept"})),
        event("bad", "span-update", json!({"id": "s", "name": "lost", "level": "nope"})),
    ]);
    assert_eq!(parsed.errors.len(), 1);
    assert_eq!(parsed.observations[0].name.as_deref(), Some("kept"));
}
