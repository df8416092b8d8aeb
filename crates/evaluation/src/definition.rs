//! An LLM-as-a-judge evaluator's definition: its chat prompt with `{{variables}}`, model config,
//! default variable mapping and output definition — checked field by field as the API takes it,
//! stored as JSON in `evaluator_versions.definition`, and answered back in the SDK's shapes.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::error::Issues;
use crate::jsonpath::JsonPath;
use crate::path;

pub const ROLES: [&str; 3] = ["system", "user", "assistant"];
pub const SOURCES: [&str; 6] =
    ["input", "output", "metadata", "tool_calls", "expected_output", "experiment_item_metadata"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ChatMessage {
    pub role: String,
    pub content: String,
}

/// `provider` names one of the project's LLM connections (`GET /api/public/llm-connections`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ModelConfig {
    pub provider: String,
    pub model: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VariableMapping {
    pub variable: String,
    /// `input`, `output`, `metadata`, `tool_calls`, `expected_output` or `experiment_item_metadata`.
    pub source: Option<String>,
    #[serde(default)]
    pub json_path: Option<String>,
}

/// The score a judge returns, by `dataType`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "dataType", rename_all_fields = "camelCase")]
pub enum OutputDefinition {
    #[serde(rename = "NUMERIC")]
    Numeric {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_value: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_value: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        score_reasoning_instructions: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        score_value_instructions: Option<String>,
    },
    #[serde(rename = "BOOLEAN")]
    Boolean {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        score_reasoning_instructions: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        score_value_instructions: Option<String>,
    },
    #[serde(rename = "CATEGORICAL")]
    Categorical {
        categories: Vec<String>,
        should_allow_multiple_matches: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        score_reasoning_instructions: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        score_value_instructions: Option<String>,
    },
}

impl OutputDefinition {
    pub fn data_type(&self) -> &'static str {
        match self {
            Self::Numeric { .. } => "NUMERIC",
            Self::Boolean { .. } => "BOOLEAN",
            Self::Categorical { .. } => "CATEGORICAL",
        }
    }

    pub fn instructions(&self) -> (Option<&str>, Option<&str>) {
        match self {
            Self::Numeric { score_reasoning_instructions: r, score_value_instructions: v, .. }
            | Self::Boolean { score_reasoning_instructions: r, score_value_instructions: v }
            | Self::Categorical { score_reasoning_instructions: r, score_value_instructions: v, .. } => {
                (r.as_deref(), v.as_deref())
            }
        }
    }
}

/// What an LLM-as-a-judge version stores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JudgeDefinition {
    pub prompt: Vec<ChatMessage>,
    pub model_config: Option<ModelConfig>,
    pub variable_mapping: Option<Vec<VariableMapping>>,
    pub output_definition: OutputDefinition,
}

impl JudgeDefinition {
    /// The prompt's variables, each once, in order of first use.
    pub fn variables(&self) -> Vec<String> {
        prompt_variables(&self.prompt)
    }
}

/// The variables of a prompt, each once, in order of first use.
pub fn prompt_variables(prompt: &[ChatMessage]) -> Vec<String> {
    {
        let mut seen = Vec::new();
        for message in prompt {
            for name in variables_in(&message.content) {
                if !seen.contains(&name) {
                    seen.push(name);
                }
            }
        }
        seen
    }
}

/// The `{{name}}` placeholders of a text (whitespace inside the braces is ignored).
pub fn variables_in(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        let name = after[..end].trim();
        if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || "_-.".contains(c)) {
            found.push(name.to_owned());
        }
        rest = &after[end + 2..];
    }
    found
}

