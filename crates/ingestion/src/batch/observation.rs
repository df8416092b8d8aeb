//! Observation bodies (span, generation, event, the agent/tool/… types and the legacy
//! `observation-*` body) → [`ObservationUpdate`] (reference/public-api.md §2.3).

use domain::event::ObservationType;
use domain::v3::ObservationUpdate;
use serde_json::{Map, Value};

use super::BatchContext;
use super::check::Check;
use super::kind::{ObservationKind, Shape};
use super::time::micros_to_millis;
use super::usage;

const LEGACY_TYPES: [&str; 3] = ["GENERATION", "SPAN", "EVENT"];

#[derive(Debug, Clone, PartialEq)]
pub struct ParsedObservation {
    pub update: ObservationUpdate,
    /// The type an update implies (`span-update` → SPAN). Updates do not set the type, so a
    /// `tool-create` followed by a `span-update` stays a TOOL; the hint is used only when no create
    /// of the observation is in the batch.
    pub type_hint: ObservationType,
    /// Whether this was a create (only creates start a wrapper trace, see `merge`).
    pub is_create: bool,
}

/// `at_micros` is the envelope timestamp: a create's start time when the body has none.
pub fn parse(
    kind: ObservationKind,
    body: &Map<String, Value>,
    at_micros: i64,
    context: &BatchContext,
) -> Result<ParsedObservation, String> {
    let mut check = Check::new(body, "body");
    let id = check.required_id("id");
    let observation_type = match kind.observation_type {
        Some(t) => Some(t),
        None => legacy_type(&mut check),
    };
    let trace_id = check.id("traceId");
    // The legacy body has no environment (upstream strips it).
    let environment = if kind.shape == Shape::Legacy { None } else { check.environment("environment") };
    let name = check.string("name");
    let start_time = check.datetime("startTime");
    let end_time = if kind.shape == Shape::Event { None } else { check.datetime("endTime") };
    let level = check.level("level");
    let status_message = check.string("statusMessage");
    let parent_observation_id = check.string("parentObservationId");
    let version = check.string("version");
    let input = check.json_text("input");
    let output = check.json_text("output");
    let metadata = check.metadata("metadata");

    let generation_like = matches!(kind.shape, Shape::Generation | Shape::Legacy);
    let mut update = ObservationUpdate::default();
    if generation_like {
        update.completion_start_time = check.datetime("completionStartTime").map(micros_to_millis);
        update.provided_model_name = check.string("model");
        update.model_parameters = model_parameters(&mut check, kind.shape == Shape::Generation);
        let provided = usage::provided(&mut check);
        update.provided_usage_details = provided.usage;
        update.provided_cost_details = provided.cost;
    }
    if kind.shape == Shape::Generation {
        (update.prompt_name, update.prompt_version) = prompt(&mut check);
    }
    check.finish()?;

    let type_hint = observation_type.unwrap_or(ObservationType::Span);
    let start_time = match kind.update {
        true => start_time,
        false => Some(start_time.unwrap_or(at_micros)),
    };
    Ok(ParsedObservation {
        update: ObservationUpdate {
            id: id.unwrap_or_default(),
            trace_id,
            project_id: context.project_id.clone(),
            environment,
            observation_type: (!kind.update).then_some(type_hint),
            parent_observation_id,
            start_time: start_time.map(micros_to_millis),
            end_time: end_time.map(micros_to_millis),
            name,
            metadata,
            level,
            status_message,
            version,
            input,
            output,
            event_ts: context.received_at_millis,
            ..update
        },
        type_hint,
        is_create: !kind.update,
    })
}

fn legacy_type(check: &mut Check<'_>) -> Option<ObservationType> {
    if check.value("type").is_none() {
        check.issue("type", format!("required, one of {}", LEGACY_TYPES.join(", ")));
        return None;
    }
    check.one_of("type", &LEGACY_TYPES).and_then(ObservationType::parse)
}

/// `modelParameters`: a record of strings, numbers, booleans or null; generation bodies also
/// allow string arrays and string records. Stored as JSON text.
fn model_parameters(check: &mut Check<'_>, nested_allowed: bool) -> Option<String> {
    let object = check.nested("modelParameters")?;
    for (key, value) in object {
        let valid = match value {
            Value::Null | Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
            Value::Array(items) => nested_allowed && items.iter().all(Value::is_string),
            Value::Object(entries) => nested_allowed && entries.values().all(Value::is_string),
        };
        if !valid {
            let expected = if nested_allowed {
                "a string, number, boolean, string array or record of strings"
            } else {
                "a string, number or boolean"
            };
            check.issue(&format!("modelParameters.{key}"), format!("expected {expected}"));
        }
    }
    serde_json::to_string(object).ok()
}

/// `promptName` and `promptVersion` link a generation to a prompt; upstream requires both or
/// neither (by truthiness: an empty name or version 0 counts as absent).
fn prompt(check: &mut Check<'_>) -> (Option<String>, Option<u16>) {
    let name = check.string("promptName").filter(|n| !n.is_empty());
    let version = check.integer("promptVersion").filter(|v| *v != 0);
    match (name, version) {
        (None, None) => (None, None),
        (Some(name), Some(version)) => match u16::try_from(version) {
            Ok(version) => (Some(name), Some(version)),
            Err(_) => {
                // The column is UInt16; upstream would fail later, at insert time.
                check.issue("promptVersion", format!("must be between 1 and {}, got {version}", u16::MAX));
                (None, None)
            }
        },
        _ => {
            check.issue("promptName", "promptName and promptVersion must be set together (both or neither)");
            (None, None)
        }
    }
}
