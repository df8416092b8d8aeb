//! One judge call's pieces: the prompt with its variables filled from the observation, the JSON
//! schema the judge must answer in (`score` and `reasoning`, shaped by the output definition), the
//! reply read back into score values, and the payloads that store the scores and trace the call —
//! both through the ingestion service, like any client's.

use serde_json::{Value, json};

use crate::definition::{self, JudgeDefinition, OutputDefinition, VariableMapping};
use crate::engine::source::Observation;
use crate::jsonpath::JsonPath;

/// The environment judge calls are traced in, as Langfuse names it.
pub const JUDGE_ENVIRONMENT: &str = "langfuse-llm-as-a-judge";

/// The prompt's messages with every mapped variable filled. A variable without a mapping takes the
/// source of its own name when there is one (`{{input}}` → input), else stays empty.
pub fn messages(
    def: &JudgeDefinition,
    mapping: &[VariableMapping],
    observation: &Observation,
) -> Vec<llm::ChatMessage> {
    let value_of = |variable: &str| -> Option<String> {
        let mapped = mapping.iter().find(|m| m.variable == variable);
        let source = mapped
            .and_then(|m| m.source.clone())
            .or_else(|| definition::SOURCES.contains(&variable).then(|| variable.to_owned()));
        let Some(source) = source else { return Some(String::new()) };
        let mut value = observation.source(&source);
        if let Some(path) = mapped.and_then(|m| m.json_path.as_deref()) {
            value = JsonPath::parse(path).ok().and_then(|p| p.select(&value)).unwrap_or(Value::Null);
        }
        Some(match value {
            Value::Null => String::new(),
            Value::String(text) => text,
            other => other.to_string(),
        })
    };
    def.prompt
        .iter()
        .map(|message| {
            let content = definition::render(&message.content, &value_of);
            match message.role.as_str() {
                "system" => llm::ChatMessage::system(content),
                "assistant" => llm::ChatMessage::assistant(content),
                _ => llm::ChatMessage::user(content),
            }
        })
        .collect()
}

/// The structured output the judge is asked for.
pub fn output_schema(output: &OutputDefinition) -> llm::StructuredOutput {
    let (reasoning, value) = output.instructions();
    let reasoning = reasoning.unwrap_or("One sentence of reasoning for the score");
    let score = match output {
        OutputDefinition::Numeric { min_value, max_value, .. } => {
            let mut description = value.unwrap_or("The score").to_owned();
            if let (Some(min), Some(max)) = (min_value, max_value) {
                description.push_str(&format!(" (from {min} to {max})"));
            }
            json!({"type": "number", "description": description})
        }
        OutputDefinition::Boolean { .. } => {
            json!({"type": "boolean", "description": value.unwrap_or("The verdict")})
        }
        OutputDefinition::Categorical { categories, should_allow_multiple_matches, .. } => {
            let one = json!({"type": "string", "enum": categories});
            if *should_allow_multiple_matches {
                json!({"type": "array", "items": one, "minItems": 1, "description": value.unwrap_or("The matching categories")})
            } else {
                json!({"type": "string", "enum": categories, "description": value.unwrap_or("The category")})
            }
        }
    };
    llm::StructuredOutput {
        name: "score".to_owned(),
        schema: json!({
            "type": "object",
            "properties": {"reasoning": {"type": "string", "description": reasoning}, "score": score},
            "required": ["reasoning", "score"],
            "additionalProperties": false
        }),
    }
}

/// One score value as the ingestion API takes it.
#[derive(Debug, Clone, PartialEq)]
pub enum ScoreValue {
    Number(f64),
    Boolean(bool),
    Category(String),
}