/// Replaces each `{{name}}` whose value is known; unknown placeholders stay as written.
pub fn render(text: &str, values: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return out;
        };
        match values(after[..end].trim()) {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[start..start + 2 + end + 2]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// The definition fields of a create or full update body, checked; `issues` gets every problem.
pub fn parse_definition(body: &Map<String, Value>, issues: &mut Issues) -> Option<JudgeDefinition> {
    let prompt = parse_prompt(body.get("prompt"), issues);
    let model_config = match body.get("modelConfig") {
        None | Some(Value::Null) => None,
        Some(Value::Object(config)) => {
            let text = |key: &str, issues: &mut Issues| match config.get(key) {
                Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
                _ => {
                    issues.add(
                        &path!["modelConfig", key],
                        "invalid_type",
                        format!("modelConfig.{key} must be a non-empty string"),
                    );
                    None
                }
            };
            let (provider, model) = (text("provider", issues), text("model", issues));
            provider.zip(model).map(|(provider, model)| ModelConfig { provider, model })
        }
        Some(_) => {
            issues.add(&path!["modelConfig"], "invalid_type", "modelConfig must be an object or null");
            None
        }
    };
    let output_definition = parse_output(body.get("outputDefinition"), issues);
    let variables = prompt.as_deref().map(prompt_variables).unwrap_or_default();
    let variable_mapping = match body.get("variableMapping") {
        None | Some(Value::Null) => None,
        Some(value) => parse_mapping(value, &variables, "variableMapping", &[], issues),
    };
    Some(JudgeDefinition {
        prompt: prompt?,
        model_config,
        variable_mapping,
        output_definition: output_definition?,
    })
}

fn parse_prompt(value: Option<&Value>, issues: &mut Issues) -> Option<Vec<ChatMessage>> {
    match value {
        Some(Value::String(text)) if !text.trim().is_empty() => {
            Some(vec![ChatMessage { role: "user".to_owned(), content: text.clone() }])
        }
        Some(Value::Array(messages)) if !messages.is_empty() => {
            let mut out = Vec::new();
            for (i, message) in messages.iter().enumerate() {
                let role = message.get("role").and_then(Value::as_str);
                let content = message.get("content").and_then(Value::as_str);
                if !role.is_some_and(|r| ROLES.contains(&r)) {
                    issues.add(
                        &path!["prompt", i, "role"],
                        "invalid_enum_value",
                        "role must be one of system, user, assistant",
                    );
                }
                if content.is_none() {
                    issues.add(&path!["prompt", i, "content"], "invalid_type", "content must be a string");
                }
                if let (Some(role), Some(content)) = (role, content) {
                    out.push(ChatMessage { role: role.to_owned(), content: content.to_owned() });
                }
            }
            (out.len() == messages.len()).then_some(out)
        }
        _ => {
            issues.add(
                &path!["prompt"],
                "invalid_type",
                "prompt must be a non-empty string or a non-empty list of chat messages",
            );
            None
        }
    }
}

fn parse_output(value: Option<&Value>, issues: &mut Issues) -> Option<OutputDefinition> {
    let Some(Value::Object(def)) = value else {
        issues.add(
            &path!["outputDefinition"],
            "invalid_type",
            "outputDefinition must be an object with a dataType",
        );
        return None;
    };
    if def.contains_key("version") {
        issues.add(
            &path!["outputDefinition", "version"],
            "unrecognized_keys",
            "outputDefinition.version is internal; do not send it",
        );
    }
    let parsed: Result<OutputDefinition, _> = serde_json::from_value(Value::Object(def.clone()));
    let parsed = match parsed {
        Ok(parsed) => parsed,
        Err(error) => {
            let message = if matches!(
                def.get("dataType").and_then(Value::as_str),
                Some("NUMERIC" | "BOOLEAN" | "CATEGORICAL")
            ) {
                format!("outputDefinition: {error}")
            } else {
                "outputDefinition.dataType must be NUMERIC, BOOLEAN or CATEGORICAL".to_owned()
            };
            issues.add(&path!["outputDefinition"], "invalid_union", message);
            return None;
        }
    };
    match &parsed {
        OutputDefinition::Numeric { min_value: Some(min), max_value: Some(max), .. } if min > max => {
            issues.add(&path!["outputDefinition", "minValue"], "custom", "minValue must not exceed maxValue");
        }
        OutputDefinition::Categorical { categories, .. } => {
            let mut unique: Vec<&str> =
                categories.iter().map(|c| c.trim()).filter(|c| !c.is_empty()).collect();
            unique.sort_unstable();
            unique.dedup();
            if unique.len() < 2 || unique.len() != categories.len() {
                issues.add(
                    &path!["outputDefinition", "categories"],
                    "custom",
                    "categories must hold at least two unique, non-empty values",
                );
            }
        }
        _ => {}
    }
    Some(parsed)
}

/// A mapping list: every prompt variable mapped exactly once, from a known source, with a valid
/// JSONPath. `at` prefixes the issue paths.
pub fn parse_mapping(
    value: &Value,
    variables: &[String],
    field: &str,
    at: &[Value],
    issues: &mut Issues,
) -> Option<Vec<VariableMapping>> {
    let base = |rest: &[Value]| -> Vec<Value> {
        at.iter().cloned().chain(std::iter::once(Value::from(field))).chain(rest.iter().cloned()).collect()
    };
    let Value::Array(items) = value else {
        issues.add(&base(&[]), "invalid_type", format!("{field} must be a list or null"));
        return None;
    };
    let before = issues.0.len();
    let mut out: Vec<VariableMapping> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let variable = item.get("variable").and_then(Value::as_str).map(str::to_owned);
        let source = item.get("source").and_then(Value::as_str).map(str::to_owned);
        let json_path = match item.get("jsonPath") {
            None | Some(Value::Null) => None,
            Some(Value::String(p)) => {
                if let Err(why) = JsonPath::parse(p) {
                    issues.add(
                        &base(&path![i, "jsonPath"]),
                        "custom",
                        format!("jsonPath {p:?} is not valid: {why}"),
                    );
                }
                Some(p.clone())
            }
            Some(_) => {
                issues.add(&base(&path![i, "jsonPath"]), "invalid_type", "jsonPath must be a string");
                None
            }
        };
        match &variable {
            Some(v) if !variables.contains(v) => issues.add(
                &base(&path![i, "variable"]),
                "custom",
                format!("{v:?} is not a variable of the prompt (variables: {})", variables.join(", ")),
            ),
            Some(v) if out.iter().any(|m| &m.variable == v) => {
                issues.add(&base(&path![i, "variable"]), "custom", format!("{v:?} is mapped more than once"))
            }
            Some(_) => {}
            None => issues.add(&base(&path![i, "variable"]), "invalid_type", "variable must be a string"),
        }
        if !source.as_deref().is_some_and(|s| SOURCES.contains(&s)) {
            issues.add(
                &base(&path![i, "source"]),
                "invalid_enum_value",
                format!("source must be one of {}", SOURCES.join(", ")),
            );
        }
        if let Some(variable) = variable {
            out.push(VariableMapping { variable, source, json_path });
        }
    }
    for v in variables {
        if !out.iter().any(|m| &m.variable == v) {
            issues.add(&base(&[]), "custom", format!("variable {v:?} of the prompt is not mapped"));
        }
    }
    (issues.0.len() == before).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(body: Value) -> Result<JudgeDefinition, Vec<String>> {
        let mut issues = Issues::default();
        let def = parse_definition(body.as_object().unwrap(), &mut issues);
        if issues.is_empty() {
            Ok(def.unwrap())
        } else {
            Err(issues.0.into_iter().map(|i| i.message).collect())
        }
    }

    #[test]
    fn a_string_prompt_is_one_user_message_and_its_variables_are_found() {
        let def = parse(json!({
            "prompt": "Judge {{ input }} against {{output}}; again {{input}}",
            "outputDefinition": {"dataType": "NUMERIC", "minValue": 0, "maxValue": 1},
            "variableMapping": [{"variable": "input", "source": "input"}, {"variable": "output", "source": "metadata", "jsonPath": "$.a"}]
        }))
        .unwrap();
        assert_eq!(def.prompt[0].role, "user");
        assert_eq!(def.variables(), ["input", "output"]);
        let rendered = render(&def.prompt[0].content, &|v| Some(v.to_uppercase()));
        assert_eq!(rendered, "Judge INPUT against OUTPUT; again INPUT");
    }

    #[test]
    fn every_problem_is_named() {
        let errors = parse(json!({
            "prompt": [{"role": "robot", "content": "{{x}}"}],
            "modelConfig": {"provider": ""},
            "outputDefinition": {"dataType": "CATEGORICAL", "categories": ["a"], "shouldAllowMultipleMatches": false},
        }))
        .unwrap_err();
        assert_eq!(errors.len(), 4, "{errors:?}");
        let errors = parse(json!({
            "prompt": "{{x}} {{y}}",
            "outputDefinition": {"dataType": "NUMERIC", "minValue": 2, "maxValue": 1},
            "variableMapping": [{"variable": "x", "source": "input"}, {"variable": "x", "source": "nope", "jsonPath": "a"}]
        }))
        .unwrap_err();
        assert!(errors.iter().any(|e| e.contains("more than once")), "{errors:?}");
        assert!(errors.iter().any(|e| e.contains("\"y\" of the prompt is not mapped")), "{errors:?}");
        assert!(errors.iter().any(|e| e.contains("minValue")), "{errors:?}");
        assert!(errors.iter().any(|e| e.contains("source must be")), "{errors:?}");
        assert!(errors.iter().any(|e| e.contains("jsonPath")), "{errors:?}");
    }

    #[test]
    fn output_definitions_answer_in_the_sdk_shape() {
        let def: OutputDefinition = serde_json::from_value(
            json!({"dataType": "CATEGORICAL", "categories": ["a", "b"], "shouldAllowMultipleMatches": true}),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_value(&def).unwrap(),
            json!({"dataType": "CATEGORICAL", "categories": ["a", "b"], "shouldAllowMultipleMatches": true})
        );
    }
}
