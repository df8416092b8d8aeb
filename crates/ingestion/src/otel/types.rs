//! The observation-type mapper (reference/public-api.md §3.5): an ordered list of rules, the first one that
//! produces a type wins, `SPAN` otherwise. A rule that recognises its attribute but not the value
//! passes to the next rule, as upstream's registry does.

use domain::event::ObservationType;

use super::attributes::Attributes;
use super::keys;

/// What the rules look at.
pub struct TypeInputs<'a> {
    pub attributes: &'a Attributes,
    pub resource: &'a Attributes,
    pub scope_name: &'a str,
    pub scope_version: &'a str,
}

type Rule = fn(&TypeInputs<'_>) -> Option<ObservationType>;

/// In priority order (the number in each rule's name is its priority in the reference table).
const RULES: &[Rule] = &[
    p0_python_sdk_3_3_generation,
    p1_langfuse_type,
    p2_openinference_kind,
    p3_gen_ai_operation,
    p4_vercel_generation_like,
    p5_vercel_span_like,
    p6_gen_ai_tool,
    p7_model_present,
];

pub fn observation_type(inputs: &TypeInputs<'_>) -> ObservationType {
    RULES.iter().find_map(|rule| rule(inputs)).unwrap_or(ObservationType::Span)
}

/// `langfuse.observation.*` keys only generations carry; Python SDK ≤ 3.3 sent them on spans
/// typed `span` (langfuse issue 8682).
const GENERATION_ONLY_KEYS: &[&str] = &[
    keys::OBSERVATION_MODEL,
    keys::OBSERVATION_COST_DETAILS,
    keys::OBSERVATION_USAGE_DETAILS,
    keys::OBSERVATION_COMPLETION_START_TIME,
    keys::OBSERVATION_MODEL_PARAMETERS,
    keys::OBSERVATION_PROMPT_NAME,
    keys::OBSERVATION_PROMPT_VERSION,
];

const OPENINFERENCE_KINDS: &[(&str, ObservationType)] = &[
    ("CHAIN", ObservationType::Chain),
    ("RETRIEVER", ObservationType::Retriever),
    ("LLM", ObservationType::Generation),
    ("EMBEDDING", ObservationType::Embedding),
    ("AGENT", ObservationType::Agent),
    ("TOOL", ObservationType::Tool),
    ("GUARDRAIL", ObservationType::Guardrail),
    ("EVALUATOR", ObservationType::Evaluator),
];

const GEN_AI_OPERATIONS: &[(&str, ObservationType)] = &[
    ("chat", ObservationType::Generation),
    ("completion", ObservationType::Generation),
    ("text_completion", ObservationType::Generation),
    ("generate_content", ObservationType::Generation),
    ("generate", ObservationType::Generation),
    ("embeddings", ObservationType::Embedding),
    ("invoke_agent", ObservationType::Agent),
    ("create_agent", ObservationType::Agent),
    ("execute_tool", ObservationType::Tool),
];

const VERCEL_OPERATIONS: &[(&str, ObservationType)] = &[
    ("ai.generateText.doGenerate", ObservationType::Generation),
    ("ai.streamText.doStream", ObservationType::Generation),
    ("ai.generateObject.doGenerate", ObservationType::Generation),
    ("ai.streamObject.doStream", ObservationType::Generation),
    ("ai.embedMany.doEmbed", ObservationType::Embedding),
    ("ai.embed.doEmbed", ObservationType::Embedding),
];

const VERCEL_MODEL_KEYS: &[&str] =
    &[keys::OBSERVATION_MODEL, "ai.model.id", "gen_ai.request.model", "gen_ai.response.model"];

const MODEL_KEYS: &[&str] =
    &[keys::OBSERVATION_MODEL, "gen_ai.request.model", "gen_ai.response.model", "llm.model_name", "model"];

fn p0_python_sdk_3_3_generation(inputs: &TypeInputs<'_>) -> Option<ObservationType> {
    let applies = inputs.attributes.str(keys::OBSERVATION_TYPE) == Some("span")
        && inputs.scope_name == keys::LANGFUSE_SDK_SCOPE_PREFIX
        && inputs.resource.str(keys::TELEMETRY_SDK_LANGUAGE) == Some("python");
    if !applies || is_after_3_3(inputs.scope_version) {
        return None;
    }
    GENERATION_ONLY_KEYS.iter().any(|k| inputs.attributes.contains(k)).then_some(ObservationType::Generation)
}

/// Whether a `major.minor…` version is above 3.3. Unparseable versions are not (upstream compares
/// NaN, which is never greater).
fn is_after_3_3(version: &str) -> bool {
    let mut parts = version.split('.').map(|p| p.trim().parse::<u64>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(major), _) if major > 3 => true,
        (Some(3), Some(minor)) => minor > 3,
        _ => false,
    }
}

fn p1_langfuse_type(inputs: &TypeInputs<'_>) -> Option<ObservationType> {
    // Case-insensitive, unlike upstream's exact lower-case table: `GENERATION` is unambiguous.
    ObservationType::parse(inputs.attributes.meaningful(keys::OBSERVATION_TYPE)?.as_str()?)
}

