//! A dataset's `inputSchema` and `expectedOutputSchema`: JSON Schemas its items must match.
//!
//! A schema is compiled when the dataset is written, so an invalid one is refused there with what
//! is wrong, and again for each item write (a compile is microseconds next to the write). Remote
//! `$ref`s are never fetched: the validator is built without network or file access. Callers run
//! compiling and checking off the async threads, within a time budget (`budget.rs`).

use serde_json::Value;

use crate::{Error, FieldError, Result};

/// The most memory one compiled `pattern` may take.
const MAX_PATTERN_BYTES: usize = 1 << 20;

/// How many mismatches one refusal lists; the rest are counted.
const ERRORS_SHOWN: usize = 10;

fn compile(key: &str, schema: &Value) -> Result<jsonschema::Validator> {
    if !schema.is_object() && !schema.is_boolean() {
        return Err(Error::bad_request(format!(
            "`{key}` must be a JSON Schema object or null, got {schema}"
        )));
    }
    // Patterns run on the `regex` engine (finite automata: linear in the input, no backtracking),
    // so no `pattern` can make an item write spin; a pattern that needs backtracking (lookaround,
    // backreferences) or compiles past `MAX_PATTERN_BYTES` is refused here, when the schema is saved.
    jsonschema::options()
        .with_pattern_options(jsonschema::PatternOptions::regex().size_limit(MAX_PATTERN_BYTES))
        .build(schema)
        .map_err(|error| Error::bad_request(format!("`{key}` is not a valid JSON Schema: {error}")))
}

/// A dataset's two schemas, compiled once for checking many items.
#[derive(Debug)]
pub(crate) struct ItemSchemas {
    input: Option<jsonschema::Validator>,
    expected_output: Option<jsonschema::Validator>,
}

impl ItemSchemas {
    /// Refuses a schema that is neither absent, null nor a valid JSON Schema.
    pub(crate) fn compile(input: Option<&Value>, expected_output: Option<&Value>) -> Result<Self> {
        let one = |key, schema: Option<&Value>| {
            schema.filter(|s| !s.is_null()).map(|s| compile(key, s)).transpose()
        };
        Ok(Self {
            input: one("inputSchema", input)?,
            expected_output: one("expectedOutputSchema", expected_output)?,
        })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.input.is_none() && self.expected_output.is_none()
    }

    /// What is wrong with an item's input and expected output, or `None` when both match. An
    /// absent (or null) field is not checked: an item may be written before its expected output
    /// is known.
    pub(crate) fn mismatch(&self, input: Option<&Value>, expected_output: Option<&Value>) -> Option<String> {
        let fields = [
            ("input", "inputSchema", &self.input, input),
            ("expectedOutput", "expectedOutputSchema", &self.expected_output, expected_output),
        ];
        let found: Vec<String> = fields
            .into_iter()
            .filter_map(|(field, key, validator, value)| {
                field_mismatch(field, key, validator.as_ref()?, value.filter(|v| !v.is_null())?)
            })
            .collect();
        (!found.is_empty()).then(|| found.join("; "))
    }

    /// Refuses an item that does not match: the message lists where and why, and `fields` says
    /// it again for programs (the UI shows each mismatch at its field).
    pub(crate) fn check(&self, input: Option<&Value>, expected_output: Option<&Value>) -> Result<()> {
        let Some(message) = self.mismatch(input, expected_output) else { return Ok(()) };
        let fields =
            [("input", &self.input, input), ("expectedOutput", &self.expected_output, expected_output)]
                .into_iter()
                .filter_map(|(field, validator, value)| {
                    Some((field, validator.as_ref()?, value.filter(|v| !v.is_null())?))
                })
                .flat_map(|(field, validator, value)| field_errors(field, validator, value))
                .collect();
        Err(Error::Mismatch { message, fields })
    }
}

/// The first `ERRORS_SHOWN` mismatches of one field, each with its JSON Pointer in the value.
fn field_errors(field: &str, validator: &jsonschema::Validator, value: &Value) -> Vec<FieldError> {
    validator
        .iter_errors(value)
        .take(ERRORS_SHOWN)
        .map(|error| FieldError {
            field: field.to_owned(),
            path: error.instance_path().to_string(),
            message: error.to_string(),
        })
        .collect()
}

