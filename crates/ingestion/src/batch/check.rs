//! Field-by-field validation of one JSON object with every problem collected (as zod reports all
//! issues at once), each naming its field path, e.g. `body.startTime: expected an ISO-8601 …`.
//!
//! "Nullish" fields (upstream `.nullish()`) are absent when missing or `null`: accessors return
//! `None` for both and only complain about a value of the wrong shape.

use std::collections::BTreeMap;
use std::fmt::Display;

use domain::event::Level;
use serde_json::{Map, Value};

use super::time;
use super::values::{self, js_length, kind, shown};

/// Upstream `idSchema`.
pub(crate) const MAX_ID_LENGTH: usize = 800;
/// Upstream `PublicEnvironmentName`.
const MAX_ENVIRONMENT_LENGTH: usize = 40;
pub const DEFAULT_ENVIRONMENT: &str = "default";

pub struct Check<'a> {
    object: &'a Map<String, Value>,
    path: String,
    issues: Vec<String>,
}

impl<'a> Check<'a> {
    pub fn new(object: &'a Map<String, Value>, path: impl Into<String>) -> Self {
        Self { object, path: path.into(), issues: Vec::new() }
    }

    /// The path of a field of this object, e.g. `body.usage`.
    pub fn path_of(&self, key: &str) -> String {
        if self.path.is_empty() { key.to_owned() } else { format!("{}.{key}", self.path) }
    }

    pub fn issue(&mut self, key: &str, problem: impl Display) {
        let path = self.path_of(key);
        self.issues.push(format!("{path}: {problem}"));
    }

    /// Takes over the problems found by a check of a nested object.
    pub fn absorb(&mut self, nested: Check<'_>) {
        self.issues.extend(nested.issues);
    }

    /// All problems, one sentence each, for the `error` of a 400 result.
    pub fn finish(self) -> Result<(), String> {
        if self.issues.is_empty() { Ok(()) } else { Err(self.issues.join("; ")) }
    }

