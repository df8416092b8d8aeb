//! What the engine reads of a project's observations in ClickHouse (`events_full`): candidates
//! for the rules' filters (narrow columns, never input or output), and one observation whole when
//! its execution runs. Rows are read as `JSONEachRow`; times as integer microseconds.

use serde::Deserialize;
use serde_json::Value;

use storage::clickhouse::{ClickHouse, Work};

use crate::filter::Candidate;

/// The environment prefix of Langfuse's own traces (judge calls among them): never evaluated, so a
/// judge's trace cannot trigger another judge.
pub const INTERNAL_ENVIRONMENT_PREFIX: &str = "langfuse-";

/// A candidate and where it sits: its acceptance time (`created_at`, the follower's cursor) and
/// start time (its sorting key).
#[derive(Debug, Clone)]
pub struct Found {
    pub candidate: Candidate,
    pub accepted_micros: i64,
    pub start_micros: i64,
}

#[derive(Deserialize)]
struct CandidateRow {
    span_id: String,
    trace_id: String,
    #[serde(rename = "type")]
    kind: String,
    name: String,
    environment: String,
    level: String,
    version: String,
    trace_name: String,
    user_id: String,
    session_id: String,
    tags: Vec<String>,
    metadata_names: Vec<String>,
    metadata_values: Vec<String>,
    parent_span_id: String,
    is_app_root: bool,
    experiment_id: String,
    experiment_item_root_span_id: String,
    experiment_dataset_id: String,
    tool_call_names: Vec<String>,
    tool_call_count: u64,
    accepted: i64,
    start: i64,
}

const CANDIDATE_COLUMNS: &str = "span_id, trace_id, type, name, environment, level, version, trace_name, user_id,
    session_id, tags, metadata_names, metadata_values, parent_span_id, is_app_root, experiment_id,
    experiment_item_root_span_id, experiment_dataset_id, tool_call_names, length(tool_calls) AS tool_call_count,
    toUnixTimestamp64Micro(created_at) AS accepted, toUnixTimestamp64Micro(start_time) AS start";

impl From<CandidateRow> for Found {
    fn from(r: CandidateRow) -> Self {
        Found {
            accepted_micros: r.accepted,
            start_micros: r.start,
            candidate: Candidate {
                span_id: r.span_id,
                trace_id: r.trace_id,
                kind: r.kind,
                name: r.name,
                environment: r.environment,
                level: r.level,
                version: r.version,
                trace_name: r.trace_name,
                user_id: r.user_id,
                session_id: r.session_id,
                tags: r.tags,
                metadata: r.metadata_names.into_iter().zip(r.metadata_values).collect(),
                parent_span_id: r.parent_span_id,
                is_app_root: r.is_app_root,
                experiment_id: r.experiment_id,
                experiment_item_root_span_id: r.experiment_item_root_span_id,
                experiment_dataset_id: r.experiment_dataset_id,
                tool_call_names: r.tool_call_names,
                tool_calls: r.tool_call_count,
            },
        }
    }
}

pub(super) async fn fetch<T: serde::de::DeserializeOwned>(
    clickhouse: &ClickHouse,
    query: clickhouse::query::Query,
) -> storage::Result<Vec<T>> {
    let mut cursor = query
        .with_setting("output_format_json_quote_64bit_integers", "0")
        .fetch_bytes("JSONEachRow")
        .map_err(storage::Error::from)?;
    let body = clickhouse.bounded(Work::Read, "evaluation candidates", cursor.collect()).await?;
    body.split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| {
            serde_json::from_slice(line).map_err(|e| {
                storage::Error::new(storage::ErrorKind::Internal, format!("an events row did not parse: {e}"))
            })
        })
        .collect()
}

/// A table the live follower reads in acceptance order: its rows accepted after a cursor
/// `(created_at, id)` and not after a horizon, oldest first.
struct Feed {
    table: &'static str,
    /// The row's id column, the cursor's tie-break.
    id: &'static str,
    columns: &'static str,
    /// Whether to keep only the newest version of each id (`event_ts`); the events keep every
    /// version, each a new acceptance.
    newest_only: bool,
}

