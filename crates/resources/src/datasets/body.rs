//! The bodies the dataset endpoints answer with, as the SDKs' `Dataset`, `DatasetItem`,
//! `DatasetRun(WithItems)` and `DatasetRunItem` read them. Unset optional values are `null`, never
//! left out.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::media::MediaReference;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Dataset {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub metadata: Option<Value>,
    /// The JSON Schema every item's `input` must match, if any.
    pub input_schema: Option<Value>,
    pub expected_output_schema: Option<Value>,
    pub project_id: String,
    pub created_at: String,
    pub updated_at: String,
}

/// A v1 dataset in a list or as created: with its active items' ids and its runs' names.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DatasetWithItemIds {
    #[serde(flatten)]
    pub dataset: Dataset,
    pub items: Vec<String>,
    pub runs: Vec<String>,
}

/// The v1 `GET /datasets/{datasetName}`: the dataset with its active items in full.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DatasetWithItems {
    #[serde(flatten)]
    pub dataset: Dataset,
    pub items: Vec<DatasetItem>,
    pub runs: Vec<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DatasetItem {
    pub id: String,
    /// `ACTIVE` or `ARCHIVED`.
    pub status: String,
    pub input: Option<Value>,
    pub expected_output: Option<Value>,
    pub metadata: Option<Value>,
    pub source_trace_id: Option<String>,
    pub source_observation_id: Option<String>,
    pub dataset_id: String,
    pub dataset_name: String,
    pub created_at: String,
    /// When this version became current (the same instant as `version`).
    pub updated_at: String,
    /// When this version became current: listing with a `version` at or after it returns this
    /// version until the item changes again.
    pub version: String,
    /// The uploaded media `input`, `expectedOutput` and `metadata` reference, with download URLs.
    pub media_references: Vec<MediaReference>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DatasetRun {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub metadata: Value,
    pub dataset_id: String,
    pub dataset_name: String,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DatasetRunWithItems {
    #[serde(flatten)]
    pub run: DatasetRun,
    /// Every item of the run, newest first.
    pub dataset_run_items: Vec<DatasetRunItem>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DatasetRunItem {
    pub id: String,
    pub dataset_run_id: String,
    pub dataset_run_name: String,
    pub dataset_item_id: String,
    pub trace_id: String,
    pub observation_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn dataset() -> Dataset {
        Dataset {
            id: "d".into(),
            name: "qa".into(),
            description: None,
            metadata: None,
            input_schema: None,
            expected_output_schema: None,
            project_id: "p".into(),
            created_at: "2026-01-01T00:00:00.000Z".into(),
            updated_at: "2026-01-01T00:00:00.000Z".into(),
        }
    }

    #[test]
    fn unset_values_are_null_and_v1_lists_sit_beside_the_datasets_keys() {
        let body = serde_json::to_value(DatasetWithItemIds {
            dataset: dataset(),
            items: vec!["i".into()],
            runs: vec![],
        })
        .unwrap();
        assert_eq!(body["metadata"], json!(null));
        assert!(body.get("inputSchema").is_some() && body.get("description").is_some(), "{body}");
        assert_eq!((&body["name"], &body["items"], &body["runs"]), (&json!("qa"), &json!(["i"]), &json!([])));
    }

    #[test]
    fn an_item_without_media_lists_none() {
        let item = DatasetItem {
            id: "i".into(),
            status: "ACTIVE".into(),
            input: None,
            expected_output: Some(json!(4)),
            metadata: None,
            source_trace_id: None,
            source_observation_id: None,
            dataset_id: "d".into(),
            dataset_name: "qa".into(),
            created_at: "2026-01-01T00:00:00.000Z".into(),
            updated_at: "2026-01-01T00:00:01.000Z".into(),
            version: "2026-01-01T00:00:01.000Z".into(),
            media_references: vec![],
        };
        let body = serde_json::to_value(item).unwrap();
        assert_eq!((&body["input"], &body["expectedOutput"]), (&json!(null), &json!(4)));
        assert_eq!((&body["sourceTraceId"], &body["mediaReferences"]), (&json!(null), &json!([])));
    }
}
