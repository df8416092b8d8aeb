//! A dataset run item as PostgreSQL stores it (joined with its run's name), and its SDK shape.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::timestamp;

#[derive(Debug, Clone, sqlx::FromRow)]
pub(crate) struct RunItem {
    pub id: String,
    pub dataset_run_id: String,
    pub dataset_run_name: String,
    pub dataset_item_id: String,
    pub trace_id: String,
    pub observation_id: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl RunItem {
    /// The DatasetRunItem object of the SDKs.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "datasetRunId": self.dataset_run_id,
            "datasetRunName": self.dataset_run_name,
            "datasetItemId": self.dataset_item_id,
            "traceId": self.trace_id,
            "observationId": self.observation_id,
            "createdAt": timestamp(&self.created_at),
            "updatedAt": timestamp(&self.updated_at),
        })
    }
}
