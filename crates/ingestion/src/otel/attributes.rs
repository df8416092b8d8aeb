//! OTLP attribute values as plain JSON values, and a key → value view over an attribute list.
//!
//! Upstream converts every OTLP `AnyValue` into a plain JavaScript value before applying its rules
//! (strings, numbers, booleans, arrays); the rules then test JavaScript truthiness. Mirroring that
//! here keeps the rule code in `mapping.rs` a straight reading of the reference.

use std::hash::BuildHasher;

use base64::Engine as _;
use foldhash::fast::RandomState;
use hashbrown::HashTable;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue};
use serde_json::{Map, Number, Value};

/// One OTLP value as JSON. Scalars and arrays map directly; a kvlist becomes an object (so it is
/// stored as JSON text); bytes become their base64 text. `None` for an empty value, which carries
/// nothing to record.
pub fn any_to_json(value: &AnyValue) -> Option<Value> {
    Some(match value.value.as_ref()? {
        Any::StringValue(s) => Value::String(s.clone()),
        Any::BoolValue(b) => Value::Bool(*b),
        Any::IntValue(i) => Value::Number(Number::from(*i)),
        // JSON has no NaN or infinity; upstream's JSON.stringify turns them into null as well.
        Any::DoubleValue(d) => Number::from_f64(*d).map_or(Value::Null, Value::Number),
        Any::ArrayValue(array) => {
            Value::Array(array.values.iter().map(|v| any_to_json(v).unwrap_or(Value::Null)).collect())
        }
        Any::KvlistValue(list) => Value::Object(key_values_to_object(&list.values)),
        Any::BytesValue(bytes) => Value::String(base64::engine::general_purpose::STANDARD.encode(bytes)),
        // Only meaningful for the profiling signal, which has the string table this indexes.
        Any::StringValueStrindex(_) => return None,
    })
}

fn key_values_to_object(values: &[KeyValue]) -> Map<String, Value> {
    values.iter().filter_map(|kv| Some((kv.key.clone(), any_to_json(kv.value.as_ref()?)?))).collect()
}

/// [`any_to_json`] for a value no longer needed: strings, keys and lists are moved, not copied.
pub fn any_into_json(value: AnyValue) -> Option<Value> {
    Some(match value.value? {
        Any::StringValue(s) => Value::String(s),
        Any::ArrayValue(array) => {
            Value::Array(array.values.into_iter().map(|v| any_into_json(v).unwrap_or(Value::Null)).collect())
        }
        Any::KvlistValue(list) => Value::Object(
            list.values.into_iter().filter_map(|kv| Some((kv.key, any_into_json(kv.value?)?))).collect(),
        ),
        other => return any_to_json(&AnyValue { value: Some(other) }),
    })
}

/// JavaScript truthiness, which upstream's `attributes[key] || …` chains rely on: `null`, `false`,
/// `0`, `""` are falsy; every array and object (even empty) is truthy.
pub fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// Upstream's `hasMeaningfulValue`: not null, not an empty string, array or object.
pub fn is_meaningful(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        Value::Bool(_) | Value::Number(_) => true,
    }
}

