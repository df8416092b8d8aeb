//! The rows of each exported file, read in bounded chunks (at most [`CHUNK_ROWS`] rows per query,
//! in a stable order with a keyset cursor, so a chunk never costs more than a page of the API).
//!
//! A source is one or more files per window ([`Part`]): the legacy tables (`traces`,
//! `observations`: the v3 tables, snake_case columns as stored), the enriched observations
//! (`observations_v2`: the rows of `GET /api/public/v2/observations`, read through
//! `reads::observations` so they are the same values, camelCase), and `scores`. Observation
//! columns follow the field groups; a group with no counterpart in a model adds nothing to it.

use chrono::{DateTime, SecondsFormat, Utc};
use reads::Params;
use reads::latest;
use reads::observations::ViewOptions;
use reads::sql::{JsonRow, Sql, and, project, time_bound};
use serde::Deserialize;
use storage::clickhouse::ClickHouse;

use crate::model::{FieldGroup, Source};
use crate::{Error, Result};

/// Rows per query; with [`crate::target::PART_BYTES`] this is what bounds an export's memory.
pub const CHUNK_ROWS: i64 = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Traces,
    Observations,
    ObservationsV2,
    Scores,
}

impl Part {
    /// The folder of its files.
    pub fn kind(self) -> &'static str {
        match self {
            Part::Traces => "traces",
            Part::Observations => "observations",
            Part::ObservationsV2 => "observations_v2",
            Part::Scores => "scores",
        }
    }

    pub fn of(source: Source) -> &'static [Part] {
        match source {
            Source::LegacyTracesObservations => &[Part::Traces, Part::Observations, Part::Scores],
            Source::ObservationsV2 => &[Part::ObservationsV2, Part::Scores],
            Source::LegacyTracesAndEnrichedObservations => {
                &[Part::Traces, Part::Observations, Part::ObservationsV2, Part::Scores]
            }
        }
    }

    /// The file's columns, in order.
    pub fn columns(self, groups: &[FieldGroup]) -> Vec<String> {
        let names: Vec<&str> = match self {
            Part::Traces => TRACE_COLUMNS.iter().map(|(name, _)| *name).collect(),
            Part::Scores => SCORE_COLUMNS.iter().map(|(name, _)| *name).collect(),
            Part::Observations => legacy_observation_columns(groups).into_iter().map(|(n, _)| n).collect(),
            Part::ObservationsV2 => selected(groups).flat_map(v2_columns).copied().collect(),
        };
        names.into_iter().map(str::to_owned).collect()
    }
}

/// `core` always, then the asked groups in their canonical order; none asked means all.
fn selected(groups: &[FieldGroup]) -> impl Iterator<Item = FieldGroup> + '_ {
    FieldGroup::ALL
        .iter()
        .copied()
        .filter(move |g| *g == FieldGroup::Core || groups.is_empty() || groups.contains(g))
}

type Columns = &'static [(&'static str, &'static str)];

const TRACE_COLUMNS: Columns = &[
    ("id", "id"),
    ("timestamp", "timestamp"),
    ("name", "name"),
    ("user_id", "user_id"),
    ("session_id", "session_id"),
    ("release", "release"),
    ("version", "version"),
    ("environment", "environment"),
    ("tags", "tags"),
    ("public", "public"),
    ("bookmarked", "bookmarked"),
    ("input", "input"),
    ("output", "output"),
    ("metadata", "metadata"),
    ("project_id", "project_id"),
    ("created_at", "created_at"),
    ("updated_at", "updated_at"),
];

const SCORE_COLUMNS: Columns = &[
    ("id", "id"),
    ("timestamp", "timestamp"),
    ("project_id", "project_id"),
    ("environment", "environment"),
    ("trace_id", "trace_id"),
    ("observation_id", "observation_id"),
    ("session_id", "session_id"),
    ("dataset_run_id", "dataset_run_id"),
    ("name", "name"),
    ("value", "value"),
    ("string_value", "string_value"),
    ("data_type", "data_type"),
    ("source", "source"),
    ("comment", "comment"),
    ("metadata", "metadata"),
    ("author_user_id", "author_user_id"),
    ("config_id", "config_id"),
    ("queue_id", "queue_id"),
    ("created_at", "created_at"),
    ("updated_at", "updated_at"),
];

