//! Where experiments come from. Two sources, so the experiments API answers in every write mode:
//!
//! - the events: an experiment item is the root span of one dataset item's run
//!   (`span_id = experiment_item_root_span_id`), as SDK 5 writes it directly and the backfill (M4)
//!   writes it for v3 runs;
//! - the dataset run items (`dataset_run_items_rmt`): what `legacy` and `dual` record for every
//!   run, by older SDKs' `POST /dataset-run-items` or from SDK 5's spans by the worker, whether or
//!   not the events have it yet.
//!
//! Both name an experiment by the run id, so the union keeps one row per experiment (and per
//! item), the events' when both have it: they carry the spans' times, input and output.

use crate::filter::{self, Column, Kind, col};
use crate::params::Params;
use crate::sql::{Sql, all_of, one_of, project, time_bound};
use crate::{ReadError, Result};
use storage::clickhouse::{NEWEST_BY_ID, NEWEST_BY_SPAN_ID};

/// The `fromStartTime` / `toStartTime` range every source is cut to.
pub struct Range {
    from: chrono::DateTime<chrono::Utc>,
    to: Option<chrono::DateTime<chrono::Utc>>,
}

impl Range {
    pub fn parse(params: &Params) -> Result<Self> {
        let from = params
            .datetime("fromStartTime")?
            .ok_or_else(|| ReadError::bad_request("`fromStartTime` is required"))?;
        Ok(Self { from, to: params.datetime("toStartTime")? })
    }

    fn conditions(&self, column: &str) -> Vec<Sql> {
        let mut out = vec![time_bound(column, ">=", self.from)];
        if let Some(to) = self.to {
            out.push(time_bound(column, "<", to));
        }
        out
    }
}

/// A source's columns for the public filter names: the csv id filter of each name (`id=a,b`)
/// and the `filter` JSON both use them.
pub type Columns = [Column];

pub const EVENT_EXPERIMENTS: &Columns = &[
    col("id", "experiment_id", Kind::Text),
    col("name", "experiment_name", Kind::Text),
    col("datasetId", "experiment_dataset_id", Kind::Text),
];

pub const RUN_EXPERIMENTS: &Columns = &[
    col("id", "dataset_run_id", Kind::Text),
    col("name", "dataset_run_name", Kind::Text),
    col("datasetId", "dataset_id", Kind::Text),
];

pub const EVENT_ITEMS: &Columns = &[
    col("experimentId", "experiment_id", Kind::Text),
    col("experimentName", "experiment_name", Kind::Text),
    col("experimentItemId", "experiment_item_id", Kind::Text),
    col("datasetId", "experiment_dataset_id", Kind::Text),
];

pub const RUN_ITEMS: &Columns = &[
    col("experimentId", "dataset_run_id", Kind::Text),
    col("experimentName", "dataset_run_name", Kind::Text),
    col("experimentItemId", "dataset_item_id", Kind::Text),
    col("datasetId", "dataset_id", Kind::Text),
];

/// The request's id filters and `filter` JSON on one source's columns.
pub fn filters(params: &Params, columns: &Columns) -> Result<Vec<Sql>> {
    let mut out = Vec::new();
    for column in columns {
        let values = params.list(column.name);
        if !values.is_empty() {
            out.push(one_of(column.sql, values));
        }
    }
    if let Some(raw) = params.get("filter") {
        out.push(filter::to_sql(&filter::parse(raw)?, columns)?);
    }
    Ok(out)
}

/// Newest version of every live experiment item root in the project and range, as `FROM` source.
pub fn event_item_roots(project_id: &str, range: &Range) -> Sql {
    let mut conditions =
        vec![project(project_id), Sql::new("experiment_id != '' AND span_id = experiment_item_root_span_id")];
    conditions.extend(range.conditions("start_time"));
    let mut sql = Sql::new("(SELECT * FROM (SELECT * FROM events_full WHERE ");
    sql.append(&all_of(&conditions)).push(NEWEST_BY_SPAN_ID).push(") WHERE is_deleted = 0)");
    sql
}

/// Newest version of every live dataset run item in the project and range, as `FROM` source.
pub fn run_items(project_id: &str, range: &Range) -> Sql {
    let mut conditions = vec![project(project_id)];
    conditions.extend(range.conditions("created_at"));
    let mut sql = Sql::new("(SELECT * FROM (SELECT * FROM dataset_run_items_rmt WHERE ");
    sql.append(&all_of(&conditions)).push(NEWEST_BY_ID).push(") WHERE is_deleted = 0)");
    sql
}

