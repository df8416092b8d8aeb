//! A dataset run item as PostgreSQL stores it (joined with its run's name), and its SDK shape.

use chrono::{DateTime, Utc};

use super::body::DatasetRunItem;
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
    pub fn into_body(self) -> DatasetRunItem {
        DatasetRunItem {
            id: self.id,
            dataset_run_id: self.dataset_run_id,
            dataset_run_name: self.dataset_run_name,
            dataset_item_id: self.dataset_item_id,
            trace_id: self.trace_id,
            observation_id: self.observation_id,
            created_at: timestamp(&self.created_at),
            updated_at: timestamp(&self.updated_at),
        }
    }
}
