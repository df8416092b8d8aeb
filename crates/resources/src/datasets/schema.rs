//! A dataset's `inputSchema` and `expectedOutputSchema`: JSON Schemas its items must match.
//!
//! A schema is compiled when the dataset is written, so an invalid one is refused there with what
//! is wrong, and again for each item write (a compile is microseconds next to the write). Remote
//! `$ref`s are never fetched: the validator is built without network or file access.

use serde_json::Value;

use crate::{Error, Result};

/// How many mismatches one refusal lists; the rest are counted.
const ERRORS_SHOWN: usize = 10;

fn compile(key: &str, schema: &Value) -> Result<jsonschema::Validator> {
    if !schema.is_object() && !schema.is_boolean() {
        return Err(Error::bad_request(format!(
            "`{key}` must be a JSON Schema object or null, got {schema}"
        )));
    }
    jsonschema::validator_for(schema)
        .map_err(|error| Error::bad_request(format!("`{key}` is not a valid JSON Schema: {error}")))
}

/// Refuses a schema that is neither null nor a valid JSON Schema.
pub(crate) fn check_schema(key: &str, schema: &Option<Value>) -> Result<()> {
    match schema {
        None | Some(Value::Null) => Ok(()),
        Some(schema) => compile(key, schema).map(|_| ()),
    }
}

/// Refuses an item field that does not match its dataset's schema, listing where and why. An
/// absent (or null) field is not checked: an item may be written before its expected output is
/// known.
pub(crate) fn check_field(
    field: &str,
    key: &str,
    schema: Option<&Value>,
    value: Option<&Value>,
) -> Result<()> {
    let (Some(schema), Some(value)) = (schema, value.filter(|v| !v.is_null())) else { return Ok(()) };
    let validator = compile(key, schema)?;
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|error| match error.instance_path().to_string() {
            path if path.is_empty() => error.to_string(),
            path => format!("at {path}: {error}"),
        })
        .collect();
    if errors.is_empty() {
        return Ok(());
    }
    let more = errors.len().saturating_sub(ERRORS_SHOWN);
    let mut message = format!(
        "`{field}` does not match the dataset's `{key}`: {}",
        errors[..errors.len() - more].join("; ")
    );
    if more > 0 {
        message.push_str(&format!(" (and {more} more)"));
    }
    Err(Error::bad_request(message))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn refused(result: Result<()>) -> String {
        match result {
            Err(Error::BadRequest(message)) => message,
            other => panic!("expected a 400, got {other:?}"),
        }
    }

    #[test]
    fn schemas_must_be_valid_json_schema() {
        assert!(check_schema("inputSchema", &None).is_ok());
        assert!(check_schema("inputSchema", &Some(Value::Null)).is_ok());
        assert!(check_schema("inputSchema", &Some(json!({"type": "object"}))).is_ok());
        let message = refused(check_schema("inputSchema", &Some(json!({"type": "no-such-type"}))));
        assert!(message.starts_with("`inputSchema` is not a valid JSON Schema"), "{message}");
        let message = refused(check_schema("inputSchema", &Some(json!("object"))));
        assert!(message.contains("must be a JSON Schema object"), "{message}");
    }

    #[test]
    fn a_field_is_checked_against_its_schema_and_every_mismatch_is_named() {
        let schema = json!({
            "type": "object",
            "properties": {"question": {"type": "string"}, "n": {"type": "integer", "minimum": 1}},
            "required": ["question"]
        });
        let ok = json!({"question": "why?", "n": 2});
        assert!(check_field("input", "inputSchema", Some(&schema), Some(&ok)).is_ok());
        assert!(check_field("input", "inputSchema", Some(&schema), None).is_ok());
        assert!(check_field("input", "inputSchema", Some(&schema), Some(&Value::Null)).is_ok());
        assert!(check_field("input", "inputSchema", None, Some(&json!(5))).is_ok());

        let bad = json!({"question": 5, "n": 0});
        let message = refused(check_field("input", "inputSchema", Some(&schema), Some(&bad)));
        assert!(message.starts_with("`input` does not match the dataset's `inputSchema`: "), "{message}");
        assert!(message.contains("at /question: 5 is not of type \"string\""), "{message}");
        assert!(message.contains("at /n: "), "{message}");
        let missing = refused(check_field("input", "inputSchema", Some(&schema), Some(&json!({}))));
        assert!(missing.contains("\"question\" is a required property"), "{missing}");
    }

    #[test]
    fn a_long_list_of_mismatches_is_cut() {
        let schema = json!({"type": "array", "items": {"type": "string"}});
        let many = json!((0..25).collect::<Vec<_>>());
        let message =
            refused(check_field("expectedOutput", "expectedOutputSchema", Some(&schema), Some(&many)));
        assert!(message.ends_with("(and 15 more)"), "{message}");
    }
}
