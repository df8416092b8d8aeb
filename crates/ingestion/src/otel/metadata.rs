//! Metadata: the user's trace and observation metadata from span attributes, plus the
//! resource/scope/raw-attribute context upstream records, flattened into dotted paths with string
//! values (the `metadata_names`/`metadata_values` columns).

use domain::event::Metadata;
use serde_json::{Map, Value};

use super::attributes::{Attributes, into_text, parse_json_text, to_text};
use super::keys;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Domain {
    Observation,
    Trace,
}

/// The user metadata of one domain (upstream `extractMetadata`): the JSON object in
/// `langfuse.<domain>.metadata` (or `langfuse.metadata`), then every `langfuse.<domain>.metadata.<key>`,
/// `langfuse.metadata.<key>` and `ai.telemetry.metadata.<key>` attribute, later keys winning.
pub fn user_metadata(attributes: &Attributes, domain: Domain) -> Map<String, Value> {
    let prefix = match domain {
        Domain::Observation => keys::OBSERVATION_METADATA,
        Domain::Trace => keys::TRACE_METADATA,
    };
    let mut metadata = Map::new();
    let top_level = attributes.truthy(prefix).or_else(|| attributes.truthy(keys::GENERIC_METADATA));
    if let Some(Value::Object(object)) = top_level.and_then(parse_json_text) {
        metadata.extend(object);
    }
    for (key, value) in attributes.iter() {
        if keys::AI_SDK_NON_METADATA_KEYS.contains(&key) {
            continue;
        }
        for source in [prefix, keys::GENERIC_METADATA, keys::AI_SDK_METADATA] {
            if let Some(rest) = key.strip_prefix(source).and_then(|r| r.strip_prefix('.')) {
                metadata.insert(rest.to_owned(), value.clone());
            }
        }
    }
    if let Some(tools) = attributes.truthy("ai.prompt.tools") {
        metadata.insert("tools".to_owned(), tools.clone());
    }
    metadata
}

/// How leaf strings are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaves {
    /// Verbatim (resource, scope and raw attributes: exactly what the client sent).
    Raw,
    /// User metadata: a string that is itself a JSON string literal is unwrapped. The Python SDK
    /// ≥ 5 JSON-encodes every metadata value, so `tenant="acme"` arrives as `"\"acme\""`.
    /// The reads parse each stored value that is JSON (as upstream does), so a literal is only
    /// unwrapped when that reads back the same: `"\"acme\""` is stored as `acme`, but
    /// `"\"123\""` stays as sent, or the string `"123"` would read back as the number 123.
    UnwrapJsonStrings,
}

/// Adds `value` under `path`, nested objects as dotted sub-paths (upstream
/// `flattenJsonToPathArrays`). Arrays and scalars are leaves stored as JSON text; null is stored as
/// the empty string (what ClickHouse stores for upstream's null array element).
pub fn flatten_into(metadata: &mut Metadata, path: &str, value: &Value, leaves: Leaves) {
    match value {
        Value::Object(object) => {
            for (key, child) in object {
                let child_path = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                flatten_into(metadata, &child_path, child, leaves);
            }
        }
        Value::Null => {
            metadata.insert(path.to_owned(), String::new());
        }
        Value::String(text) if leaves == Leaves::UnwrapJsonStrings => {
            metadata.insert(path.to_owned(), unwrap_json_string(text).unwrap_or_else(|| text.clone()));
        }
        other => {
            metadata.insert(path.to_owned(), to_text(other));
        }
    }
}

fn unwrap_json_string(text: &str) -> Option<String> {
    let looks_quoted = text.len() >= 2 && text.starts_with('"') && text.ends_with('"');
    match serde_json::from_str::<Value>(text).ok().filter(|_| looks_quoted)? {
        Value::String(inner) if serde_json::from_str::<Value>(&inner).is_err() => Some(inner),
        _ => None,
    }
}

/// Adds every attribute under `prefix.<key>` (`resourceAttributes.service.name`, …).
pub fn flatten_attributes(metadata: &mut Metadata, prefix: &str, attributes: &Attributes) {
    for (key, value) in attributes.iter() {
        flatten_into(metadata, &format!("{prefix}.{key}"), value, Leaves::Raw);
    }
}

/// The span's own attributes minus the ones stored as input/output, for spans not produced by a
/// Langfuse SDK (their unknown attributes are kept, never a reason to drop a span). Values are
/// text, objects and arrays as JSON. Takes the attributes once every rule has read them: the
/// values are moved into the metadata, not copied.
pub fn raw_attributes(metadata: &mut Metadata, attributes: Attributes) {
    const RAW_PREFIX: &str = "attributes.";
    for (key, value) in attributes.into_entries() {
        let is_io =
            keys::IO_KEYS.contains(&key.as_str()) || keys::IO_KEY_PREFIXES.iter().any(|p| key.starts_with(p));
        if !is_io {
            // Sized once: this runs for every attribute of most spans.
            let mut name = String::with_capacity(RAW_PREFIX.len() + key.len());
            name.push_str(RAW_PREFIX);
            name.push_str(&key);
            metadata.insert(name, into_text(value));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn nested_objects_flatten_to_dotted_paths() {
        let mut metadata = Metadata::new();
        let value = json!({"a": {"b": 1, "c": [1, 2], "d": null, "e": {}}, "s": "\"x\"", "n": true});
        flatten_into(&mut metadata, "", &value, Leaves::UnwrapJsonStrings);
        let pairs: Vec<_> = metadata.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(pairs, [("a.b", "1"), ("a.c", "[1,2]"), ("a.d", ""), ("n", "true"), ("s", "x")]);
    }

    #[test]
    fn only_json_string_literals_are_unwrapped() {
        assert_eq!(unwrap_json_string("\"acme\""), Some("acme".into()));
        assert_eq!(unwrap_json_string("\"a\" and \"b\""), None);
        assert_eq!(unwrap_json_string("{\"a\":1}"), None);
        assert_eq!(unwrap_json_string("1"), None);
        // A string that is JSON text itself stays encoded: unwrapped, it would read back as JSON.
        for kept in ["\"123\"", "\"true\"", "\"null\"", "\"{\\\"a\\\":1}\""] {
            assert_eq!(unwrap_json_string(kept), None, "{kept}");
        }
        let mut metadata = Metadata::new();
        flatten_into(&mut metadata, "k", &json!("\"raw\""), Leaves::Raw);
        assert_eq!(metadata["k"], "\"raw\"");
    }
}
