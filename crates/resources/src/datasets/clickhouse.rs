//! The v3 ClickHouse table `dataset_run_items_rmt` (reference/storage.md §1.4): upstream v3 writes every run
//! item there with its run's and item's contents, and the v4 backfill (M4) reads it to give
//! experiment traces their experiment fields. Rows are versions (`ReplacingMergeTree(event_ts,
//! is_deleted)`): a deletion is a newer version with `is_deleted = 1`.

use chrono::{DateTime, Utc};
use clickhouse::Row;
use serde::Serialize;
use serde_json::Value;

use storage::clickhouse::{ClickHouse, NEWEST_BY_ID, Work};

use super::items::ItemVersion;
use super::run_item::RunItem;
use crate::Result;

const TABLE: &str = "dataset_run_items_rmt";

/// One row of `dataset_run_items_rmt`, fields in column order; `DateTime64(3)` as epoch ms.
#[derive(Debug, Clone, Row, Serialize)]
pub(crate) struct RunItemRow {
    id: String,
    project_id: String,
    dataset_run_id: String,
    dataset_item_id: String,
    dataset_id: String,
    trace_id: String,
    observation_id: Option<String>,
    error: Option<String>,
    created_at: i64,
    updated_at: i64,
    dataset_run_name: String,
    dataset_run_description: Option<String>,
    dataset_run_metadata: Vec<(String, String)>,
    dataset_run_created_at: i64,
    dataset_item_input: Option<String>,
    dataset_item_expected_output: Option<String>,
    dataset_item_metadata: Vec<(String, String)>,
    event_ts: i64,
    is_deleted: u8,
    dataset_item_version: Option<i64>,
}

impl RunItemRow {
    /// The row upstream writes for a new run item: the item's contents as of the version the run
    /// used, and the run's name, description and metadata as they are now.
    pub fn new(
        project: &str,
        run_item: &RunItem,
        item: &ItemVersion,
        run_description: Option<String>,
        run_metadata: &Value,
        run_created_at: DateTime<Utc>,
    ) -> Self {
        let json_text =
            |value: &Option<sqlx::types::Json<Value>>| value.as_ref().map(|json| json.0.to_string());
        Self {
            id: run_item.id.clone(),
            project_id: project.to_owned(),
            dataset_run_id: run_item.dataset_run_id.clone(),
            dataset_item_id: item.id.clone(),
            dataset_id: item.dataset_id.clone(),
            trace_id: run_item.trace_id.clone(),
            observation_id: run_item.observation_id.clone(),
            error: None,
            created_at: run_item.created_at.timestamp_millis(),
            updated_at: run_item.updated_at.timestamp_millis(),
            dataset_run_name: run_item.dataset_run_name.clone(),
            dataset_run_description: run_description,
            dataset_run_metadata: string_map(run_metadata),
            dataset_run_created_at: run_created_at.timestamp_millis(),
            dataset_item_input: json_text(&item.input),
            dataset_item_expected_output: json_text(&item.expected_output),
            dataset_item_metadata: item.metadata.as_ref().map(|json| string_map(&json.0)).unwrap_or_default(),
            event_ts: Utc::now().timestamp_millis(),
            is_deleted: 0,
            dataset_item_version: Some(item.valid_from.timestamp_millis()),
        }
    }
}

/// Metadata as the v3 `Map(String, String)` columns hold it: an object's top-level keys with
/// string values as sent and any other value as JSON text; a non-object under the key `metadata`.
fn string_map(value: &Value) -> Vec<(String, String)> {
    let text = |value: &Value| match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match value {
        Value::Null => Vec::new(),
        Value::Object(object) => object.iter().map(|(key, value)| (key.clone(), text(value))).collect(),
        other => vec![("metadata".to_owned(), text(other))],
    }
}

pub(crate) async fn insert_run_item(clickhouse: &ClickHouse, row: RunItemRow) -> Result<()> {
    Ok(clickhouse.insert_rows(TABLE, vec![row]).await?)
}

/// Writes a deleted version of every live row of the run: the newest version of each row, copied
/// by the engine with `is_deleted = 1` and a newer `event_ts`, so every column keeps its value.
///
/// The live filter sits in its own subquery: in the outer one, ClickHouse would resolve
/// `is_deleted` in `WHERE` to the `1 AS is_deleted` of the select list and copy nothing.
pub(crate) async fn mark_run_deleted(
    clickhouse: &ClickHouse,
    project: &str,
    dataset_id: &str,
    run_id: &str,
) -> Result<()> {
    let sql = format!(
        "INSERT INTO {TABLE} SELECT * REPLACE (now64(3) AS event_ts, toUInt8(1) AS is_deleted) \
         FROM (SELECT * FROM (SELECT * FROM {TABLE} WHERE project_id = ? AND dataset_id = ? AND dataset_run_id = ?\
               {NEWEST_BY_ID}) WHERE is_deleted = 0)"
    );
    let work = clickhouse.client().query(&sql).bind(project).bind(dataset_id).bind(run_id).execute();
    Ok(clickhouse.bounded(Work::Write, TABLE, work).await?)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::string_map;

    #[test]
    fn metadata_becomes_a_flat_string_map() {
        let map = string_map(&json!({"model": "gpt", "n": 3, "nested": {"a": [1]}}));
        assert_eq!(
            map,
            [
                ("model".to_owned(), "gpt".to_owned()),
                ("n".to_owned(), "3".to_owned()),
                ("nested".to_owned(), r#"{"a":[1]}"#.to_owned()),
            ]
        );
        assert_eq!(string_map(&json!([1, 2])), [("metadata".to_owned(), "[1,2]".to_owned())]);
        assert!(string_map(&json!(null)).is_empty());
    }
}
