//! A rule's filter: the SDK's `EvaluationRuleFilter` conditions, checked when a rule is saved
//! (each column takes exactly one filter `type`, as the SDK documents) and applied by the engine to
//! each candidate observation in Rust, so live following and time-range runs match alike.

use serde_json::{Map, Value};

use crate::error::Issues;
use crate::path;

/// The columns a filter may name, with the one filter type each takes.
pub const COLUMNS: [(&str, &str); 17] = [
    ("type", "stringOptions"),
    ("name", "stringOptions"),
    ("environment", "stringOptions"),
    ("level", "stringOptions"),
    ("version", "string"),
    ("traceName", "stringOptions"),
    ("userId", "string"),
    ("sessionId", "string"),
    ("tags", "arrayOptions"),
    ("metadata", "stringObject"),
    ("isRootObservation", "boolean"),
    ("parentObservationId", "null"),
    ("experimentId", "stringOptions"),
    ("isExperimentItemRootSpan", "boolean"),
    ("calledToolNames", "arrayOptions"),
    ("toolCalls", "number"),
    ("datasetId", "stringOptions"),
];

const OBSERVATION_TYPES: [&str; 10] = [
    "SPAN",
    "EVENT",
    "GENERATION",
    "AGENT",
    "TOOL",
    "CHAIN",
    "RETRIEVER",
    "EVALUATOR",
    "EMBEDDING",
    "GUARDRAIL",
];
const LEVELS: [&str; 4] = ["DEBUG", "DEFAULT", "WARNING", "ERROR"];

fn operators(kind: &str) -> &'static [&'static str] {
    match kind {
        "string" => &["=", "contains", "does not contain", "starts with", "ends with"],
        "number" | "datetime" => &["=", ">", "<", ">=", "<="],
        "stringOptions" => &["any of", "none of"],
        "arrayOptions" => &["any of", "none of", "all of"],
        "stringObject" => {
            &["=", "contains", "does not contain", "starts with", "ends with", "is set", "is not set"]
        }
        "boolean" => &["=", "<>"],
        "null" => &["is null", "is not null"],
        _ => &[],
    }
}