/// The judge's reply as score values and reasoning, or why it cannot be used.
pub fn read_reply(output: &OutputDefinition, reply: &Value) -> Result<(Vec<ScoreValue>, String), String> {
    let reasoning = reply.get("reasoning").and_then(Value::as_str).unwrap_or_default().to_owned();
    let score = reply.get("score").ok_or("the judge's reply has no score")?;
    let values = match output {
        OutputDefinition::Numeric { min_value, max_value, .. } => {
            let n = score.as_f64().ok_or_else(|| format!("the judge's score {score} is not a number"))?;
            if min_value.is_some_and(|min| n < min) || max_value.is_some_and(|max| n > max) {
                return Err(format!("the judge's score {n} is outside the output definition's range"));
            }
            vec![ScoreValue::Number(n)]
        }
        OutputDefinition::Boolean { .. } => {
            let b = score.as_bool().ok_or_else(|| format!("the judge's score {score} is not a boolean"))?;
            vec![ScoreValue::Boolean(b)]
        }
        OutputDefinition::Categorical { categories, should_allow_multiple_matches, .. } => {
            let picked: Vec<&str> = match score {
                Value::String(s) => vec![s.as_str()],
                Value::Array(items) if *should_allow_multiple_matches => {
                    items.iter().filter_map(Value::as_str).collect()
                }
                _ => return Err(format!("the judge's score {score} is not a category")),
            };
            if picked.is_empty() {
                return Err("the judge picked no category".to_owned());
            }
            if let Some(unknown) = picked.iter().find(|p| !categories.iter().any(|c| c == *p)) {
                return Err(format!(
                    "the judge's category {unknown:?} is not one of the output definition's"
                ));
            }
            picked.into_iter().map(|p| ScoreValue::Category(p.to_owned())).collect()
        }
    };
    Ok((values, reasoning))
}

/// What one execution scores, and where.
pub struct ScoreTarget<'a> {
    pub execution_id: &'a str,
    pub rule_id: &'a str,
    pub evaluator_id: &'a str,
    pub name: &'a str,
    pub trace_id: &'a str,
    /// `None` for a trace-level score.
    pub observation_id: Option<&'a str>,
    pub environment: &'a str,
    pub judge_trace_id: &'a str,
}

/// The id of the `i`th score of an execution: stable, so a retried write replaces, never adds.
pub fn score_id(execution_id: &str, i: usize) -> String {
    if i == 0 { execution_id.to_owned() } else { format!("{execution_id}-{i}") }
}

/// A legacy ingestion batch of `score-create` events, one per value, with source `EVAL`.
pub fn score_batch(target: &ScoreTarget<'_>, values: &[ScoreValue], reasoning: &str) -> Value {
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let events: Vec<Value> = values
        .iter()
        .enumerate()
        .map(|(i, value)| {
            let (value, data_type) = match value {
                ScoreValue::Number(n) => (json!(n), "NUMERIC"),
                ScoreValue::Boolean(b) => (json!(if *b { 1 } else { 0 }), "BOOLEAN"),
                ScoreValue::Category(c) => (json!(c), "CATEGORICAL"),
            };
            json!({
                "id": format!("{}-event-{i}", target.execution_id),
                "type": "score-create",
                "timestamp": now,
                "body": {
                    "id": score_id(target.execution_id, i),
                    "traceId": target.trace_id,
                    "observationId": target.observation_id,
                    "name": target.name,
                    "value": value,
                    "dataType": data_type,
                    "comment": reasoning,
                    "source": "EVAL",
                    "environment": target.environment,
                    "executionTraceId": target.judge_trace_id,
                    "metadata": {
                        "evaluation_rule_id": target.rule_id,
                        "evaluator_id": target.evaluator_id,
                        "evaluation_execution_id": target.execution_id,
                    },
                },
            })
        })
        .collect();
    json!({"batch": events})
}

fn attribute(key: &str, value: impl Into<String>) -> Value {
    json!({"key": key, "value": {"stringValue": value.into()}})
}

/// An OTLP/JSON export with one generation: the judge call, in [`JUDGE_ENVIRONMENT`], linked to the
/// rule, evaluator and execution by its metadata (which fills `events_full.evaluator_id` and
/// `evaluation_rule_id`).
pub struct JudgeCall<'a> {
    pub target: &'a ScoreTarget<'a>,
    pub model: &'a str,
    pub messages: &'a [llm::ChatMessage],
    pub reply: &'a str,
    pub usage: Option<&'a llm::Usage>,
    pub started: chrono::DateTime<chrono::Utc>,
    pub ended: chrono::DateTime<chrono::Utc>,
    pub error: Option<&'a str>,
}