    /// The value of a nullish field: `None` when missing or `null`.
    pub fn value(&self, key: &str) -> Option<&'a Value> {
        self.object.get(key).filter(|v| !v.is_null())
    }

    /// Whether the key is present at all, even as `null` (JavaScript's `key in object`).
    pub fn has_key(&self, key: &str) -> bool {
        self.object.contains_key(key)
    }

    fn wrong(&mut self, key: &str, expected: &str, value: &Value) {
        self.issue(key, format!("expected {expected}, got {}", kind(value)));
    }

    pub fn string(&mut self, key: &str) -> Option<String> {
        match self.value(key)? {
            Value::String(text) => Some(text.clone()),
            other => {
                self.wrong(key, "a string", other);
                None
            }
        }
    }

    pub fn string_max(&mut self, key: &str, max: usize) -> Option<String> {
        let text = self.string(key)?;
        if js_length(&text) > max {
            self.issue(key, format!("must be at most {max} characters long"));
            return None;
        }
        Some(text)
    }

    /// An entity id (upstream `idSchema`): 1–800 characters without a carriage return.
    pub fn id(&mut self, key: &str) -> Option<String> {
        let id = self.string(key)?;
        let problem = if id.is_empty() {
            Some("must not be empty".to_owned())
        } else if js_length(&id) > MAX_ID_LENGTH {
            Some(format!("must be at most {MAX_ID_LENGTH} characters long"))
        } else if id.contains('\r') {
            Some("must not contain carriage return characters".to_owned())
        } else {
            None
        };
        match problem {
            Some(problem) => {
                self.issue(key, problem);
                None
            }
            None => Some(id),
        }
    }

    /// The entity id an event must carry to be stored. Upstream accepts such an event with 201 and
    /// then drops it; refusing it tells the client its data was not kept.
    pub fn required_id(&mut self, key: &str) -> Option<String> {
        if self.value(key).is_none() {
            self.issue(key, "required: an event without an entity id cannot be stored");
            return None;
        }
        self.id(key)
    }

    /// Microseconds since the epoch.
    pub fn datetime(&mut self, key: &str) -> Option<i64> {
        let value = self.value(key)?;
        let parsed = value.as_str().and_then(time::parse_micros);
        if parsed.is_none() {
            self.issue(
                key,
                format!(
                    "expected an ISO-8601 datetime with a UTC offset such as 2024-05-01T12:00:00.000Z, got {}",
                    shown(value)
                ),
            );
        }
        parsed
    }

    pub fn boolean(&mut self, key: &str) -> Option<bool> {
        match self.value(key)? {
            Value::Bool(flag) => Some(*flag),
            other => {
                self.wrong(key, "a boolean", other);
                None
            }
        }
    }

    pub fn integer(&mut self, key: &str) -> Option<i64> {
        let value = self.value(key)?;
        let parsed = values::integer(value);
        if parsed.is_none() {
            self.issue(key, format!("expected an integer, got {}", shown(value)));
        }
        parsed
    }

    pub fn number(&mut self, key: &str) -> Option<f64> {
        match self.value(key)? {
            Value::Number(number) => number.as_f64(),
            other => {
                self.wrong(key, "a number", other);
                None
            }
        }
    }

    pub fn strings(&mut self, key: &str) -> Option<Vec<String>> {
        let value = self.value(key)?;
        let Value::Array(items) = value else {
            self.wrong(key, "an array of strings", value);
            return None;
        };
        let mut strings = Vec::with_capacity(items.len());
        for (position, item) in items.iter().enumerate() {
            match item {
                Value::String(text) => strings.push(text.clone()),
                other => self.wrong(&format!("{key}.{position}"), "a string", other),
            }
        }
        (strings.len() == items.len()).then_some(strings)
    }

    /// One of `allowed`, compared exactly (upstream enums are case-sensitive).
    pub fn one_of(&mut self, key: &str, allowed: &[&'static str]) -> Option<&'static str> {
        let value = self.value(key)?;
        let found = value.as_str().and_then(|text| allowed.iter().find(|a| **a == text).copied());
        if found.is_none() {
            self.issue(key, format!("expected one of {}, got {}", allowed.join(", "), shown(value)));
        }
        found
    }

    pub fn level(&mut self, key: &str) -> Option<Level> {
        self.one_of(key, &["DEBUG", "DEFAULT", "WARNING", "ERROR"]).and_then(Level::parse)
    }

    /// The environment (upstream `PublicEnvironmentName`): lowercased, at most 40 characters of
    /// `[a-z0-9-_]`, not starting with `langfuse` (reserved for Langfuse's own data). `None` when
    /// not sent: the caller decides whether that means `default` or "not said".
    pub fn environment(&mut self, key: &str) -> Option<String> {
        let environment = self.string(key)?.to_lowercase();
        let problem = if js_length(&environment) > MAX_ENVIRONMENT_LENGTH {
            Some(format!("must be at most {MAX_ENVIRONMENT_LENGTH} characters long"))
        } else if environment.is_empty()
            || !environment
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        {
            Some("only lowercase letters, digits, hyphens and underscores are allowed".to_owned())
        } else if environment.starts_with("langfuse") {
            Some("must not start with 'langfuse' (reserved)".to_owned())
        } else {
            None
        };
        match problem {
            Some(problem) => {
                self.issue(key, format!("{problem}, got {environment:?}"));
                None
            }
            None => Some(environment),
        }
    }

    /// Any JSON as stored text (`input`, `output`).
    pub fn json_text(&self, key: &str) -> Option<String> {
        self.value(key).map(values::json_text)
    }

    /// Any JSON as a flat metadata map; empty when absent.
    pub fn metadata(&self, key: &str) -> BTreeMap<String, String> {
        self.value(key).map(values::metadata_map).unwrap_or_default()
    }

    /// A nested object, for fields validated by their own rules (usage, modelParameters).
    pub fn nested(&mut self, key: &str) -> Option<&'a Map<String, Value>> {
        match self.value(key)? {
            Value::Object(object) => Some(object),
            other => {
                self.wrong(key, "an object", other);
                None
            }
        }
    }
}
