//! The v3 tables (`traces`, `observations`, `scores`) and the dual-write staging table, as
//! ClickHouse rows of the `domain::v3` records.
//!
//! Records are read back for merging (a partial update is applied to the stored record, then the
//! whole record is written with a newer `event_ts`), so rows are owned and convert both ways.

use std::collections::BTreeMap;

use clickhouse::Row;
use serde::{Deserialize, Serialize};

use domain::event::{Decimal12, Level, ObservationType};
use domain::v3::{ObservationRecord, ScoreRecord, TraceRecord};

use super::partitions::month_parts;
use super::{ClickHouse, Work};
use crate::Result;

mod stored;
pub use stored::{Stored, existing};

#[derive(Debug, Clone, Row, Serialize, Deserialize)]
pub struct TraceRow {
    pub id: String,
    pub timestamp: i64,
    pub name: String,
    pub user_id: Option<String>,
    pub metadata: Vec<(String, String)>,
    pub release: Option<String>,
    pub version: Option<String>,
    pub project_id: String,
    pub environment: String,
    pub public: bool,
    pub bookmarked: bool,
    pub tags: Vec<String>,
    pub input: Option<String>,
    pub output: Option<String>,
    pub session_id: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub event_ts: i64,
    pub is_deleted: u8,
}

impl From<&TraceRecord> for TraceRow {
    fn from(t: &TraceRecord) -> Self {
        Self {
            id: t.id.clone(),
            timestamp: t.timestamp,
            name: t.name.clone().unwrap_or_default(),
            user_id: t.user_id.clone(),
            metadata: t.metadata.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            release: t.release.clone(),
            version: t.version.clone(),
            project_id: t.project_id.clone(),
            environment: t.environment.clone(),
            public: t.public,
            bookmarked: t.bookmarked,
            tags: t.tags.clone(),
            input: t.input.clone(),
            output: t.output.clone(),
            session_id: t.session_id.clone(),
            created_at: t.created_at,
            updated_at: t.updated_at,
            event_ts: t.event_ts,
            is_deleted: 0,
        }
    }
}

impl From<TraceRow> for TraceRecord {
    fn from(r: TraceRow) -> Self {
        Self {
            id: r.id,
            project_id: r.project_id,
            timestamp: r.timestamp,
            name: Some(r.name).filter(|n| !n.is_empty()),
            user_id: r.user_id,
            session_id: r.session_id,
            release: r.release,
            version: r.version,
            environment: r.environment,
            public: r.public,
            bookmarked: r.bookmarked,
            tags: r.tags,
            metadata: r.metadata.into_iter().collect(),
            input: r.input,
            output: r.output,
            created_at: r.created_at,
            updated_at: r.updated_at,
            event_ts: r.event_ts,
        }
    }
}

/// `observations` and `observations_batch_staging` share every column but the staging clock; one
/// field list defines both rows (the Row derive cannot flatten).
macro_rules! observation_rows {
    ($($field:ident : $ty:ty),* $(,)?) => {
        #[derive(Debug, Clone, Row, Serialize, Deserialize)]
        pub struct ObservationRow { $(pub $field: $ty),* }

        /// A staged observation: the observation row plus the partition clock (reference/storage.md §2.4).
        #[derive(Debug, Clone, Row, Serialize, Deserialize)]
        pub struct StagingRow { $(pub $field: $ty,)* pub s3_first_seen_timestamp: i64 }

        impl StagingRow {
            fn new(row: ObservationRow, s3_first_seen_timestamp: i64) -> Self {
                Self { $($field: row.$field,)* s3_first_seen_timestamp }
            }
        }
    };
}

observation_rows! {
    id: String,
    trace_id: String,
    project_id: String,
    environment: String,
    r#type: String,
    parent_observation_id: Option<String>,
    start_time: i64,
    end_time: Option<i64>,
    name: String,
    metadata: Vec<(String, String)>,
    level: String,
    status_message: Option<String>,
    version: Option<String>,
    input: Option<String>,
    output: Option<String>,
    provided_model_name: Option<String>,
    internal_model_id: Option<String>,
    model_parameters: Option<String>,
    provided_usage_details: Vec<(String, u64)>,
    usage_details: Vec<(String, u64)>,
    provided_cost_details: Vec<(String, i64)>,
    cost_details: Vec<(String, i64)>,
    total_cost: Option<i64>,
    completion_start_time: Option<i64>,
    prompt_id: Option<String>,
    prompt_name: Option<String>,
    prompt_version: Option<u16>,
    created_at: i64,
    updated_at: i64,
    event_ts: i64,
    is_deleted: u8,
    usage_pricing_tier_id: Option<String>,
    usage_pricing_tier_name: Option<String>,
    // Staging has no defaults for these; observations does.
    tool_definitions: Vec<(String, String)>,
    tool_calls: Vec<String>,
    tool_call_names: Vec<String>,
}