pub fn judge_trace(call: &JudgeCall<'_>) -> Value {
    let t = call.target;
    let input: Vec<Value> = call
        .messages
        .iter()
        .map(|m| json!({"role": format!("{:?}", m.role).to_lowercase(), "content": m.content}))
        .collect();
    let mut attributes = vec![
        attribute("langfuse.observation.type", "generation"),
        attribute("langfuse.environment", JUDGE_ENVIRONMENT),
        attribute("langfuse.trace.name", format!("Execute evaluator: {}", t.name)),
        attribute("langfuse.observation.model.name", call.model),
        attribute("langfuse.observation.input", Value::Array(input).to_string()),
        attribute("langfuse.observation.output", call.reply),
        attribute("langfuse.observation.metadata.evaluation_rule_id", t.rule_id),
        attribute("langfuse.observation.metadata.evaluator_id", t.evaluator_id),
        attribute("langfuse.observation.metadata.evaluation_execution_id", t.execution_id),
        attribute("langfuse.observation.metadata.target_trace_id", t.trace_id),
        attribute(
            "langfuse.observation.metadata.target_observation_id",
            t.observation_id.unwrap_or_default(),
        ),
    ];
    if let Some(usage) = call.usage {
        attributes.push(attribute(
            "langfuse.observation.usage_details",
            json!({"input": usage.input, "output": usage.output, "total": usage.total}).to_string(),
        ));
    }
    if let Some(error) = call.error {
        attributes.push(attribute("langfuse.observation.level", "ERROR"));
        attributes.push(attribute("langfuse.observation.status_message", error));
    }
    let nanos = |at: chrono::DateTime<chrono::Utc>| at.timestamp_nanos_opt().unwrap_or_default().to_string();
    json!({"resourceSpans": [{
        "resource": {"attributes": [attribute("service.name", "loupe-evaluator"), attribute("langfuse.environment", JUDGE_ENVIRONMENT)]},
        "scopeSpans": [{
            "scope": {"name": "loupe-evaluator"},
            "spans": [{
                "traceId": t.judge_trace_id,
                "spanId": &t.judge_trace_id[..16],
                "name": format!("Execute evaluator: {}", t.name),
                "kind": 1,
                "startTimeUnixNano": nanos(call.started),
                "endTimeUnixNano": nanos(call.ended),
                "attributes": attributes,
            }],
        }],
    }]})
}

/// A 32-hex-digit trace id for an execution's judge call, stable across its retries.
pub fn judge_trace_id(execution_id: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("loupe-judge:{execution_id}").as_bytes());
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_checked_against_the_output_definition() {
        let numeric = OutputDefinition::Numeric {
            min_value: Some(0.0),
            max_value: Some(1.0),
            score_reasoning_instructions: None,
            score_value_instructions: None,
        };
        assert_eq!(
            read_reply(&numeric, &json!({"score": 0.5, "reasoning": "ok"})).unwrap(),
            (vec![ScoreValue::Number(0.5)], "ok".to_owned())
        );
        assert!(read_reply(&numeric, &json!({"score": 2, "reasoning": ""})).is_err());
        let categorical = OutputDefinition::Categorical {
            categories: vec!["a".into(), "b".into()],
            should_allow_multiple_matches: true,
            score_reasoning_instructions: None,
            score_value_instructions: None,
        };
        assert_eq!(
            read_reply(&categorical, &json!({"score": ["a", "b"], "reasoning": ""})).unwrap().0.len(),
            2
        );
        assert!(read_reply(&categorical, &json!({"score": ["c"], "reasoning": ""})).is_err());
        assert_eq!(judge_trace_id("x").len(), 32);
    }
}