impl Feed {
    async fn read<T: serde::de::DeserializeOwned>(
        &self,
        clickhouse: &ClickHouse,
        project: &str,
        (after_micros, after_id): (i64, &str),
        horizon_micros: i64,
        limit: u64,
    ) -> storage::Result<Vec<T>> {
        let Feed { table, id, columns, .. } = self;
        let newest =
            if self.newest_only { format!(", event_ts DESC LIMIT 1 BY {id}") } else { String::new() };
        let sql = format!(
            "SELECT {columns} FROM {table}
             WHERE project_id = ? AND is_deleted = 0
               AND created_at >= fromUnixTimestamp64Micro(?) AND created_at <= fromUnixTimestamp64Micro(?)
               AND (toUnixTimestamp64Micro(created_at), {id}) > (?, ?)
             ORDER BY created_at, {id}{newest} LIMIT ?"
        );
        let query = clickhouse
            .client()
            .query(&sql)
            .bind(project)
            .bind(after_micros)
            .bind(horizon_micros)
            .bind(after_micros)
            .bind(after_id)
            .bind(limit);
        fetch::<T>(clickhouse, query).await
    }
}

const OBSERVATIONS: Feed =
    Feed { table: "events_full", id: "span_id", columns: CANDIDATE_COLUMNS, newest_only: false };

/// The project's observation versions accepted after `(after_micros, after_span)` and not after
/// `horizon_micros`, oldest first.
pub async fn accepted_after(
    clickhouse: &ClickHouse,
    project: &str,
    cursor: (i64, &str),
    horizon_micros: i64,
    limit: u64,
) -> storage::Result<Vec<Found>> {
    let rows = OBSERVATIONS.read::<CandidateRow>(clickhouse, project, cursor, horizon_micros, limit).await?;
    Ok(rows.into_iter().map(Found::from).collect())
}

/// The newest version of each of the project's observations `spans` (started in
/// `[from, to]`, which narrows the read to their part of the sorting key).
pub async fn observations_by_id(
    clickhouse: &ClickHouse,
    project: &str,
    spans: &[String],
    (from_micros, to_micros): (i64, i64),
) -> storage::Result<Vec<Found>> {
    if spans.is_empty() {
        return Ok(Vec::new());
    }
    let list = storage::clickhouse::StringList::new("spans", spans);
    let sql = format!(
        "SELECT {CANDIDATE_COLUMNS} FROM events_full
         WHERE project_id = ? AND is_deleted = 0 AND span_id IN {}
           AND start_time >= fromUnixTimestamp64Micro(?) AND start_time <= fromUnixTimestamp64Micro(?)
         ORDER BY span_id, event_ts DESC LIMIT 1 BY span_id",
        list.sql()
    );
    let query = list.bind(clickhouse.client().query(&sql).bind(project).bind(from_micros).bind(to_micros));
    Ok(fetch::<CandidateRow>(clickhouse, query).await?.into_iter().map(Found::from).collect())
}

/// The project's observations that started in `[from, to)`, after `(after_start, after_span)` in
/// start order, newest version each: one chunk of a time-range run.
pub async fn started_between(
    clickhouse: &ClickHouse,
    project: &str,
    (from_micros, to_micros): (i64, i64),
    (after_start, after_span): (i64, &str),
    limit: u64,
) -> storage::Result<Vec<Found>> {
    let sql = format!(
        "SELECT {CANDIDATE_COLUMNS} FROM events_full
         WHERE project_id = ? AND is_deleted = 0
           AND start_time >= fromUnixTimestamp64Micro(?) AND start_time < fromUnixTimestamp64Micro(?)
           AND (toUnixTimestamp64Micro(start_time), span_id) > (?, ?)
         ORDER BY start_time, span_id, event_ts DESC LIMIT 1 BY span_id LIMIT ?"
    );
    let query = clickhouse
        .client()
        .query(&sql)
        .bind(project)
        .bind(from_micros)
        .bind(to_micros)
        .bind(after_start)
        .bind(after_span)
        .bind(limit);
    Ok(fetch::<CandidateRow>(clickhouse, query).await?.into_iter().map(Found::from).collect())
}