fn legacy_group(group: FieldGroup) -> Columns {
    match group {
        FieldGroup::Core => &[
            ("id", "id"),
            ("trace_id", "trace_id"),
            ("project_id", "project_id"),
            ("type", "type"),
            ("parent_observation_id", "parent_observation_id"),
            ("start_time", "start_time"),
            ("end_time", "end_time"),
        ],
        FieldGroup::Basic => &[
            ("name", "name"),
            ("level", "level"),
            ("status_message", "status_message"),
            ("version", "version"),
            ("environment", "environment"),
        ],
        FieldGroup::Time => &[
            ("completion_start_time", "completion_start_time"),
            ("created_at", "created_at"),
            ("updated_at", "updated_at"),
        ],
        FieldGroup::Io => &[("input", "input"), ("output", "output")],
        FieldGroup::Metadata => &[("metadata", "metadata")],
        FieldGroup::Model => &[
            ("provided_model_name", "provided_model_name"),
            ("internal_model_id", "internal_model_id"),
            ("model_parameters", "model_parameters"),
        ],
        FieldGroup::Usage => &[
            ("provided_usage_details", "provided_usage_details"),
            ("usage_details", "usage_details"),
            ("provided_cost_details", "provided_cost_details"),
            ("cost_details", "cost_details"),
            ("total_cost", "total_cost"),
            ("usage_pricing_tier_name", "usage_pricing_tier_name"),
        ],
        FieldGroup::Prompt => &[
            ("prompt_id", "prompt_id"),
            ("prompt_name", "prompt_name"),
            ("prompt_version", "prompt_version"),
        ],
        FieldGroup::Metrics => &[
            ("latency", "if(isNull(end_time), NULL, date_diff('millisecond', start_time, end_time) / 1000)"),
            (
                "time_to_first_token",
                "if(isNull(completion_start_time), NULL, \
                 date_diff('millisecond', start_time, completion_start_time) / 1000)",
            ),
        ],
        FieldGroup::Tools => &[
            ("tool_definitions", "tool_definitions"),
            ("tool_calls", "tool_calls"),
            ("tool_call_names", "tool_call_names"),
        ],
        // The v3 observations carry no trace attributes.
        FieldGroup::TraceContext => &[],
    }
}

fn legacy_observation_columns(groups: &[FieldGroup]) -> Vec<(&'static str, &'static str)> {
    selected(groups).flat_map(|g| legacy_group(g).iter().copied()).collect()
}

/// The keys `GET /api/public/v2/observations` answers for each group.
fn v2_columns(group: FieldGroup) -> &'static [&'static str] {
    match group {
        FieldGroup::Core => {
            &["id", "traceId", "startTime", "endTime", "projectId", "parentObservationId", "type"]
        }
        FieldGroup::Basic => &[
            "name",
            "level",
            "statusMessage",
            "version",
            "environment",
            "bookmarked",
            "public",
            "userId",
            "sessionId",
            "isRootObservation",
        ],
        FieldGroup::Time => &["completionStartTime", "createdAt", "updatedAt"],
        FieldGroup::Io => &["input", "output"],
        FieldGroup::Metadata => &["metadata"],
        FieldGroup::Model => &["providedModelName", "internalModelId", "modelParameters"],
        FieldGroup::Usage => &["usageDetails", "costDetails", "totalCost", "usagePricingTierName"],
        FieldGroup::Prompt => &["promptId", "promptName", "promptVersion"],
        FieldGroup::Metrics => &["latency", "timeToFirstToken"],
        // The v2 observations read has no tool group.
        FieldGroup::Tools => &[],
        FieldGroup::TraceContext => &["tags", "release", "traceName"],
    }
}

/// What a batch export adds to a window: the Observations view's `filter` JSON and search.
#[derive(Debug, Clone, Default)]
pub struct ViewQuery {
    pub filter: Option<String>,
    pub search: Option<String>,
}

/// Reads one part of one window, chunk by chunk.
pub struct Reader<'a> {
    pub clickhouse: &'a ClickHouse,
    pub project_id: &'a str,
    pub part: Part,
    pub from: DateTime<Utc>,
    pub end: DateTime<Utc>,
    pub groups: &'a [FieldGroup],
    pub view: ViewQuery,
    /// Rows per query (at most [`CHUNK_ROWS`] for the v2 read, whose page limit it is).
    pub chunk_rows: i64,
    cursor: Option<Cursor>,
    done: bool,
}

#[derive(Debug, Clone)]
enum Cursor {
    /// The last row's time (ms) and id.
    Keyset(i64, String),
    /// The v2 read's own cursor.
    V2(String),
}

#[derive(Deserialize)]
struct Keyed {
    #[serde(rename = "_ms")]
    ms: i64,
}

impl<'a> Reader<'a> {
    pub fn new(
        clickhouse: &'a ClickHouse,
        project_id: &'a str,
        part: Part,
        window: (DateTime<Utc>, DateTime<Utc>),
        groups: &'a [FieldGroup],
    ) -> Self {
        Self {
            clickhouse,
            project_id,
            part,
            from: window.0,
            end: window.1,
            groups,
            view: ViewQuery::default(),
            chunk_rows: CHUNK_ROWS,
            cursor: None,
            done: false,
        }
    }