fn costs(map: &BTreeMap<String, Decimal12>) -> Vec<(String, i64)> {
    map.iter().map(|(k, v)| (k.clone(), v.0)).collect()
}

fn usage(map: &BTreeMap<String, u64>) -> Vec<(String, u64)> {
    map.iter().map(|(k, v)| (k.clone(), *v)).collect()
}

impl From<&ObservationRecord> for ObservationRow {
    fn from(o: &ObservationRecord) -> Self {
        Self {
            id: o.id.clone(),
            trace_id: o.trace_id.clone(),
            project_id: o.project_id.clone(),
            environment: o.environment.clone(),
            r#type: o.observation_type.unwrap_or(ObservationType::Span).as_str().to_owned(),
            parent_observation_id: o.parent_observation_id.clone(),
            start_time: o.start_time,
            end_time: o.end_time,
            name: o.name.clone(),
            metadata: o.metadata.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            level: o.level.as_str().to_owned(),
            status_message: o.status_message.clone(),
            version: o.version.clone(),
            input: o.input.clone(),
            output: o.output.clone(),
            provided_model_name: o.provided_model_name.clone(),
            internal_model_id: o.internal_model_id.clone(),
            model_parameters: o.model_parameters.clone(),
            provided_usage_details: usage(&o.provided_usage_details),
            usage_details: usage(&o.usage_details),
            provided_cost_details: costs(&o.provided_cost_details),
            cost_details: costs(&o.cost_details),
            total_cost: o.total_cost.map(|c| c.0),
            completion_start_time: o.completion_start_time,
            prompt_id: o.prompt_id.clone(),
            prompt_name: o.prompt_name.clone(),
            prompt_version: o.prompt_version,
            created_at: o.created_at,
            updated_at: o.updated_at,
            event_ts: o.event_ts,
            is_deleted: 0,
            usage_pricing_tier_id: None,
            usage_pricing_tier_name: None,
            tool_definitions: o.tools.definitions.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            tool_calls: o.tools.calls.clone(),
            tool_call_names: o.tools.call_names.clone(),
        }
    }
}

impl From<ObservationRow> for ObservationRecord {
    fn from(r: ObservationRow) -> Self {
        Self {
            id: r.id,
            trace_id: r.trace_id,
            project_id: r.project_id,
            environment: r.environment,
            observation_type: ObservationType::parse(&r.r#type),
            parent_observation_id: r.parent_observation_id,
            start_time: r.start_time,
            end_time: r.end_time,
            name: r.name,
            metadata: r.metadata.into_iter().collect(),
            level: Level::parse(&r.level).unwrap_or_default(),
            status_message: r.status_message,
            version: r.version,
            input: r.input,
            output: r.output,
            provided_model_name: r.provided_model_name,
            internal_model_id: r.internal_model_id,
            model_parameters: r.model_parameters,
            provided_usage_details: r.provided_usage_details.into_iter().collect(),
            usage_details: r.usage_details.into_iter().collect(),
            provided_cost_details: r
                .provided_cost_details
                .into_iter()
                .map(|(k, v)| (k, Decimal12(v)))
                .collect(),
            cost_details: r.cost_details.into_iter().map(|(k, v)| (k, Decimal12(v))).collect(),
            total_cost: r.total_cost.map(Decimal12),
            completion_start_time: r.completion_start_time,
            prompt_id: r.prompt_id,
            prompt_name: r.prompt_name,
            prompt_version: r.prompt_version,
            created_at: r.created_at,
            updated_at: r.updated_at,
            event_ts: r.event_ts,
            tools: domain::event::Tools {
                definitions: r.tool_definitions.into_iter().collect(),
                calls: r.tool_calls,
                call_names: r.tool_call_names,
            },
        }
    }
}

#[derive(Debug, Clone, Row, Serialize)]
pub struct ScoreRow<'a> {
    id: &'a str,
    timestamp: i64,
    project_id: &'a str,
    environment: &'a str,
    trace_id: Option<&'a str>,
    session_id: Option<&'a str>,
    dataset_run_id: Option<&'a str>,
    observation_id: Option<&'a str>,
    name: &'a str,
    value: f64,
    source: &'a str,
    comment: Option<&'a str>,
    metadata: Vec<(&'a str, &'a str)>,
    author_user_id: Option<&'a str>,
    config_id: Option<&'a str>,
    data_type: &'static str,
    string_value: Option<&'a str>,
    queue_id: Option<&'a str>,
    created_at: i64,
    updated_at: i64,
    event_ts: i64,
    is_deleted: u8,
    execution_trace_id: Option<&'a str>,
    long_string_value: &'a str,
    ingestion_api_key: &'a str,
    ingestion_sdk_name: &'a str,
    ingestion_sdk_version: &'a str,
}

