//! How JSON values from event bodies are stored in the v3 columns (upstream `IngestionService`
//! `stringify` and `convertJsonSchemaToRecord` + `convertRecordValuesToString`).

use std::collections::BTreeMap;

use serde_json::Value;

/// `input`/`output`: a string is stored as sent, anything else as its JSON text. So `"ping"` is
/// stored as `ping`, not `"ping"`, exactly as upstream does (its UI shows both the same way).
pub fn json_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Metadata as the flat `Map(String, String)` column: an object's top-level keys, string values
/// as sent and every other value (nested objects included) as JSON text. A scalar or an array is
/// kept under the key `metadata`, as upstream does.
pub fn metadata_map(value: &Value) -> BTreeMap<String, String> {
    match value {
        Value::Null => BTreeMap::new(),
        Value::Object(object) => object.iter().map(|(k, v)| (k.clone(), json_text(v))).collect(),
        Value::Array(_) => BTreeMap::from([("metadata".to_owned(), value.to_string())]),
        scalar => BTreeMap::from([("metadata".to_owned(), json_text(scalar))]),
    }
}

/// A JSON number that is an integer (`42` and `42.0` alike, as JavaScript sees them).
pub fn integer(value: &Value) -> Option<i64> {
    let Value::Number(number) = value else { return None };
    if let Some(n) = number.as_i64() {
        return Some(n);
    }
    let float = number.as_f64()?;
    // Beyond 2^53 a float no longer holds an exact integer; such counts are not believable.
    (float.fract() == 0.0 && float.abs() < 9_007_199_254_740_992.0).then_some(float as i64)
}

/// JavaScript `parseInt` on a numeric string: leading whitespace and sign, then the longest run of
/// digits (`"12abc"` → 12); `None` when there are no digits.
pub fn parse_int_prefix(text: &str) -> Option<i64> {
    let trimmed = text.trim_start();
    let (negative, rest) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, &trimmed[1..]),
        Some(b'+') => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let magnitude = digits.parse::<i64>().ok()?;
    Some(if negative { -magnitude } else { magnitude })
}

/// "a string", "an array", …: what was sent instead, for error messages.
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Length as JavaScript counts it (UTF-16 code units): upstream's length limits use that unit.
pub fn js_length(text: &str) -> usize {
    text.encode_utf16().count()
}

/// A short rendering of a rejected value for an error message.
pub fn shown(value: &Value) -> String {
    const MAX: usize = 60;
    let text = value.to_string();
    if text.chars().count() <= MAX {
        return text;
    }
    let cut: String = text.chars().take(MAX).collect();
    format!("{cut}…")
}