    /// The next chunk, `None` after the last.
    pub async fn next_chunk(&mut self) -> Result<Option<Vec<JsonRow>>> {
        if self.done {
            return Ok(None);
        }
        let rows = match self.part {
            Part::ObservationsV2 => self.v2_chunk().await?,
            Part::Traces => self.keyset_chunk(&latest::TRACES, "timestamp", TRACE_COLUMNS.to_vec()).await?,
            Part::Scores => self.keyset_chunk(&latest::SCORES, "timestamp", SCORE_COLUMNS.to_vec()).await?,
            Part::Observations => {
                let columns = legacy_observation_columns(self.groups);
                self.keyset_chunk(&latest::OBSERVATIONS, "start_time", columns).await?
            }
        };
        if rows.is_empty() {
            self.done = true;
            return Ok(None);
        }
        Ok(Some(rows))
    }

    async fn keyset_chunk(
        &mut self,
        table: &latest::Versioned,
        time: &str,
        columns: Vec<(&'static str, &'static str)>,
    ) -> Result<Vec<JsonRow>> {
        let mut conditions = vec![time_bound(time, ">=", self.from), time_bound(time, "<", self.end)];
        if let Some(Cursor::Keyset(ms, id)) = &self.cursor {
            let mut after = Sql::new(&format!("({time}, id) > (fromUnixTimestamp64Milli(toInt64("));
            after.bind(*ms).push(")), ").bind(id.as_str()).push(")");
            conditions.push(after);
        }
        let select: Vec<String> = columns.iter().map(|(name, sql)| format!("{sql} AS `{name}`")).collect();
        let mut sql =
            Sql::new(&format!("SELECT {}, toUnixTimestamp64Milli({time}) AS _ms FROM ", select.join(", ")));
        sql.append(&table.newest_matching(&project(self.project_id), &and(&conditions)))
            .push(&format!(" ORDER BY {time}, id LIMIT "))
            .bind(self.chunk_rows);
        let mut rows = sql.fetch_json(self.clickhouse).await?;
        if (rows.len() as i64) < self.chunk_rows {
            self.done = true;
        }
        if let Some(last) = rows.last() {
            let ms = serde_json::from_value::<Keyed>(serde_json::Value::Object(last.clone()))
                .map_err(|e| Error::Internal(format!("export cursor: {e}")))?
                .ms;
            let id = last.get("id").and_then(|v| v.as_str()).unwrap_or_default().to_owned();
            self.cursor = Some(Cursor::Keyset(ms, id));
        }
        for row in &mut rows {
            row.remove("_ms");
        }
        Ok(rows)
    }

    async fn v2_chunk(&mut self) -> Result<Vec<JsonRow>> {
        let iso = |at: DateTime<Utc>| at.to_rfc3339_opts(SecondsFormat::Millis, true);
        let fields: Vec<&str> =
            selected(self.groups).filter(|g| !v2_columns(*g).is_empty()).map(FieldGroup::as_str).collect();
        let mut pairs = vec![
            ("fields".to_owned(), fields.join(",")),
            ("fromStartTime".to_owned(), iso(self.from)),
            ("toStartTime".to_owned(), iso(self.end)),
            ("limit".to_owned(), self.chunk_rows.clamp(1, CHUNK_ROWS).to_string()),
        ];
        if let Some(Cursor::V2(cursor)) = &self.cursor {
            pairs.push(("cursor".to_owned(), cursor.clone()));
        }
        if let Some(filter) = &self.view.filter {
            pairs.push(("filter".to_owned(), filter.clone()));
        }
        let params = Params::from(pairs);
        let view = ViewOptions { search: self.view.search.as_deref(), ascending: true, ..Default::default() };
        let page =
            reads::observations::list_for_view(self.clickhouse, self.project_id, &params, view).await?;
        match page.meta.cursor {
            Some(cursor) => self.cursor = Some(Cursor::V2(cursor)),
            None => self.done = true,
        }
        page.data
            .into_iter()
            .map(|observation| match serde_json::to_value(observation) {
                Ok(serde_json::Value::Object(map)) => Ok(map),
                Ok(_) => Err(Error::Internal("an observation is not an object".into())),
                Err(e) => Err(Error::Internal(format!("an observation: {e}"))),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_choose_columns_and_core_is_always_there() {
        let v2 = Part::ObservationsV2.columns(&[FieldGroup::Io]);
        assert_eq!(
            v2,
            [
                "id",
                "traceId",
                "startTime",
                "endTime",
                "projectId",
                "parentObservationId",
                "type",
                "input",
                "output"
            ]
        );
        let legacy = Part::Observations.columns(&[FieldGroup::TraceContext]);
        assert_eq!(legacy.len(), 7, "trace_context has no v3 counterpart: {legacy:?}");
        assert!(Part::Observations.columns(&[]).contains(&"tool_calls".to_owned()), "none asked means all");
    }
}