fn field_mismatch(
    field: &str,
    key: &str,
    validator: &jsonschema::Validator,
    value: &Value,
) -> Option<String> {
    // Only the errors shown are rendered; the rest are counted (an array of a million wrong
    // elements is a million errors).
    let (mut errors, mut more) = (Vec::new(), 0usize);
    for error in validator.iter_errors(value) {
        if errors.len() == ERRORS_SHOWN {
            more += 1;
            continue;
        }
        errors.push(match error.instance_path().to_string() {
            path if path.is_empty() => error.to_string(),
            path => format!("at {path}: {error}"),
        });
    }
    if errors.is_empty() {
        return None;
    }
    let mut message = format!("`{field}` does not match the dataset's `{key}`: {}", errors.join("; "));
    if more > 0 {
        message.push_str(&format!(" (and {more} more)"));
    }
    Some(message)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn refused<T: std::fmt::Debug>(result: Result<T>) -> String {
        match result {
            Err(Error::BadRequest(message) | Error::Mismatch { message, .. }) => message,
            other => panic!("expected a 400, got {other:?}"),
        }
    }

    #[test]
    fn schemas_must_be_valid_json_schema() {
        assert!(ItemSchemas::compile(None, None).is_ok());
        assert!(ItemSchemas::compile(Some(&Value::Null), None).is_ok());
        assert!(ItemSchemas::compile(Some(&json!({"type": "object"})), None).is_ok());
        let message = refused(ItemSchemas::compile(Some(&json!({"type": "no-such-type"})), None));
        assert!(message.starts_with("`inputSchema` is not a valid JSON Schema"), "{message}");
        let message = refused(ItemSchemas::compile(Some(&json!("object")), None));
        assert!(message.contains("must be a JSON Schema object"), "{message}");
        let message = refused(ItemSchemas::compile(None, Some(&json!([1]))));
        assert!(message.contains("`expectedOutputSchema` must be a JSON Schema object"), "{message}");
    }

    #[test]
    fn a_field_is_checked_against_its_schema_and_every_mismatch_is_named() {
        let schema = json!({
            "type": "object",
            "properties": {"question": {"type": "string"}, "n": {"type": "integer", "minimum": 1}},
            "required": ["question"]
        });
        let schemas = ItemSchemas::compile(Some(&schema), None).unwrap();
        let ok = json!({"question": "why?", "n": 2});
        assert!(schemas.check(Some(&ok), Some(&json!(5))).is_ok(), "no output schema: any output");
        assert!(schemas.check(None, None).is_ok());
        assert!(schemas.check(Some(&Value::Null), None).is_ok());
        assert!(ItemSchemas::compile(None, Some(&Value::Null)).unwrap().is_empty());

        let bad = json!({"question": 5, "n": 0});
        let message = refused(schemas.check(Some(&bad), None));
        assert!(message.starts_with("`input` does not match the dataset's `inputSchema`: "), "{message}");
        assert!(message.contains("at /question: 5 is not of type \"string\""), "{message}");
        assert!(message.contains("at /n: "), "{message}");
        let Err(Error::Mismatch { fields, .. }) = schemas.check(Some(&bad), None) else {
            panic!("a mismatch")
        };
        let mut at: Vec<(&str, &str, &str)> =
            fields.iter().map(|f| (f.field.as_str(), f.path.as_str(), f.message.as_str())).collect();
        at.sort_unstable();
        assert_eq!(
            at,
            [
                ("input", "/n", "0 is less than the minimum of 1"),
                ("input", "/question", "5 is not of type \"string\"")
            ]
        );
        let missing = refused(schemas.check(Some(&json!({})), None));
        assert!(missing.contains("\"question\" is a required property"), "{missing}");
    }

    #[test]
    fn a_long_list_of_mismatches_is_cut() {
        let schema = json!({"type": "array", "items": {"type": "string"}});
        let many = json!((0..25).collect::<Vec<_>>());
        let schemas = ItemSchemas::compile(None, Some(&schema)).unwrap();
        let message = refused(schemas.check(None, Some(&many)));
        assert!(message.ends_with("(and 15 more)"), "{message}");
    }

    /// Patterns run on a linear-time engine: a nested quantifier checks a long hostile string in
    /// one pass, and a pattern only a backtracking engine can run (lookaround) is refused when saved.
    #[test]
    fn patterns_cannot_backtrack() {
        let schemas =
            ItemSchemas::compile(Some(&json!({"type": "string", "pattern": "^(a+)+$"})), None).unwrap();
        let hostile = Value::String(format!("{}!", "a".repeat(100_000)));
        let message = refused(schemas.check(Some(&hostile), None));
        assert!(message.contains("does not match"), "{message}");
        let message =
            refused(ItemSchemas::compile(Some(&json!({"type": "string", "pattern": "^(?=a)a$"})), None));
        assert!(message.contains("not a valid JSON Schema"), "{message}");
    }
}