/// How many observations started in `[from, to)`: a run's total.
pub async fn count_started_between(
    clickhouse: &ClickHouse,
    project: &str,
    (from, to): (i64, i64),
) -> storage::Result<u64> {
    #[derive(Deserialize)]
    struct Count {
        n: u64,
    }
    let query = clickhouse
        .client()
        .query(
            "SELECT uniqExact(span_id) AS n FROM events_full WHERE project_id = ? AND is_deleted = 0
               AND start_time >= fromUnixTimestamp64Micro(?) AND start_time < fromUnixTimestamp64Micro(?)",
        )
        .bind(project)
        .bind(from)
        .bind(to);
    Ok(fetch::<Count>(clickhouse, query).await?.first().map_or(0, |c| c.n))
}

/// One observation's values, newest version, for its prompt variables and its score.
#[derive(Debug, Clone, Deserialize)]
pub struct Observation {
    pub trace_id: String,
    pub span_id: String,
    pub environment: String,
    pub input: String,
    pub output: String,
    pub metadata_names: Vec<String>,
    pub metadata_values: Vec<String>,
    pub tool_calls: Vec<String>,
    pub experiment_item_expected_output: String,
    pub experiment_item_metadata_names: Vec<String>,
    pub experiment_item_metadata_values: Vec<String>,
}

pub async fn observation(
    clickhouse: &ClickHouse,
    project: &str,
    trace: &str,
    span: &str,
) -> storage::Result<Option<Observation>> {
    let query = clickhouse
        .client()
        .query(
            "SELECT trace_id, span_id, environment, input, output, metadata_names, metadata_values, tool_calls,
                    experiment_item_expected_output, experiment_item_metadata_names, experiment_item_metadata_values
             FROM events_full WHERE project_id = ? AND trace_id = ? AND span_id = ? AND is_deleted = 0
             ORDER BY event_ts DESC LIMIT 1",
        )
        .bind(project)
        .bind(trace)
        .bind(span);
    Ok(fetch::<Observation>(clickhouse, query).await?.into_iter().next())
}

