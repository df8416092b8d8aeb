//! The datasets page's runs side by side (v3 experiment model, `legacy` and `dual`): for a page of
//! a dataset's items and a few of its runs, each run's result per item (the linked trace's output,
//! latency, cost and scores), and per run the averages over all of its items.
//!
//! Bounded by its callers: at most [`MAX_RUNS`] runs and one page of items (≤ 100) per call, so
//! each query reads the run items of those runs and the traces they name, nothing project-wide.
//! Outputs are cut to [`OUTPUT_CHARS`] characters; the trace panel shows them whole.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use storage::clickhouse::ClickHouse;
use storage::clickhouse::NEWEST_BY_ID;
use utoipa::ToSchema;

use crate::render::{self, Num};
use crate::sql::Sql;
use crate::{ReadError, Result};

/// The most runs one comparison shows.
pub const MAX_RUNS: usize = 5;

/// The most characters of an output a cell shows.
pub const OUTPUT_CHARS: i64 = 2_000;

/// One run's result for one item.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunCell {
    pub run_id: String,
    pub item_id: String,
    pub trace_id: String,
    pub observation_id: Option<String>,
    /// The trace's output (its first [`OUTPUT_CHARS`] characters; then a string when cut).
    #[serde(deserialize_with = "render::de_json_text")]
    #[schema(value_type = Object, nullable)]
    pub output: Value,
    /// Whether `output` was cut.
    #[serde(deserialize_with = "bool_of_u8")]
    pub output_truncated: bool,
    /// Seconds from the trace's first observation's start to its last end; null without observations.
    #[serde(skip_deserializing)]
    pub latency: Option<Num>,
    /// Sum of the trace's observations' total costs (USD); null without observations.
    #[serde(skip_deserializing)]
    pub total_cost: Option<Num>,
    #[serde(skip_deserializing)]
    pub scores: Vec<CellScore>,
}

/// A score of the trace of a run item.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CellScore {
    pub name: String,
    pub data_type: String,
    /// Numeric and boolean scores; the category's index is not shown.
    pub value: Option<f64>,
    /// Categorical scores.
    pub string_value: Option<String>,
    #[serde(skip_serializing, default)]
    trace_id: String,
}