/// One experiment per row from each source, with the same columns: `_sortTime` (newest item)
/// and `_source` (0 for the events, preferred) besides the response's keys.
pub const EVENT_EXPERIMENT_SELECT: &str = "SELECT experiment_id AS id, any(experiment_name) AS name, \
     nullIf(any(experiment_description), '') AS description, \
     toDateTime64(min(start_time), 3) AS startTime, toDateTime64(max(coalesce(end_time, start_time)), 3) AS endTime, \
     uniqExact(experiment_item_id) AS itemCount, nullIf(any(experiment_dataset_id), '') AS datasetId, \
     CAST(mapFromArrays(any(experiment_metadata_names), any(experiment_metadata_values)), 'Map(String, String)') AS metadata, \
     toDateTime64(max(start_time), 6) AS _sortTime, 0 AS _source FROM ";

pub const RUN_EXPERIMENT_SELECT: &str = "SELECT dataset_run_id AS id, any(dataset_run_name) AS name, \
     nullIf(any(coalesce(dataset_run_description, '')), '') AS description, \
     toDateTime64(min(created_at), 3) AS startTime, toDateTime64(max(created_at), 3) AS endTime, \
     uniqExact(dataset_item_id) AS itemCount, nullIf(any(dataset_id), '') AS datasetId, \
     CAST(any(dataset_run_metadata), 'Map(String, String)') AS metadata, \
     toDateTime64(max(created_at), 6) AS _sortTime, 1 AS _source FROM ";

/// One item per row from each source, with `_sortTime` and `_source` as above. A run item shows
/// its linked observation (the trace's `t-` root when it names none); the spans' input and output
/// are the events' to give.
pub const EVENT_ITEM_SELECT: &str = "SELECT span_id AS id, trace_id AS traceId, \
     toDateTime64(start_time, 3) AS startTime, CAST(toDateTime64(end_time, 3), 'Nullable(DateTime64(3))') AS endTime, \
     toString(level) AS level, toString(environment) AS environment, experiment_id AS experimentId, \
     experiment_name AS experimentName, experiment_item_id AS experimentItemId, \
     nullIf(experiment_dataset_id, '') AS experimentDatasetId, \
     CAST(toDateTime64(experiment_item_version, 3), 'Nullable(DateTime64(3))') AS experimentItemVersion, \
     CAST(input, 'Nullable(String)') AS input, CAST(output, 'Nullable(String)') AS output, \
     CAST(experiment_item_expected_output, 'Nullable(String)') AS expectedOutput, \
     CAST(mapFromArrays(metadata_names, metadata_values), 'Map(String, String)') AS metadata, \
     CAST(mapFromArrays(experiment_item_metadata_names, experiment_item_metadata_values), 'Map(String, String)') AS experimentItemMetadata, \
     CAST(mapFromArrays(experiment_metadata_names, experiment_metadata_values), 'Map(String, String)') AS experimentMetadata, \
     nullIf(experiment_description, '') AS experimentDescription, \
     toDateTime64(start_time, 6) AS _sortTime, 0 AS _source FROM ";

pub const RUN_ITEM_SELECT: &str = "SELECT coalesce(observation_id, concat('t-', trace_id)) AS id, trace_id AS traceId, \
     toDateTime64(created_at, 3) AS startTime, CAST(NULL, 'Nullable(DateTime64(3))') AS endTime, \
     'DEFAULT' AS level, 'default' AS environment, dataset_run_id AS experimentId, \
     dataset_run_name AS experimentName, dataset_item_id AS experimentItemId, \
     nullIf(dataset_id, '') AS experimentDatasetId, \
     CAST(dataset_item_version, 'Nullable(DateTime64(3))') AS experimentItemVersion, \
     CAST(NULL, 'Nullable(String)') AS input, CAST(NULL, 'Nullable(String)') AS output, \
     dataset_item_expected_output AS expectedOutput, CAST(map(), 'Map(String, String)') AS metadata, \
     CAST(dataset_item_metadata, 'Map(String, String)') AS experimentItemMetadata, \
     CAST(dataset_run_metadata, 'Map(String, String)') AS experimentMetadata, \
     dataset_run_description AS experimentDescription, \
     toDateTime64(created_at, 6) AS _sortTime, 1 AS _source FROM ";