/// Stored text as the value it holds: JSON text parses, anything else stays a string; empty is null.
pub fn value_of(text: &str) -> Value {
    if text.is_empty() {
        return Value::Null;
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// Parallel name and value arrays as one object, each value parsed like [`value_of`].
pub fn object_of(names: &[String], values: &[String]) -> Value {
    Value::Object(names.iter().cloned().zip(values.iter().map(|v| value_of(v))).collect())
}

impl Observation {
    /// The value of a mapping source (`input`, `output`, `metadata`, …).
    pub fn source(&self, source: &str) -> Value {
        match source {
            "input" => value_of(&self.input),
            "output" => value_of(&self.output),
            "metadata" => object_of(&self.metadata_names, &self.metadata_values),
            "tool_calls" => Value::Array(self.tool_calls.iter().map(|c| value_of(c)).collect()),
            "expected_output" => value_of(&self.experiment_item_expected_output),
            "experiment_item_metadata" => {
                object_of(&self.experiment_item_metadata_names, &self.experiment_item_metadata_values)
            }
            _ => Value::Null,
        }
    }
}

#[derive(Deserialize)]
struct TraceRow {
    id: String,
    name: String,
    environment: String,
    version: String,
    user_id: String,
    session_id: String,
    tags: Vec<String>,
    metadata_names: Vec<String>,
    metadata_values: Vec<String>,
    accepted: i64,
    start: i64,
}

const TRACES: Feed = Feed {
    table: "traces",
    id: "id",
    columns: "id, name, environment, ifNull(version, '') AS version, ifNull(user_id, '') AS user_id,
        ifNull(session_id, '') AS session_id, tags, mapKeys(metadata) AS metadata_names,
        mapValues(metadata) AS metadata_values, toUnixTimestamp64Micro(created_at) AS accepted,
        toUnixTimestamp64Micro(timestamp) AS start",
    newest_only: true,
};

/// The project's v3 traces first accepted after the cursor (`created_at` is the acceptance time
/// of a trace's first payload; updates keep it), oldest first: the candidates of trace rules.
pub async fn traces_accepted_after(
    clickhouse: &ClickHouse,
    project: &str,
    cursor: (i64, &str),
    horizon_micros: i64,
    limit: u64,
) -> storage::Result<Vec<Found>> {
    Ok(TRACES
        .read::<TraceRow>(clickhouse, project, cursor, horizon_micros, limit)
        .await?
        .into_iter()
        .map(|r| Found {
            accepted_micros: r.accepted,
            start_micros: r.start,
            candidate: Candidate {
                span_id: r.id.clone(),
                trace_id: r.id,
                kind: "TRACE".to_owned(),
                trace_name: r.name.clone(),
                name: r.name,
                environment: r.environment,
                version: r.version,
                user_id: r.user_id,
                session_id: r.session_id,
                tags: r.tags,
                metadata: r.metadata_names.into_iter().zip(r.metadata_values).collect(),
                is_app_root: true,
                ..Candidate::default()
            },
        })
        .collect())
}

/// One v3 trace's values, newest version, in the shape of an observation's (no tool calls or
/// experiment values).
pub async fn trace(clickhouse: &ClickHouse, project: &str, id: &str) -> storage::Result<Option<Observation>> {
    let query = clickhouse
        .client()
        .query(
            "SELECT id AS trace_id, '' AS span_id, environment, ifNull(input, '') AS input, ifNull(output, '') AS output,
                    mapKeys(metadata) AS metadata_names, mapValues(metadata) AS metadata_values,
                    CAST([], 'Array(String)') AS tool_calls, '' AS experiment_item_expected_output,
                    CAST([], 'Array(String)') AS experiment_item_metadata_names,
                    CAST([], 'Array(String)') AS experiment_item_metadata_values
             FROM traces WHERE project_id = ? AND id = ? AND is_deleted = 0
             ORDER BY event_ts DESC LIMIT 1",
        )
        .bind(project)
        .bind(id);
    Ok(fetch::<Observation>(clickhouse, query).await?.into_iter().next())
}

#[derive(Deserialize)]
struct RunItemRow {
    id: String,
    trace_id: String,
    dataset_id: String,
    dataset_run_id: String,
    dataset_run_name: String,
    accepted: i64,
}

const RUN_ITEMS: Feed = Feed {
    table: "dataset_run_items_rmt",
    id: "id",
    columns: "id, trace_id, dataset_id, dataset_run_id, dataset_run_name, toUnixTimestamp64Micro(created_at) AS accepted",
    newest_only: true,
};

/// The project's dataset run items created after the cursor, oldest first: the candidates of
/// dataset rules (filtered by `datasetId`, `experimentId` = the run's id, `name` = the run's name).
pub async fn run_items_accepted_after(
    clickhouse: &ClickHouse,
    project: &str,
    cursor: (i64, &str),
    horizon_micros: i64,
    limit: u64,
) -> storage::Result<Vec<Found>> {
    Ok(RUN_ITEMS
        .read::<RunItemRow>(clickhouse, project, cursor, horizon_micros, limit)
        .await?
        .into_iter()
        .map(|r| Found {
            accepted_micros: r.accepted,
            start_micros: r.accepted,
            candidate: Candidate {
                span_id: r.id,
                trace_id: r.trace_id,
                kind: "DATASET_RUN_ITEM".to_owned(),
                name: r.dataset_run_name,
                experiment_id: r.dataset_run_id,
                experiment_dataset_id: r.dataset_id,
                ..Candidate::default()
            },
        })
        .collect())
}

/// A dataset run item: what it ran (a trace, maybe one observation of it) and the item's
/// expected output and metadata.
#[derive(Debug, Clone, Deserialize)]
pub struct RunItem {
    pub trace_id: String,
    pub observation_id: String,
    pub expected_output: String,
    pub metadata_names: Vec<String>,
    pub metadata_values: Vec<String>,
}

pub async fn run_item(clickhouse: &ClickHouse, project: &str, id: &str) -> storage::Result<Option<RunItem>> {
    let query = clickhouse
        .client()
        .query(
            "SELECT trace_id, ifNull(observation_id, '') AS observation_id,
                    ifNull(dataset_item_expected_output, '') AS expected_output,
                    mapKeys(dataset_item_metadata) AS metadata_names, mapValues(dataset_item_metadata) AS metadata_values
             FROM dataset_run_items_rmt WHERE project_id = ? AND id = ? AND is_deleted = 0
             ORDER BY event_ts DESC LIMIT 1",
        )
        .bind(project)
        .bind(id);
    Ok(fetch::<RunItem>(clickhouse, query).await?.into_iter().next())
}