/// Checks a filter list; answers it as it will be stored (verbatim, `null` placeholders filled).
pub fn parse(value: Option<&Value>, issues: &mut Issues) -> Vec<Value> {
    let items = match value {
        None => return Vec::new(),
        Some(Value::Array(items)) => items,
        Some(_) => {
            issues.add(&path!["filter"], "invalid_type", "filter must be a list of conditions");
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(condition) = item.as_object() else {
            issues.add(&path!["filter", i], "invalid_type", "a filter condition must be an object");
            continue;
        };
        if let Some(stored) = check(condition, i, issues) {
            out.push(stored);
        }
    }
    out
}

fn check(condition: &Map<String, Value>, i: usize, issues: &mut Issues) -> Option<Value> {
    let kind = condition.get("type").and_then(Value::as_str).unwrap_or_default();
    let column = condition.get("column").and_then(Value::as_str).unwrap_or_default();
    let operator = condition.get("operator").and_then(Value::as_str).unwrap_or_default();
    let Some((_, expected)) = COLUMNS.iter().find(|(c, _)| *c == column) else {
        let known: Vec<&str> = COLUMNS.iter().map(|(c, _)| *c).collect();
        issues.add(
            &path!["filter", i, "column"],
            "invalid_enum_value",
            format!("column {column:?} cannot be filtered on; use one of {}", known.join(", ")),
        );
        return None;
    };
    if kind != *expected {
        issues.add(
            &path!["filter", i, "type"],
            "custom",
            format!("column {column:?} takes filter type {expected:?}, not {kind:?}"),
        );
        return None;
    }
    if !operators(kind).contains(&operator) {
        issues.add(
            &path!["filter", i, "operator"],
            "invalid_enum_value",
            format!(
                "operator {operator:?} does not apply to {kind} filters (use one of {})",
                operators(kind).join(", ")
            ),
        );
        return None;
    }
    let mut stored = condition.clone();
    let value = condition.get("value");
    let ok = match kind {
        "string" => value.is_some_and(Value::is_string),
        "number" => value.is_some_and(Value::is_number),
        "boolean" => value.is_some_and(Value::is_boolean),
        "null" => {
            stored.insert("value".to_owned(), Value::from(""));
            true
        }
        "stringObject" => {
            let key_ok = condition.get("key").and_then(Value::as_str).is_some_and(|k| !k.is_empty());
            if !key_ok {
                issues.add(
                    &path!["filter", i, "key"],
                    "invalid_type",
                    "metadata filters need a non-empty key",
                );
                return None;
            }
            value.is_some_and(Value::is_string) || matches!(operator, "is set" | "is not set")
        }
        _ => value.and_then(Value::as_array).is_some_and(|v| !v.is_empty() && v.iter().all(Value::is_string)),
    };
    if !ok {
        issues.add(
            &path!["filter", i, "value"],
            "invalid_type",
            format!("the value of a {kind} filter has the wrong shape"),
        );
        return None;
    }
    let allowed: Option<&[&str]> = match column {
        "type" => Some(&OBSERVATION_TYPES),
        "level" => Some(&LEVELS),
        _ => None,
    };
    if let (Some(allowed), Some(values)) = (allowed, value.and_then(Value::as_array)) {
        for v in values.iter().filter_map(Value::as_str) {
            if !allowed.contains(&v) {
                issues.add(
                    &path!["filter", i, "value"],
                    "invalid_enum_value",
                    format!("{v:?} is not a {column} (use {})", allowed.join(", ")),
                );
                return None;
            }
        }
    }
    Some(Value::Object(stored))
}

/// What a filter can look at of one observation.
#[derive(Debug, Clone, Default)]
pub struct Candidate {
    pub span_id: String,
    pub trace_id: String,
    pub kind: String,
    pub name: String,
    pub environment: String,
    pub level: String,
    pub version: String,
    pub trace_name: String,
    pub user_id: String,
    pub session_id: String,
    pub tags: Vec<String>,
    pub metadata: Vec<(String, String)>,
    pub parent_span_id: String,
    pub is_app_root: bool,
    pub experiment_id: String,
    pub experiment_item_root_span_id: String,
    pub experiment_dataset_id: String,
    pub tool_call_names: Vec<String>,
    pub tool_calls: u64,
}

/// Whether every condition holds for `c` (an empty list matches everything). Conditions are the
/// stored, checked ones; one that no longer parses matches nothing.
pub fn matches(filter: &[Value], c: &Candidate) -> bool {
    filter.iter().all(|condition| holds(condition, c))
}

fn holds(condition: &Value, c: &Candidate) -> bool {
    let get = |k: &str| condition.get(k);
    let operator = get("operator").and_then(Value::as_str).unwrap_or_default();
    let strings = || -> Vec<&str> {
        get("value")
            .and_then(Value::as_array)
            .map(|v| v.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    };
    let one = |actual: &str| options(operator, &strings(), actual);
    match get("column").and_then(Value::as_str).unwrap_or_default() {
        "type" => one(&c.kind),
        "name" => one(&c.name),
        "environment" => one(&c.environment),
        "level" => one(&c.level),
        "traceName" => one(&c.trace_name),
        "experimentId" => one(&c.experiment_id),
        "datasetId" => one(&c.experiment_dataset_id),
        "version" => {
            text(operator, get("value").and_then(Value::as_str).unwrap_or_default(), Some(&c.version))
        }
        "userId" => {
            text(operator, get("value").and_then(Value::as_str).unwrap_or_default(), Some(&c.user_id))
        }
        "sessionId" => {
            text(operator, get("value").and_then(Value::as_str).unwrap_or_default(), Some(&c.session_id))
        }
        "tags" => array(operator, &strings(), &c.tags),
        "calledToolNames" => array(operator, &strings(), &c.tool_call_names),
        "metadata" => {
            let key = get("key").and_then(Value::as_str).unwrap_or_default();
            let actual = c.metadata.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
            text(operator, get("value").and_then(Value::as_str).unwrap_or_default(), actual)
        }
        "isRootObservation" => boolean(operator, get("value"), c.parent_span_id.is_empty() || c.is_app_root),
        "isExperimentItemRootSpan" => boolean(
            operator,
            get("value"),
            !c.experiment_item_root_span_id.is_empty() && c.experiment_item_root_span_id == c.span_id,
        ),
        "parentObservationId" => (operator == "is null") == c.parent_span_id.is_empty(),
        "toolCalls" => {
            let Some(want) = get("value").and_then(Value::as_f64) else { return false };
            let have = c.tool_calls as f64;
            match operator {
                "=" => have == want,
                ">" => have > want,
                "<" => have < want,
                ">=" => have >= want,
                "<=" => have <= want,
                _ => false,
            }
        }
        _ => false,
    }
}

fn options(operator: &str, values: &[&str], actual: &str) -> bool {
    let found = values.contains(&actual);
    match operator {
        "any of" => found,
        "none of" => !found,
        _ => false,
    }
}

fn array(operator: &str, values: &[&str], actual: &[String]) -> bool {
    let has = |v: &&str| actual.iter().any(|a| a == v);
    match operator {
        "any of" => values.iter().any(has),
        "none of" => !values.iter().any(has),
        "all of" => values.iter().all(has),
        _ => false,
    }
}

/// String operators; `actual` is `None` when a metadata key is absent. An empty value for
/// `contains`, `starts with` and `ends with` means "is set", as the SDK documents.
fn text(operator: &str, want: &str, actual: Option<&str>) -> bool {
    match (operator, actual) {
        ("is set", a) => a.is_some(),
        ("is not set", a) => a.is_none(),
        ("does not contain", None) => true,
        (_, None) => false,
        ("=", Some(a)) => a == want,
        ("contains", Some(a)) => a.contains(want),
        ("does not contain", Some(a)) => want.is_empty() || !a.contains(want),
        ("starts with", Some(a)) => a.starts_with(want),
        ("ends with", Some(a)) => a.ends_with(want),
        _ => false,
    }
}

fn boolean(operator: &str, value: Option<&Value>, actual: bool) -> bool {
    let Some(want) = value.and_then(Value::as_bool) else { return false };
    match operator {
        "=" => actual == want,
        "<>" => actual != want,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn candidate() -> Candidate {
        Candidate {
            span_id: "s1".into(),
            kind: "GENERATION".into(),
            name: "chat".into(),
            environment: "production".into(),
            tags: vec!["a".into(), "b".into()],
            metadata: vec![("team".into(), "search".into())],
            tool_calls: 2,
            ..Candidate::default()
        }
    }

    fn checked(filter: Value) -> Result<Vec<Value>, Vec<String>> {
        let mut issues = Issues::default();
        let out = parse(Some(&filter), &mut issues);
        if issues.is_empty() { Ok(out) } else { Err(issues.0.into_iter().map(|i| i.message).collect()) }
    }

    #[test]
    fn conditions_match_as_documented() {
        let c = candidate();
        let yes = [
            json!({"type": "stringOptions", "column": "type", "operator": "any of", "value": ["GENERATION"]}),
            json!({"type": "arrayOptions", "column": "tags", "operator": "all of", "value": ["a", "b"]}),
            json!({"type": "stringObject", "column": "metadata", "key": "team", "operator": "starts with", "value": "sea"}),
            json!({"type": "stringObject", "column": "metadata", "key": "other", "operator": "is not set", "value": ""}),
            json!({"type": "boolean", "column": "isRootObservation", "operator": "=", "value": true}),
            json!({"type": "null", "column": "parentObservationId", "operator": "is null"}),
            json!({"type": "number", "column": "toolCalls", "operator": ">=", "value": 2}),
        ];
        for condition in yes {
            let stored = checked(json!([condition])).unwrap();
            assert!(matches(&stored, &c), "{condition}");
        }
        let no = [
            json!({"type": "stringOptions", "column": "name", "operator": "none of", "value": ["chat"]}),
            json!({"type": "arrayOptions", "column": "tags", "operator": "any of", "value": ["z"]}),
            json!({"type": "string", "column": "userId", "operator": "=", "value": "u"}),
        ];
        for condition in no {
            assert!(!matches(&checked(json!([condition])).unwrap(), &c));
        }
        assert!(matches(&[], &c), "an empty filter matches everything");
    }

    #[test]
    fn wrong_types_columns_and_operators_are_refused() {
        let errors = checked(json!([
            {"type": "string", "column": "type", "operator": "=", "value": "SPAN"},
            {"type": "stringOptions", "column": "colour", "operator": "any of", "value": ["x"]},
            {"type": "arrayOptions", "column": "tags", "operator": "=", "value": ["x"]},
            {"type": "stringOptions", "column": "level", "operator": "any of", "value": ["LOUD"]},
            {"type": "stringObject", "column": "metadata", "operator": "=", "value": "x"},
        ]))
        .unwrap_err();
        assert_eq!(errors.len(), 5, "{errors:?}");
        assert!(errors[0].contains("takes filter type \"stringOptions\""), "{errors:?}");
    }
}
