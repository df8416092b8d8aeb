//! The rows both sources yield (see `sources`) and the bodies made of them: an experiment and an
//! experiment item, each with the field groups the request asks for.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::render;
use crate::scores::v3::ScoreV3;

/// An experiment: a dataset run, from the events or from the run items.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Experiment {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub start_time: String,
    pub end_time: String,
    pub item_count: u64,
    pub dataset_id: Option<String>,
    /// `fields=metadata`: each value parsed when it is JSON (`render::metadata_value`). Always an
    /// object when read, so `null` only ever means the group was not asked for.
    #[serde(deserialize_with = "render::de_metadata", skip_serializing_if = "Value::is_null")]
    #[schema(value_type = Option<Object>)]
    pub metadata: Value,
    /// `fields=scores`: the run's newest scores.
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub scores: Option<Vec<ScoreV3>>,
    /// The cursor's time (microseconds), not shown.
    #[serde(rename = "_cursorTime", skip_serializing)]
    pub(super) cursor_time: String,
}

/// One item of an experiment as both sources yield it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ItemRow {
    pub id: String,
    pub trace_id: String,
    pub start_time: String,
    pub end_time: Option<String>,
    pub level: String,
    pub environment: String,
    pub experiment_id: String,
    pub experiment_name: String,
    pub experiment_item_id: String,
    pub experiment_dataset_id: Option<String>,
    pub experiment_item_version: Option<String>,
    #[serde(deserialize_with = "render::de_json_text")]
    pub input: Value,
    #[serde(deserialize_with = "render::de_json_text")]
    pub output: Value,
    #[serde(deserialize_with = "render::de_json_text")]
    pub expected_output: Value,
    #[serde(deserialize_with = "render::de_metadata")]
    pub metadata: Value,
    #[serde(deserialize_with = "render::de_metadata")]
    pub experiment_item_metadata: Value,
    #[serde(deserialize_with = "render::de_metadata")]
    pub experiment_metadata: Value,
    pub experiment_description: Option<String>,
    #[serde(rename = "_cursorTime")]
    pub cursor_time: String,
}

/// An experiment item: the root span of one dataset item's run, with the groups asked for.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExperimentItem {
    pub id: String,
    pub trace_id: String,
    pub start_time: String,
    pub end_time: Option<String>,
    pub level: String,
    pub environment: String,
    pub experiment_id: String,
    pub experiment_name: String,
    pub experiment_item_id: String,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<ItemDataset>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub io: Option<ItemIo>,
    /// `fields=metadata`: the span's metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Value>,
    /// `fields=itemMetadata`: the dataset item's metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub experiment_item_metadata: Option<Value>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<ItemExperiment>,
    /// `fields=scores`: the trace's newest scores.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<Vec<ScoreV3>>,
}

/// `fields=dataset`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemDataset {
    pub experiment_dataset_id: Option<String>,
    pub experiment_item_version: Option<String>,
}

/// `fields=io`: stored JSON parsed back.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemIo {
    #[schema(value_type = Object, nullable, required = false)]
    pub input: Value,
    #[schema(value_type = Object, nullable, required = false)]
    pub output: Value,
    #[schema(value_type = Object, nullable, required = false)]
    pub expected_output: Value,
}

/// `fields=experimentMetadata`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemExperiment {
    #[schema(value_type = Object, required = false)]
    pub experiment_metadata: Value,
    pub experiment_description: Option<String>,
}

impl ItemRow {
    /// The item with the groups in `groups`.
    pub(super) fn into_item(self, groups: &[&str]) -> ExperimentItem {
        let asked = |group: &str| groups.contains(&group);
        ExperimentItem {
            id: self.id,
            trace_id: self.trace_id,
            start_time: self.start_time,
            end_time: self.end_time,
            level: self.level,
            environment: self.environment,
            experiment_id: self.experiment_id,
            experiment_name: self.experiment_name,
            experiment_item_id: self.experiment_item_id,
            dataset: asked("dataset").then_some(ItemDataset {
                experiment_dataset_id: self.experiment_dataset_id,
                experiment_item_version: self.experiment_item_version,
            }),
            io: asked("io").then_some(ItemIo {
                input: self.input,
                output: self.output,
                expected_output: self.expected_output,
            }),
            metadata: asked("metadata").then_some(self.metadata),
            experiment_item_metadata: asked("itemMetadata").then_some(self.experiment_item_metadata),
            experiment: asked("experimentMetadata").then_some(ItemExperiment {
                experiment_metadata: self.experiment_metadata,
                experiment_description: self.experiment_description,
            }),
            scores: None,
        }
    }
}
