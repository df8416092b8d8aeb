//! A v2 observation as rows yield it and as it is answered. Which columns a row has depends on
//! the `fields` groups asked for, so every column of an optional group is optional in [`Row`];
//! [`ObservationV2`] carries each group as a whole, present exactly when it was asked for (a
//! group's keys are then all there, `null` or not). A group's keys are flattened into the
//! observation, so none of them is `required` in the OpenAPI document.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::render::{self, Num};
use crate::scores::v3::ScoreV3;

/// One row of the page query: `core` always, the other groups' columns when selected.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Row {
    pub id: String,
    pub trace_id: String,
    pub start_time: String,
    pub end_time: Option<String>,
    pub project_id: String,
    pub parent_observation_id: Option<String>,
    #[serde(rename = "type")]
    pub kind: String,
    /// The start time with microseconds, for the cursor (single-trace pages only).
    #[serde(rename = "_t", default)]
    pub cursor_time: Option<String>,
    // basic
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    level: Option<String>,
    #[serde(default)]
    status_message: Option<String>,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    environment: Option<String>,
    #[serde(default)]
    bookmarked: Option<bool>,
    #[serde(default)]
    public: Option<bool>,
    #[serde(default)]
    user_id: Option<String>,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    is_root_observation: Option<bool>,
    // time
    #[serde(default)]
    completion_start_time: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    updated_at: Option<String>,
    // io: the stored text, not parsed (clients parse it)
    #[serde(default)]
    input: Value,
    #[serde(default)]
    output: Value,
    // metadata
    #[serde(default)]
    metadata: Value,
    // model
    #[serde(default)]
    provided_model_name: Option<String>,
    #[serde(default)]
    internal_model_id: Option<String>,
    #[serde(default, deserialize_with = "render::de_json_text")]
    model_parameters: Value,
    // usage
    #[serde(default)]
    usage_details: BTreeMap<String, u64>,
    #[serde(default)]
    cost_details: BTreeMap<String, Num>,
    #[serde(default)]
    total_cost: Option<Num>,
    #[serde(default)]
    usage_pricing_tier_name: Option<String>,
    // prompt
    #[serde(default)]
    prompt_id: Option<String>,
    #[serde(default)]
    prompt_name: Option<String>,
    #[serde(default)]
    prompt_version: Option<u64>,
    // metrics
    #[serde(default)]
    latency: Option<Num>,
    #[serde(default)]
    time_to_first_token: Option<Num>,
    // trace_context
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    release: Option<String>,
    #[serde(default)]
    trace_name: Option<String>,
}

/// A v2 observation: `core`, the keys clients expect always (`modelId`, the prices), and the
/// groups `fields` asked for.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObservationV2 {
    pub id: String,
    pub trace_id: String,
    pub start_time: String,
    pub end_time: Option<String>,
    pub project_id: String,
    pub parent_observation_id: Option<String>,
    #[serde(rename = "type")]
    pub kind: String,
    /// Always `null` here (the JS SDK's type has it); the model is `internalModelId`.
    pub model_id: Option<String>,
    /// The prices of the model it was priced with (`internalModelId`), filled by web.
    pub input_price: Option<f64>,
    pub output_price: Option<f64>,
    pub total_price: Option<f64>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub basic: Option<ObservationBasic>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub time: Option<ObservationTimes>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub io: Option<ObservationIo>,
    /// `fields=metadata`: each value cut to 200 characters unless in `expandMetadata`, then
    /// parsed when it is JSON (`render::metadata_value`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Value>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub model: Option<ObservationModel>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub usage: Option<ObservationUsage>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<ObservationPrompt>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<ObservationMetrics>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub trace_context: Option<ObservationTraceContext>,
    /// `fields=scores`: its scores, and on a root observation its trace's (spec/v4-migration-spec.md §1.4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<Vec<ScoreV3>>,
    /// The media its input, output and metadata reference, filled by web when any is present.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Object>>)]
    pub media_references: Option<Vec<Value>>,
}

/// `fields=basic` (the default).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObservationBasic {
    #[schema(required = false)]
    pub name: String,
    #[schema(required = false)]
    pub level: String,
    pub status_message: Option<String>,
    pub version: Option<String>,
    #[schema(required = false)]
    pub environment: String,
    #[schema(required = false)]
    pub bookmarked: bool,
    #[schema(required = false)]
    pub public: bool,
    pub user_id: Option<String>,
    pub session_id: Option<String>,
    #[schema(required = false)]
    pub is_root_observation: bool,
}

/// `fields=time`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObservationTimes {
    pub completion_start_time: Option<String>,
    #[schema(required = false)]
    pub created_at: String,
    #[schema(required = false)]
    pub updated_at: String,
}

/// `fields=io`: the stored text, `null` when empty.
#[derive(Debug, Serialize, ToSchema)]
pub struct ObservationIo {
    #[schema(value_type = Option<String>, required = false)]
    pub input: Value,
    #[schema(value_type = Option<String>, required = false)]
    pub output: Value,
}

/// `fields=model`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObservationModel {
    pub provided_model_name: Option<String>,
    pub internal_model_id: Option<String>,
    /// Parsed back when JSON.
    #[schema(value_type = Object, nullable, required = false)]
    pub model_parameters: Value,
}

