//! Shaping engine rows into the bodies SDKs parse strictly: JSON strings parsed back into values
//! where the API returns values, and metadata maps. The `de_*` functions do it while a row is
//! deserialized (`#[serde(deserialize_with = …)]`), so no row passes through a `Value` first.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// A stored JSON text as the value it encodes; text that is not JSON stays a string. Empty and
/// missing become `null`.
fn json_text(value: Value) -> Value {
    match value {
        Value::String(s) if s.is_empty() => Value::Null,
        Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        other => other,
    }
}

/// A stored JSON text column (`Nullable(String)`) as [`json_text`] reads it.
pub fn de_json_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    Ok(match Option::<String>::deserialize(deserializer)? {
        None => Value::Null,
        Some(text) => json_text(Value::String(text)),
    })
}

/// A metadata value stored as text, read as upstream reads it (`parseMetadataCHRecordToDomain`):
/// the value it encodes when it is JSON (`0` → 0, `true` → true, `{"a":1}` → an object,
/// `"x"` → x), else the string it is (`plain words`, `[1`). An integer too large for 64 bits stays
/// its text rather than lose digits as a float (upstream keeps such numbers exact too).
pub fn metadata_value(text: String) -> Value {
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Number(n)) if n.is_f64() && is_integer_literal(text.trim()) => Value::String(text),
        Ok(value) => value,
        Err(_) => Value::String(text),
    }
}

fn is_integer_literal(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A `Map(String, String)` metadata column with each value read by [`metadata_value`]; `null` is
/// `{}`.
pub fn de_metadata<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    let map = Option::<BTreeMap<String, String>>::deserialize(deserializer)?.unwrap_or_default();
    Ok(Value::Object(map.into_iter().map(|(k, v)| (k, metadata_value(v))).collect()))
}

/// A metadata object read as text (the events' `mapFromArrays`), each string value read by
/// [`metadata_value`] in place.
pub fn parse_metadata_values(value: &mut Value) {
    let Value::Object(map) = value else { return };
    for v in map.values_mut() {
        if let Value::String(text) = v {
            *v = metadata_value(std::mem::take(text));
        }
    }
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

/// The objects of a response body still built as JSON (the resources' bodies): the rows of a
/// list (`data`) or the single object of a get.
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

/// A number exactly as the engine printed it: `1` stays `1` and `0.5` stays `0.5`, as clients
/// saw them before the bodies were typed (an `f64` would print `1.0`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Num(pub serde_json::Number);

impl Num {
    /// A computed number, printed as an `f64` (`0.0`, `1.5`); non-finite becomes `0.0`.
    pub fn float(value: f64) -> Self {
        Self(serde_json::Number::from_f64(value).unwrap_or_else(|| serde_json::Number::from(0)))
    }

    pub fn int(value: i64) -> Self {
        Self(serde_json::Number::from(value))
    }

    pub fn as_f64(&self) -> Option<f64> {
        self.0.as_f64()
    }
}

impl utoipa::PartialSchema for Num {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new().schema_type(utoipa::openapi::schema::Type::Number).into()
    }
}

impl utoipa::ToSchema for Num {}

/// A body whose JSON fields may reference media (`@@@langfuseMedia:…@@@`), listed as
/// `mediaReferences` once web has looked them up (`resources::media::attach`).
pub trait MediaFields {
    /// The field of that wire name, when the body has it (a field group left out has none).
    fn media_field(&self, name: &str) -> Option<&Value>;
    fn set_media_references(&mut self, references: Vec<Value>);
}

/// Bodies still built as JSON objects.
impl MediaFields for Map<String, Value> {
    fn media_field(&self, name: &str) -> Option<&Value> {
        self.get(name)
    }

    fn set_media_references(&mut self, references: Vec<Value>) {
        self.insert("mediaReferences".to_owned(), Value::Array(references));
    }
}

/// A deleted version (`is_deleted AS _deleted`, 0 or 1) hides its row.
pub fn is_deleted(flag: &u8) -> bool {
    *flag == 1
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
    fn metadata_values_that_are_json_come_back_parsed() {
        let row: Row = serde_json::from_str(
            r#"{"metadata": {"a": "{\"x\":1}", "b": "42", "c": "[1", "d": "true", "e": "\"123\"",
                "f": "plain words", "g": "", "h": "[1,\"2\"]", "i": "null", "j": "-0.5"}}"#,
        )
        .unwrap();
        assert_eq!(
            row.metadata,
            json!({"a": {"x": 1}, "b": 42, "c": "[1", "d": true, "e": "123", "f": "plain words", "g": "",
                   "h": [1, "2"], "i": null, "j": -0.5})
        );
    }

    #[test]
    fn integers_past_64_bits_keep_their_digits() {
        assert_eq!(
            metadata_value("123456789012345678901234567890".into()),
            json!("123456789012345678901234567890")
        );
        assert_eq!(metadata_value("18446744073709551615".into()), json!(18446744073709551615u64));
        assert_eq!(metadata_value("1e3".into()), json!(1000.0));
        let mut object = json!({"n": "7", "s": "x", "already": 1});
        parse_metadata_values(&mut object);
        assert_eq!(object, json!({"n": 7, "s": "x", "already": 1}));
    }

    #[derive(Deserialize)]
    struct Row {
        #[serde(default, deserialize_with = "de_json_text")]
        input: Value,
        #[serde(default, deserialize_with = "de_metadata")]
        metadata: Value,
    }

    #[test]
    fn rows_parse_while_deserialized() {
        let row: Row = serde_json::from_str(r#"{"input": "{\"a\":1}", "metadata": {"k": "[1]"}}"#).unwrap();
        assert_eq!((row.input, row.metadata), (json!({"a": 1}), json!({"k": [1]})));
        let row: Row = serde_json::from_str(r#"{"input": null, "metadata": null}"#).unwrap();
        assert_eq!((row.input, row.metadata), (Value::Null, json!({})));
        let row: Row = serde_json::from_str(r#"{"input": ""}"#).unwrap();
        assert_eq!(row.input, Value::Null);
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
