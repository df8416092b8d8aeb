//! `parse_batch` (and the single-object parsers) never panic, whatever the body.

use proptest::prelude::*;

use super::support::context;
use crate::batch::{SingleKind, parse_batch, parse_scores, parse_single};

const VALID: &str = r#"{"batch":[{"id":"e1","type":"trace-create","timestamp":"2024-05-01T12:00:00.000Z","body":{"id":"t","name":"n","tags":["a"],"metadata":{"k":1},"environment":"prod"}},{"id":"e2","type":"generation-create","timestamp":"2024-05-01T12:00:01+02:00","body":{"id":"g","traceId":"t","startTime":"2024-05-01T12:00:00Z","model":"m","modelParameters":{"t":0.2},"usage":{"promptTokens":1},"usageDetails":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":9}},"costDetails":{"input":0.1},"promptName":"p","promptVersion":1}},{"id":"e3","type":"span-update","timestamp":"2024-05-01T12:00:02Z","body":{"id":"s","level":"WARNING","endTime":"2024-05-01T12:00:03Z"}},{"id":"e4","type":"score-create","timestamp":"2024-05-01T12:00:04Z","body":{"id":"sc","name":"n","value":1,"dataType":"BOOLEAN","traceId":"t"}},{"id":"e5","type":"sdk-log","timestamp":"2024-05-01T12:00:05Z","body":{"log":{"x":[1]}}},{"id":"e6","type":"observation-create","timestamp":"2024-05-01T12:00:06Z","body":{"id":"o","type":"EVENT"}}],"metadata":null}"#;

fn check(body: &[u8]) {
    let context = context();
    if let Ok(parsed) = parse_batch(body, &context) {
        // The 207 body always serialises.
        serde_json::to_string(&parsed.response()).unwrap();
    }
    let _ = parse_single(SingleKind::Generation, body, &context);
    let _ = parse_scores(body, &context);
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..512)) {
        check(&body);
    }

    #[test]
    fn json_like_text_never_panics(body in r#"[{}\[\]",:0-9a-zA-Z_\-+.TZ ]{0,256}"#) {
        check(body.as_bytes());
    }

    #[test]
    fn mutated_valid_batches_never_panic(edits in proptest::collection::vec((0usize..VALID.len(), any::<u8>()), 1..4)) {
        let mut body = VALID.as_bytes().to_vec();
        for (at, byte) in edits {
            body[at] = byte;
        }
        check(&body);
    }

    #[test]
    fn truncated_valid_batches_never_panic(cut in 0usize..VALID.len()) {
        check(&VALID.as_bytes()[..cut]);
    }

    #[test]
    fn every_event_is_accounted_for(values in proptest::collection::vec(value_strategy(), 0..8)) {
        let batch = serde_json::json!({"batch": values});
        let parsed = parse_batch(&serde_json::to_vec(&batch).unwrap(), &context()).unwrap();
        prop_assert_eq!(parsed.successes.len() + parsed.errors.len(), values.len());
    }
}

/// Events with random field values, valid and invalid, including the types of every body.
fn value_strategy() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(serde_json::Value::from),
        "[a-zA-Z0-9:.\\-]{0,12}".prop_map(serde_json::Value::from),
        Just(serde_json::Value::from("2024-05-01T12:00:00Z")),
    ];
    let field = leaf.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(serde_json::Value::from),
            proptest::collection::btree_map("[a-z_]{1,8}", inner, 0..3)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    });
    let types = prop_oneof![
        Just("trace-create"),
        Just("span-create"),
        Just("span-update"),
        Just("generation-create"),
        Just("generation-update"),
        Just("event-create"),
        Just("score-create"),
        Just("sdk-log"),
        Just("observation-create"),
        Just("tool-create"),
        Just("bogus"),
    ];
    let keys = prop_oneof![
        Just("id"),
        Just("traceId"),
        Just("name"),
        Just("startTime"),
        Just("endTime"),
        Just("usage"),
        Just("usageDetails"),
        Just("costDetails"),
        Just("metadata"),
        Just("value"),
        Just("dataType"),
        Just("environment"),
        Just("tags"),
        Just("level"),
        Just("modelParameters"),
        Just("type"),
        Just("promptName"),
        Just("promptVersion"),
        Just("sessionId"),
        Just("log"),
        Just("input"),
    ];
    (types, proptest::collection::vec((keys, field), 0..6), any::<bool>()).prop_map(|(event_type, fields, with_id)| {
        let mut body = serde_json::Map::new();
        if with_id {
            body.insert("id".to_owned(), "x".into());
        }
        for (key, value) in fields {
            body.insert(key.to_owned(), value);
        }
        serde_json::json!({"id": "e", "type": event_type, "timestamp": "2024-05-01T12:00:00Z", "body": body})
    })
}