/// A run's averages over all of its items.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    pub run_id: String,
    pub item_count: u64,
    pub avg_latency: Option<f64>,
    pub avg_total_cost: Option<f64>,
    /// Per numeric or boolean score name: the mean over the run's traces.
    pub avg_scores: Vec<AverageScore>,
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AverageScore {
    pub name: String,
    pub value: f64,
    pub count: u64,
    #[serde(skip_serializing, default)]
    run_id: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TraceFigures {
    trace_id: String,
    latency: Option<f64>,
    total_cost: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunFigures {
    run_id: String,
    item_count: u64,
    avg_latency: Option<f64>,
    avg_total_cost: Option<f64>,
}

fn bool_of_u8<'de, D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<bool, D::Error> {
    Ok(u8::deserialize(deserializer)? != 0)
}

fn bounded(runs: &[String]) -> Result<()> {
    if runs.is_empty() || runs.len() > MAX_RUNS {
        return Err(ReadError::bad_request(format!("Pick 1 to {MAX_RUNS} runs to compare")));
    }
    Ok(())
}

/// The live run items of `runs` (and of `items`, when given), newest version of each.
fn run_items(project_id: &str, runs: &[String], items: Option<&[String]>) -> Sql {
    let mut sql = Sql::new("(SELECT * FROM (SELECT * FROM dataset_run_items_rmt WHERE project_id = ");
    sql.bind(project_id).push(" AND dataset_run_id IN ").bind(runs.to_vec());
    if let Some(items) = items {
        sql.push(" AND dataset_item_id IN ").bind(items.to_vec());
    }
    sql.push(NEWEST_BY_ID).push(") WHERE is_deleted = 0)");
    sql
}

/// Per trace of the run items: latency and total cost, from the newest live observations.
fn trace_figures(project_id: &str, traces: &Sql) -> Sql {
    let mut sql = Sql::new(
        "SELECT trace_id AS traceId, \
         date_diff('millisecond', min(start_time), max(coalesce(end_time, start_time))) / 1000 AS latency, \
         toFloat64(sum(ifNull(total_cost, 0))) AS totalCost \
         FROM (SELECT id, trace_id, start_time, end_time, total_cost, is_deleted FROM observations \
               WHERE project_id = ",
    );
    sql.bind(project_id)
        .push(" AND trace_id IN ")
        .append(traces)
        .push(NEWEST_BY_ID)
        .push(") WHERE is_deleted = 0 GROUP BY trace_id");
    sql
}

/// The newest live scores of the traces `traces` names.
fn trace_scores(project_id: &str, traces: &Sql) -> Sql {
    let mut sql = Sql::new(
        "SELECT trace_id AS traceId, name, toString(data_type) AS dataType, value, \
         nullIf(string_value, '') AS stringValue FROM (SELECT * FROM scores WHERE project_id = ",
    );
    sql.bind(project_id)
        .push(" AND trace_id IN ")
        .append(traces)
        .push(NEWEST_BY_ID)
        .push(") WHERE is_deleted = 0 ORDER BY name, timestamp DESC");
    sql
}

/// Each run's result for each of `items` it ran; an item a run did not run has no cell.
pub async fn cells(
    clickhouse: &ClickHouse,
    project_id: &str,
    runs: &[String],
    items: &[String],
) -> Result<Vec<RunCell>> {
    bounded(runs)?;
    if items.is_empty() {
        return Ok(Vec::new());
    }
    let source = run_items(project_id, runs, Some(items));
    // One cell per (run, item): a run that ran an item twice shows its newest result.
    let mut sql = Sql::new(
        "SELECT ri.dataset_run_id AS runId, ri.dataset_item_id AS itemId, ri.trace_id AS traceId, \
         ri.observation_id AS observationId, nullIf(substringUTF8(ifNull(t.output, ''), 1, ",
    );
    sql.bind(OUTPUT_CHARS)
        .push("), '') AS output, lengthUTF8(ifNull(t.output, '')) > ")
        .bind(OUTPUT_CHARS)
        .push(" AS outputTruncated FROM ")
        .append(&source)
        .push(" AS ri LEFT JOIN (SELECT id, output FROM (SELECT id, output, is_deleted FROM traces WHERE project_id = ")
        .bind(project_id)
        .push(" AND id IN (SELECT trace_id FROM ")
        .append(&source)
        .push(")")
        .push(NEWEST_BY_ID)
        .push(") WHERE is_deleted = 0) AS t ON t.id = ri.trace_id ORDER BY ri.created_at DESC LIMIT 1 BY ri.dataset_run_id, ri.dataset_item_id");
    let mut cells: Vec<RunCell> = sql.fetch(clickhouse).await?;
    if cells.is_empty() {
        return Ok(cells);
    }
    let mut traces = Sql::new("(SELECT trace_id FROM ");
    traces.append(&source).push(")");
    let figures: Vec<TraceFigures> = trace_figures(project_id, &traces).fetch(clickhouse).await?;
    let scores: Vec<CellScore> = trace_scores(project_id, &traces).fetch(clickhouse).await?;
    for cell in &mut cells {
        if let Some(f) = figures.iter().find(|f| f.trace_id == cell.trace_id) {
            cell.latency = f.latency.map(Num::float);
            cell.total_cost = f.total_cost.map(Num::float);
        }
        cell.scores = scores.iter().filter(|s| s.trace_id == cell.trace_id).cloned().collect();
    }
    Ok(cells)
}

/// Per run: how many items it ran, and the mean latency, cost and numeric scores of its traces.
pub async fn summaries(
    clickhouse: &ClickHouse,
    project_id: &str,
    runs: &[String],
) -> Result<Vec<RunSummary>> {
    bounded(runs)?;
    let source = run_items(project_id, runs, None);
    let mut traces = Sql::new("(SELECT trace_id FROM ");
    traces.append(&source).push(")");

    let mut sql = Sql::new(
        "SELECT ri.dataset_run_id AS runId, uniqExact(ri.dataset_item_id) AS itemCount, \
         avgIf(f.latency, f.traceId != '') AS avgLatency, avgIf(f.totalCost, f.traceId != '') AS avgTotalCost FROM ",
    );
    sql.append(&source)
        .push(" AS ri LEFT JOIN (")
        .append(&trace_figures(project_id, &traces))
        .push(") AS f ON f.traceId = ri.trace_id GROUP BY ri.dataset_run_id");
    let figures: Vec<RunFigures> = sql.fetch(clickhouse).await?;

    let mut sql = Sql::new(
        "SELECT ri.dataset_run_id AS runId, s.name AS name, avg(s.value) AS value, count() AS count FROM ",
    );
    sql.append(&source)
        .push(" AS ri INNER JOIN (")
        .append(&trace_scores(project_id, &traces))
        .push(") AS s ON s.traceId = ri.trace_id WHERE s.dataType IN ('NUMERIC', 'BOOLEAN') ")
        .push("GROUP BY ri.dataset_run_id, s.name ORDER BY s.name");
    let averages: Vec<AverageScore> = sql.fetch(clickhouse).await?;

    Ok(runs
        .iter()
        .map(|run| {
            let f = figures.iter().find(|f| &f.run_id == run);
            RunSummary {
                run_id: run.clone(),
                item_count: f.map_or(0, |f| f.item_count),
                avg_latency: f.and_then(|f| f.avg_latency.filter(|v| v.is_finite())),
                avg_total_cost: f.and_then(|f| f.avg_total_cost.filter(|v| v.is_finite())),
                avg_scores: averages
                    .iter()
                    .filter(|a| &a.run_id == run)
                    .map(|a| AverageScore {
                        name: a.name.clone(),
                        value: a.value,
                        count: a.count,
                        run_id: String::new(),
                    })
                    .collect(),
            }
        })
        .collect())
}