/// `fields=usage`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObservationUsage {
    #[schema(required = false)]
    pub usage_details: BTreeMap<String, u64>,
    #[schema(required = false)]
    pub cost_details: BTreeMap<String, Num>,
    pub total_cost: Option<Num>,
    pub usage_pricing_tier_name: Option<String>,
}

/// `fields=prompt`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObservationPrompt {
    pub prompt_id: Option<String>,
    pub prompt_name: Option<String>,
    pub prompt_version: Option<u64>,
}

/// `fields=metrics`: seconds.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObservationMetrics {
    pub latency: Option<Num>,
    pub time_to_first_token: Option<Num>,
}

/// `fields=trace_context`: the trace's name and tags, resolved across its observations
/// (`trace_context.rs`); the release is the observation's own.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObservationTraceContext {
    #[schema(required = false)]
    pub tags: Vec<String>,
    pub release: Option<String>,
    pub trace_name: Option<String>,
}

impl Row {
    /// The observation with the groups in `groups`.
    pub(super) fn into_observation(self, groups: &[&str]) -> ObservationV2 {
        let asked = |group: &str| groups.contains(&group);
        ObservationV2 {
            basic: asked("basic").then(|| ObservationBasic {
                name: self.name.unwrap_or_default(),
                level: self.level.unwrap_or_default(),
                status_message: self.status_message,
                version: self.version,
                environment: self.environment.unwrap_or_default(),
                bookmarked: self.bookmarked.unwrap_or_default(),
                public: self.public.unwrap_or_default(),
                user_id: self.user_id,
                session_id: self.session_id,
                is_root_observation: self.is_root_observation.unwrap_or_default(),
            }),
            time: asked("time").then(|| ObservationTimes {
                completion_start_time: self.completion_start_time,
                created_at: self.created_at.unwrap_or_default(),
                updated_at: self.updated_at.unwrap_or_default(),
            }),
            io: asked("io").then_some(ObservationIo { input: self.input, output: self.output }),
            metadata: asked("metadata").then_some(self.metadata),
            model: asked("model").then_some(ObservationModel {
                provided_model_name: self.provided_model_name,
                internal_model_id: self.internal_model_id,
                model_parameters: self.model_parameters,
            }),
            usage: asked("usage").then_some(ObservationUsage {
                usage_details: self.usage_details,
                cost_details: self.cost_details,
                total_cost: self.total_cost,
                usage_pricing_tier_name: self.usage_pricing_tier_name,
            }),
            prompt: asked("prompt").then_some(ObservationPrompt {
                prompt_id: self.prompt_id,
                prompt_name: self.prompt_name,
                prompt_version: self.prompt_version,
            }),
            metrics: asked("metrics").then_some(ObservationMetrics {
                latency: self.latency,
                time_to_first_token: self.time_to_first_token,
            }),
            trace_context: asked("trace_context").then_some(ObservationTraceContext {
                tags: self.tags,
                release: self.release,
                trace_name: self.trace_name,
            }),
            id: self.id,
            trace_id: self.trace_id,
            start_time: self.start_time,
            end_time: self.end_time,
            project_id: self.project_id,
            parent_observation_id: self.parent_observation_id,
            kind: self.kind,
            model_id: None,
            input_price: None,
            output_price: None,
            total_price: None,
            scores: None,
            media_references: None,
        }
    }
}

impl render::MediaFields for ObservationV2 {
    fn media_field(&self, name: &str) -> Option<&Value> {
        match name {
            "input" => self.io.as_ref().map(|io| &io.input),
            "output" => self.io.as_ref().map(|io| &io.output),
            "metadata" => self.metadata.as_ref(),
            _ => None,
        }
    }

    fn set_media_references(&mut self, references: Vec<Value>) {
        self.media_references = Some(references);
    }
}

impl crate::model_prices::Priced for ObservationV2 {
    fn model_id(&self) -> Option<&str> {
        self.model.as_ref()?.internal_model_id.as_deref()
    }

    fn set_prices(&mut self, prices: crate::model_prices::Prices) {
        (self.input_price, self.output_price, self.total_price) = (prices.input, prices.output, prices.total);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn observation(groups: &[&str]) -> Value {
        let row: Row = serde_json::from_value(json!({"id": "o", "traceId": "t", "startTime": "s",
            "endTime": null, "projectId": "p", "parentObservationId": null, "type": "SPAN", "name": "n",
            "level": "DEFAULT", "statusMessage": null, "environment": "default", "bookmarked": false,
            "public": false, "isRootObservation": true, "modelParameters": "{\"temperature\":0}"}))
        .unwrap();
        serde_json::to_value(row.into_observation(groups)).unwrap()
    }

    #[test]
    fn groups_are_present_exactly_when_asked_for() {
        let core = observation(&["core"]);
        let mut keys: Vec<&str> = core.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "endTime",
                "id",
                "inputPrice",
                "modelId",
                "outputPrice",
                "parentObservationId",
                "projectId",
                "startTime",
                "totalPrice",
                "traceId",
                "type"
            ]
        );
        let basic = observation(&["core", "basic"]);
        assert_eq!(
            (&basic["name"], &basic["statusMessage"], &basic["userId"]),
            (&json!("n"), &Value::Null, &Value::Null)
        );
        assert!(basic.get("input").is_none() && basic.get("modelParameters").is_none(), "{basic}");
        let model = observation(&["core", "model"]);
        assert_eq!(model["modelParameters"], json!({"temperature": 0}));
        assert_eq!(model["internalModelId"], Value::Null);
    }
}