/// The text stored for a value: strings verbatim, anything else as JSON text.
pub fn to_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// [`to_text`] for a value no longer needed: a string is moved, not copied (inputs and outputs
/// are the largest strings of a span).
pub fn into_text(value: Value) -> String {
    match value {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

/// A value that may carry JSON as text (the SDKs serialise objects into string attributes): the
/// parsed JSON when the text parses, the value itself when it is already structured.
pub fn parse_json_text(value: &Value) -> Option<Value> {
    match value {
        Value::String(s) => serde_json::from_str(s).ok(),
        Value::Null => None,
        other => Some(other.clone()),
    }
}

/// The attributes of a span, resource, scope or span event, in arrival order. A repeated key
/// keeps its first position and its last value (as upstream's `reduce` into an object does).
#[derive(Debug, Clone, Default)]
pub struct Attributes {
    entries: Vec<(String, Value)>,
    /// Positions in `entries`, by their key's hash. Every mapping rule looks keys up here, a
    /// hundred lookups a span, so a fast hash pays (the keys come from clients, but a span's
    /// attribute count is bounded by its size); the table holds positions, not copies of the keys
    /// (copying every key into a map was a large part of the worker's allocations).
    index: HashTable<u32>,
    hasher: RandomState,
}

impl Attributes {
    /// From a borrowed attribute list, copying every key and value (span events, tests).
    pub fn from_key_values(key_values: &[KeyValue]) -> Self {
        let mut attributes = Self::with_capacity(key_values.len());
        for kv in key_values {
            if let Some(value) = kv.value.as_ref().and_then(any_to_json) {
                attributes.insert(kv.key.clone(), value);
            }
        }
        attributes
    }

    /// From an attribute list the caller no longer needs: keys and string values are moved out of
    /// the decoded request, not copied (the worker's conversion, where they are most of a span).
    pub fn from_owned(key_values: Vec<KeyValue>) -> Self {
        let mut attributes = Self::with_capacity(key_values.len());
        for kv in key_values {
            if let Some(value) = kv.value.and_then(any_into_json) {
                attributes.insert(kv.key, value);
            }
        }
        attributes
    }

    fn with_capacity(capacity: usize) -> Self {
        Self {
            entries: Vec::with_capacity(capacity),
            index: HashTable::with_capacity(capacity),
            hasher: RandomState::default(),
        }
    }

    fn insert(&mut self, key: String, value: Value) {
        let hash = self.hasher.hash_one(key.as_str());
        let entries = &self.entries;
        match self.index.find(hash, |p| entries[*p as usize].0 == key) {
            Some(&position) => self.entries[position as usize].1 = value,
            None => {
                // A span's attribute count is bounded by its size, far below u32::MAX.
                let position = self.entries.len() as u32;
                self.entries.push((key, value));
                let (entries, hasher) = (&self.entries, &self.hasher);
                self.index
                    .insert_unique(hash, position, |p| hasher.hash_one(entries[*p as usize].0.as_str()));
            }
        }
    }

    fn position(&self, key: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(key);
        self.index.find(hash, |p| self.entries[*p as usize].0 == key).map(|p| *p as usize)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub fn contains(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// The value when present and not null (upstream's `attributes[key] ?? …`).
    pub fn get(&self, key: &str) -> Option<&Value> {
        let value = &self.entries[self.position(key)?].1;
        (!value.is_null()).then_some(value)
    }

    /// The value when truthy (upstream's `attributes[key] || …`).
    pub fn truthy(&self, key: &str) -> Option<&Value> {
        self.get(key).filter(|v| is_truthy(v))
    }

    /// The value when meaningful (upstream's `hasMeaningfulValue(attributes[key])`).
    pub fn meaningful(&self, key: &str) -> Option<&Value> {
        self.get(key).filter(|v| is_meaningful(v))
    }

    /// The value as a string, if it is one.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.get(key)?.as_str()
    }

    /// The first truthy value among `keys`, as text.
    pub fn first_text(&self, keys: &[&str]) -> Option<String> {
        keys.iter().find_map(|k| self.truthy(k)).map(to_text)
    }

    /// Moves a value out (null left behind, which [`Self::get`] treats as absent): for the
    /// conversion's last steps, once no rule reads it (inputs and outputs, the largest strings).
    pub fn take(&mut self, key: &str) -> Option<Value> {
        let position = self.position(key)?;
        Some(std::mem::take(&mut self.entries[position].1)).filter(|v| !v.is_null())
    }

    /// The entries in arrival order, moved out (for a list no longer needed).
    pub fn into_entries(self) -> impl Iterator<Item = (String, Value)> {
        self.entries.into_iter()
    }

    /// Entries whose key is `prefix` followed by a dot, with that part removed from the key.
    pub fn with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a str, &'a Value)> + 'a {
        self.iter().filter_map(move |(key, value)| {
            let rest = key.strip_prefix(prefix)?.strip_prefix('.')?;
            Some((rest, value))
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use opentelemetry_proto::tonic::common::v1::{ArrayValue, KeyValueList};
    use serde_json::json;

    use super::*;

    fn kv(key: &str, value: Any) -> KeyValue {
        KeyValue { key: key.into(), value: Some(AnyValue { value: Some(value) }), ..Default::default() }
    }

    #[test]
    fn every_value_kind_converts() {
        let list = KeyValueList { values: vec![kv("a", Any::IntValue(1))] };
        let array = ArrayValue {
            values: vec![
                AnyValue { value: Some(Any::StringValue("x".into())) },
                AnyValue { value: Some(Any::BoolValue(true)) },
            ],
        };
        let attributes = Attributes::from_key_values(&[
            kv("s", Any::StringValue("text".into())),
            kv("b", Any::BoolValue(false)),
            kv("i", Any::IntValue(-7)),
            kv("d", Any::DoubleValue(0.5)),
            kv("nan", Any::DoubleValue(f64::NAN)),
            kv("arr", Any::ArrayValue(array)),
            kv("kv", Any::KvlistValue(list)),
            kv("bytes", Any::BytesValue(vec![1, 2, 3])),
            KeyValue { key: "empty".into(), value: Some(AnyValue { value: None }), ..Default::default() },
        ]);
        assert_eq!(attributes.get("s"), Some(&json!("text")));
        assert_eq!(attributes.get("b"), Some(&json!(false)));
        assert_eq!(attributes.get("i"), Some(&json!(-7)));
        assert_eq!(attributes.get("d"), Some(&json!(0.5)));
        assert_eq!(attributes.get("nan"), None);
        assert_eq!(attributes.get("arr"), Some(&json!(["x", true])));
        assert_eq!(to_text(attributes.get("kv").unwrap()), r#"{"a":1}"#);
        assert_eq!(attributes.get("bytes"), Some(&json!("AQID")));
        assert!(!attributes.contains("empty"));
    }

    #[test]
    fn truthiness_follows_javascript() {
        for (value, truthy) in [
            (json!(null), false),
            (json!(false), false),
            (json!(0), false),
            (json!(""), false),
            (json!("0"), true),
            (json!([]), true),
            (json!({}), true),
            (json!(0.1), true),
        ] {
            assert_eq!(is_truthy(&value), truthy, "{value}");
        }
        assert!(!is_meaningful(&json!([])));
    }

    /// Moving values out of the request must read exactly as copying them.
    #[test]
    fn owned_and_borrowed_lists_read_the_same() {
        let nested = KeyValueList {
            values: vec![
                kv("inner", Any::ArrayValue(ArrayValue { values: vec![AnyValue { value: None }] })),
                kv("n", Any::DoubleValue(1.5)),
            ],
        };
        let list = vec![
            kv("z", Any::StringValue("last key".into())),
            kv("k", Any::StringValue("first".into())),
            kv("kv", Any::KvlistValue(nested)),
            kv("bytes", Any::BytesValue(vec![255])),
            kv("k", Any::IntValue(2)),
            KeyValue { key: "none".into(), value: None, ..Default::default() },
            kv("a", Any::BoolValue(true)),
            kv("k", Any::StringValue("third".into())),
        ];
        let borrowed = Attributes::from_key_values(&list);
        let owned = Attributes::from_owned(list);
        let pairs = |a: &Attributes| a.iter().map(|(k, v)| (k.to_owned(), v.clone())).collect::<Vec<_>>();
        assert_eq!(pairs(&owned), pairs(&borrowed));
        assert_eq!(
            pairs(&owned),
            [
                ("z".to_owned(), json!("last key")),
                ("k".to_owned(), json!("third")),
                ("kv".to_owned(), json!({"inner": [null], "n": 1.5})),
                ("bytes".to_owned(), json!("/w==")),
                ("a".to_owned(), json!(true)),
            ]
        );
        for key in ["z", "k", "kv", "bytes", "a"] {
            assert_eq!(owned.get(key), borrowed.get(key), "{key}");
        }
        assert!(!owned.contains("none") && !owned.contains("") && !owned.contains("zz"));
    }

    #[test]
    fn a_taken_value_is_gone_and_the_others_stay() {
        let mut attributes =
            Attributes::from_owned(vec![kv("a", Any::StringValue("x".into())), kv("b", Any::IntValue(1))]);
        assert_eq!(attributes.take("a"), Some(json!("x")));
        assert_eq!(attributes.get("a"), None);
        assert_eq!((attributes.take("a"), attributes.take("zz")), (None, None));
        assert_eq!(attributes.get("b"), Some(&json!(1)));
        let entries: Vec<_> = attributes.into_entries().collect();
        assert_eq!(entries, [("a".to_owned(), Value::Null), ("b".to_owned(), json!(1))]);
    }

    #[test]
    fn repeated_keys_keep_the_last_value() {
        let attributes = Attributes::from_key_values(&[
            kv("k", Any::StringValue("first".into())),
            kv("other", Any::IntValue(1)),
            kv("k", Any::StringValue("second".into())),
        ]);
        assert_eq!(attributes.str("k"), Some("second"));
        assert_eq!(attributes.iter().map(|(k, _)| k).collect::<Vec<_>>(), ["k", "other"]);
        let prefixed: Vec<_> = attributes.with_prefix("k").collect();
        assert!(prefixed.is_empty());
    }
}