fn p2_openinference_kind(inputs: &TypeInputs<'_>) -> Option<ObservationType> {
    let kind = inputs.attributes.meaningful("openinference.span.kind")?.as_str()?;
    lookup(OPENINFERENCE_KINDS, kind)
}

fn p3_gen_ai_operation(inputs: &TypeInputs<'_>) -> Option<ObservationType> {
    let operation = inputs.attributes.meaningful("gen_ai.operation.name")?.as_str()?;
    lookup(GEN_AI_OPERATIONS, operation)
}

fn lookup(table: &[(&str, ObservationType)], value: &str) -> Option<ObservationType> {
    table.iter().find(|(name, _)| name.eq_ignore_ascii_case(value)).map(|(_, t)| *t)
}

/// The Vercel AI SDK names its operations in `operation.name` (possibly followed by the function
/// id) and `ai.operationId` (exact).
fn vercel_operation(attributes: &Attributes, operation: &str) -> bool {
    let name = attributes.meaningful("operation.name").and_then(|v| v.as_str());
    let id = attributes.meaningful("ai.operationId").and_then(|v| v.as_str());
    name.is_some_and(|n| n.starts_with(operation)) || id == Some(operation)
}

fn p4_vercel_generation_like(inputs: &TypeInputs<'_>) -> Option<ObservationType> {
    let has_model = VERCEL_MODEL_KEYS.iter().any(|k| inputs.attributes.meaningful(k).is_some());
    if !has_model {
        return None;
    }
    VERCEL_OPERATIONS.iter().find(|(op, _)| vercel_operation(inputs.attributes, op)).map(|(_, t)| *t)
}

fn p5_vercel_span_like(inputs: &TypeInputs<'_>) -> Option<ObservationType> {
    vercel_operation(inputs.attributes, "ai.toolCall").then_some(ObservationType::Tool)
}

fn p6_gen_ai_tool(inputs: &TypeInputs<'_>) -> Option<ObservationType> {
    let is_tool =
        ["gen_ai.tool.name", "gen_ai.tool.call.id"].iter().any(|k| inputs.attributes.meaningful(k).is_some());
    is_tool.then_some(ObservationType::Tool)
}

fn p7_model_present(inputs: &TypeInputs<'_>) -> Option<ObservationType> {
    MODEL_KEYS
        .iter()
        .any(|k| inputs.attributes.meaningful(k).is_some())
        .then_some(ObservationType::Generation)
}

#[cfg(test)]
mod tests {
    use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
    use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue};

    use super::*;

    fn attrs(pairs: &[(&str, &str)]) -> Attributes {
        let kvs: Vec<KeyValue> = pairs
            .iter()
            .map(|(k, v)| KeyValue {
                key: (*k).into(),
                value: Some(AnyValue { value: Some(Any::StringValue((*v).into())) }),
                ..Default::default()
            })
            .collect();
        Attributes::from_key_values(&kvs)
    }

    fn map(span: &[(&str, &str)], scope: (&str, &str)) -> ObservationType {
        let attributes = attrs(span);
        let resource = attrs(&[("telemetry.sdk.language", "python")]);
        observation_type(&TypeInputs {
            attributes: &attributes,
            resource: &resource,
            scope_name: scope.0,
            scope_version: scope.1,
        })
    }

    #[test]
    fn rules_apply_in_priority_order() {
        use ObservationType::*;
        let none = ("", "");
        for (span, expected) in [
            (vec![("langfuse.observation.type", "retriever"), ("gen_ai.request.model", "m")], Retriever),
            (vec![("langfuse.observation.type", "GUARDRAIL")], Guardrail),
            (vec![("langfuse.observation.type", "bogus"), ("openinference.span.kind", "LLM")], Generation),
            (vec![("openinference.span.kind", "TOOL"), ("gen_ai.operation.name", "chat")], Tool),
            (vec![("gen_ai.operation.name", "embeddings")], Embedding),
            (vec![("gen_ai.operation.name", "invoke_agent")], Agent),
            (vec![("operation.name", "ai.generateText.doGenerate fn"), ("ai.model.id", "gpt")], Generation),
            (vec![("ai.operationId", "ai.embed.doEmbed"), ("ai.model.id", "e")], Embedding),
            (vec![("ai.operationId", "ai.generateText.doGenerate")], Span),
            (vec![("operation.name", "ai.toolCall search")], Tool),
            (vec![("gen_ai.tool.call.id", "call_1")], Tool),
            (vec![("llm.model_name", "claude")], Generation),
            (vec![("http.method", "GET")], Span),
        ] {
            assert_eq!(map(&span, none), expected, "{span:?}");
        }
    }

    #[test]
    fn old_python_sdk_generations_typed_span_are_generations() {
        let span = [("langfuse.observation.type", "span"), ("langfuse.observation.model.name", "m")];
        assert_eq!(map(&span, ("langfuse-sdk", "3.3.0")), ObservationType::Generation);
        assert_eq!(map(&span, ("langfuse-sdk", "3.15.0")), ObservationType::Span);
        assert_eq!(map(&span, ("langfuse-sdk", "4.0.0")), ObservationType::Span);
        assert_eq!(
            map(&[("langfuse.observation.type", "span")], ("langfuse-sdk", "3.1.0")),
            ObservationType::Span
        );
    }
}
