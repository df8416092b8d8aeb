//! Experiments as the SDKs describe them on spans: SDK 5's `run_experiment` marks each dataset
//! item's root span with `langfuse.experiment.*` attributes instead of calling
//! `POST /dataset-run-items`. The worker reads [`ExperimentLink`]s off those spans; whoever keeps
//! dataset runs records them.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

/// One dataset item's run, as an experiment span describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExperimentLink {
    pub project_id: String,
    /// `langfuse.experiment.name`: the run name.
    pub run_name: String,
    pub description: Option<String>,
    /// `langfuse.experiment.metadata`, flattened by the span mapping; kept as the run's metadata.
    pub metadata: Map<String, Value>,
    pub dataset_item_id: String,
    /// The item version the experiment ran on; the version current at `created_at` otherwise.
    pub item_version: Option<DateTime<Utc>>,
    pub trace_id: String,
    /// The item's root span (`langfuse.experiment.item.root_observation_id`).
    pub observation_id: String,
    /// The root span's start.
    pub created_at: DateTime<Utc>,
}

/// What linking a batch of experiment spans did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Linked {
    pub created: usize,
    /// Already linked: by an earlier delivery of the same spans, or by the SDK posting the run item
    /// for the same trace itself.
    pub existing: usize,
    /// Naming a dataset item this project does not have (deleted, archived, or never created).
    pub unknown_items: usize,
}
