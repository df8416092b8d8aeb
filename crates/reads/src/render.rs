//! Shaping engine rows into the bodies SDKs parse strictly: JSON strings parsed back into values
//! where the API returns values, metadata maps, and keys that must be present even when null.

use serde_json::{Map, Value};

use crate::sql::JsonRow;

/// A stored JSON text as the value it encodes; text that is not JSON stays a string. Empty and
/// missing become `null`.
pub fn json_text(value: Value) -> Value {
    match value {
        Value::String(s) if s.is_empty() => Value::Null,
        Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        other => other,
    }
}

/// Parses the named keys of a row in place with [`json_text`].
pub fn parse_json_keys(row: &mut JsonRow, keys: &[&str]) {
    for key in keys {
        if let Some(value) = row.get_mut(*key) {
            *value = json_text(value.take());
        }
    }
}

/// A metadata map whose values were stored as text: objects and arrays come back as JSON,
/// everything else as the string it was.
pub fn metadata_values(value: Value) -> Value {
    let Value::Object(map) = value else { return Value::Object(Map::new()) };
    Value::Object(
        map.into_iter()
            .map(|(k, v)| {
                let parsed = match &v {
                    Value::String(s) if s.starts_with('{') || s.starts_with('[') => {
                        serde_json::from_str(s).unwrap_or(v)
                    }
                    _ => v,
                };
                (k, parsed)
            })
            .collect(),
    )
}

/// Truncates metadata values longer than `max` characters unless their key is in `expand`.
pub fn truncate_metadata(value: &mut Value, max: usize, expand: &[String]) {
    let Value::Object(map) = value else { return };
    for (key, v) in map.iter_mut() {
        if let Value::String(s) = v
            && s.chars().count() > max
            && !expand.iter().any(|e| e == key)
        {
            *s = s.chars().take(max).collect();
        }
    }
}

/// The objects of a response body: the rows of a list (`data`) or the single object of a get.
pub fn rows_mut(body: &mut Value) -> Vec<&mut Map<String, Value>> {
    if body.get("data").is_some_and(Value::is_array) {
        return objects_mut(&mut body["data"]);
    }
    body.as_object_mut().into_iter().collect()
}

/// The objects of a JSON array (none when `list` is not one).
pub fn objects_mut(list: &mut Value) -> Vec<&mut Map<String, Value>> {
    list.as_array_mut().into_iter().flatten().filter_map(Value::as_object_mut).collect()
}

/// Puts `null` under every key that is absent, so strict clients find it.
pub fn ensure_keys(row: &mut JsonRow, keys: &[&str]) {
    for key in keys {
        row.entry(*key).or_insert(Value::Null);
    }
}

/// Removes and returns a helper column the client must not see.
pub fn take(row: &mut JsonRow, key: &str) -> Value {
    row.remove(key).unwrap_or(Value::Null)
}

pub fn take_str(row: &mut JsonRow, key: &str) -> String {
    match take(row, key) {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_text_parses_what_it_can() {
        assert_eq!(json_text(json!("{\"a\":1}")), json!({"a": 1}));
        assert_eq!(json_text(json!("plain words")), json!("plain words"));
        assert_eq!(json_text(json!("")), Value::Null);
        assert_eq!(json_text(json!("\"quoted\"")), json!("quoted"));
    }

    #[test]
    fn metadata_parses_only_structures() {
        let value = metadata_values(json!({"a": "{\"x\":1}", "b": "42", "c": "[1"}));
        assert_eq!(value, json!({"a": {"x": 1}, "b": "42", "c": "[1"}));
    }

    #[test]
    fn truncation_spares_expanded_keys() {
        let long = "x".repeat(250);
        let mut value = json!({"a": long, "b": long});
        truncate_metadata(&mut value, 200, &["b".to_owned()]);
        assert_eq!(value["a"].as_str().unwrap().len(), 200);
        assert_eq!(value["b"].as_str().unwrap().len(), 250);
    }
}