impl<'a> From<&'a ScoreRecord> for ScoreRow<'a> {
    fn from(s: &'a ScoreRecord) -> Self {
        Self {
            id: &s.id,
            timestamp: s.timestamp,
            project_id: &s.project_id,
            environment: &s.environment,
            trace_id: s.trace_id.as_deref(),
            session_id: s.session_id.as_deref(),
            dataset_run_id: s.dataset_run_id.as_deref(),
            observation_id: s.observation_id.as_deref(),
            name: &s.name,
            value: s.value,
            source: &s.source,
            comment: s.comment.as_deref(),
            metadata: s.metadata.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
            author_user_id: s.author_user_id.as_deref(),
            config_id: s.config_id.as_deref(),
            data_type: s.data_type.as_str(),
            string_value: s.string_value.as_deref(),
            queue_id: s.queue_id.as_deref(),
            created_at: s.created_at,
            updated_at: s.updated_at,
            event_ts: s.event_ts,
            is_deleted: 0,
            execution_trace_id: s.execution_trace_id.as_deref(),
            long_string_value: "",
            ingestion_api_key: &s.ingestion_api_key,
            ingestion_sdk_name: &s.ingestion_sdk_name,
            ingestion_sdk_version: &s.ingestion_sdk_version,
        }
    }
}

/// Traces, in as many inserts as their months need (`partitions`).
pub async fn insert_traces(ch: &ClickHouse, traces: &[TraceRecord]) -> Result<()> {
    for part in month_parts(traces, |trace| trace.timestamp.saturating_mul(1000)) {
        ch.insert_rows("traces", part.into_iter().map(TraceRow::from).collect()).await?;
    }
    Ok(())
}

/// Observations, in as many inserts as their months need (`partitions`).
pub async fn insert_observations(ch: &ClickHouse, observations: &[ObservationRecord]) -> Result<()> {
    for part in month_parts(observations, |observation| observation.start_time.saturating_mul(1000)) {
        ch.insert_rows("observations", part.into_iter().map(ObservationRow::from).collect()).await?;
    }
    Ok(())
}

/// Stages observations for the propagation job, partitioned by when they were first seen.
pub async fn insert_staging(
    ch: &ClickHouse,
    observations: &[ObservationRecord],
    first_seen_millis: i64,
) -> Result<()> {
    let rows =
        observations.iter().map(|o| StagingRow::new(ObservationRow::from(o), first_seen_millis)).collect();
    ch.insert_rows("observations_batch_staging", rows).await
}

pub async fn insert_scores(ch: &ClickHouse, scores: &[ScoreRecord]) -> Result<()> {
    if scores.is_empty() {
        return Ok(());
    }
    for part in month_parts(scores, |score| score.timestamp.saturating_mul(1000)) {
        let insert = async {
            let mut insert = ch.client().insert::<ScoreRow<'_>>("scores").await?;
            for score in part {
                insert.write(&ScoreRow::from(score)).await?;
            }
            insert.end().await
        };
        ch.bounded(Work::Write, "scores", insert).await?;
    }
    Ok(())
}

/// Deletes a score as the replacing merge understands it: a copy of its newest version with
/// `is_deleted = 1` and a newer version. `false` when the project has no such live score.
pub async fn delete_score(ch: &ClickHouse, project_id: &str, id: &str, now_millis: i64) -> Result<bool> {
    let query = ch
        .client()
        .query(
            "SELECT count() FROM (SELECT is_deleted FROM scores WHERE project_id = ? AND id = ? \
             ORDER BY event_ts DESC LIMIT 1) WHERE is_deleted = 0",
        )
        .bind(project_id)
        .bind(id);
    let live: u64 = ch.bounded(Work::Read, "scores", query.fetch_one()).await?;
    if live == 0 {
        return Ok(false);
    }
    let copy = ch
        .client()
        .query(
            "INSERT INTO scores SELECT * REPLACE (1 AS is_deleted, fromUnixTimestamp64Milli(?) AS event_ts, \
             fromUnixTimestamp64Milli(?) AS updated_at) FROM scores WHERE project_id = ? AND id = ? \
             ORDER BY event_ts DESC LIMIT 1",
        )
        .bind(now_millis)
        .bind(now_millis)
        .bind(project_id)
        .bind(id);
    ch.bounded(Work::Write, "scores", copy.execute()).await?;
    Ok(true)
}
