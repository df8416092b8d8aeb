//! `GET /api/public/v2/observations` on the events tables (reference/public-api.md §4.1,
//! reference/storage.md §8.1): field groups, the individual filters and the `filter` JSON, cursor pages.

mod body;
mod conditions;
mod trace_context;

use serde::{Deserialize, Serialize};
use storage::clickhouse::ClickHouse;

use crate::filter::{self, Column, Kind, col};
use crate::latest;
use crate::page::CursorPage;
use crate::render;
use crate::scores::v3::ScoreV3;
use crate::scores::{self, Attached};
use crate::sql::{Sql, all_of, and, equals, project};
use crate::{Params, ReadError, Result, cursor};
use body::Row;
pub use body::{
    ObservationBasic, ObservationIo, ObservationMetrics, ObservationModel, ObservationPrompt,
    ObservationTimes, ObservationTraceContext, ObservationUsage, ObservationV2,
};
use conditions::{
    check_io_filters, cursor_condition, io_search_condition, param_conditions, score_condition,
    search_condition,
};

/// The `fields` groups and the SELECT list each adds (camelCase keys, as sent).
const GROUPS: &[(&str, &str)] = &[
    (
        "core",
        "span_id AS id, trace_id AS traceId, toDateTime64(start_time, 3) AS startTime, \
         toDateTime64(end_time, 3) AS endTime, project_id AS projectId, \
         nullIf(parent_span_id, '') AS parentObservationId, type",
    ),
    (
        "basic",
        "name, level, nullIf(status_message, '') AS statusMessage, nullIf(version, '') AS version, \
         environment, bookmarked, public, nullIf(user_id, '') AS userId, nullIf(session_id, '') AS sessionId, \
         toBool(parent_span_id = '') AS isRootObservation",
    ),
    (
        "time",
        "toDateTime64(completion_start_time, 3) AS completionStartTime, \
         toDateTime64(created_at, 3) AS createdAt, toDateTime64(updated_at, 3) AS updatedAt",
    ),
    ("io", "nullIf(input, '') AS input, nullIf(output, '') AS output"),
    ("metadata", "mapFromArrays(metadata_names, metadata_values) AS metadata"),
    (
        "model",
        "nullIf(provided_model_name, '') AS providedModelName, nullIf(model_id, '') AS internalModelId, \
         nullIf(model_parameters, '') AS modelParameters",
    ),
    (
        "usage",
        "usage_details AS usageDetails, cost_details AS costDetails, \
         toFloat64(if(mapContains(cost_details, 'total'), cost_details['total'], calculated_total_cost)) AS totalCost, \
         usage_pricing_tier_name AS usagePricingTierName",
    ),
    (
        "prompt",
        "nullIf(prompt_id, '') AS promptId, nullIf(prompt_name, '') AS promptName, \
         nullIf(prompt_version, 0) AS promptVersion",
    ),
    (
        "metrics",
        "if(isNull(end_time), NULL, date_diff('millisecond', start_time, end_time) / 1000) AS latency, \
         if(isNull(completion_start_time), NULL, \
            date_diff('millisecond', start_time, completion_start_time) / 1000) AS timeToFirstToken",
    ),
    ("trace_context", "tags, nullIf(release, '') AS release, nullIf(trace_name, '') AS traceName"),
];

/// Groups beyond the reference's column groups. `scores`: the observation's scores (ScoreV3 with
/// their subject, newest first), and on a root observation its trace's own scores (spec/v4-migration-spec.md §1.4), as
/// the experiments API lists them; at most `scoreLimit` (1–50, default 50) of each.
const EXTRA_GROUPS: &[&str] = &["scores"];

const COLUMNS: &[Column] = &[
    col("id", "span_id", Kind::Text),
    col("type", "type", Kind::Text),
    col("name", "name", Kind::Text),
    col("traceId", "trace_id", Kind::Text),
    col("startTime", "start_time", Kind::DateTime),
    col("endTime", "end_time", Kind::DateTime),
    col("environment", "environment", Kind::Text),
    col("level", "level", Kind::Text),
    col("statusMessage", "status_message", Kind::Text),
    col("version", "version", Kind::Text),
    col("userId", "user_id", Kind::Text),
    col("sessionId", "session_id", Kind::Text),
    col("parentObservationId", "parent_span_id", Kind::Text),
    col("isRootObservation", "(parent_span_id = '')", Kind::Bool),
    col("traceName", "trace_name", Kind::Text),
    col("traceTags", "tags", Kind::Tags),
    col("tags", "tags", Kind::Tags),
    col("latency", "(date_diff('millisecond', start_time, end_time) / 1000)", Kind::Number),
    col(
        "timeToFirstToken",
        "(date_diff('millisecond', start_time, completion_start_time) / 1000)",
        Kind::Number,
    ),
    col(
        "tokensPerSecond",
        "(usage_details['output'] / nullIf(date_diff('millisecond', start_time, end_time) / 1000, 0))",
        Kind::Number,
    ),
    col("inputTokens", "usage_details['input']", Kind::Number),
    col("outputTokens", "usage_details['output']", Kind::Number),
    col("totalTokens", "usage_details['total']", Kind::Number),
    col("tokens", "usage_details['total']", Kind::Number),
    col("inputCost", "toFloat64(calculated_input_cost)", Kind::Number),
    col("outputCost", "toFloat64(calculated_output_cost)", Kind::Number),
    col("totalCost", "toFloat64(calculated_total_cost)", Kind::Number),
    col("model", "provided_model_name", Kind::Text),
    col("providedModelName", "provided_model_name", Kind::Text),
    col("promptName", "prompt_name", Kind::Text),
    col("promptVersion", "prompt_version", Kind::Number),
    col("input", "input", Kind::Text),
    col("output", "output", Kind::Text),
    col("metadata", "metadata", Kind::MetadataArrays),
    // Turned into subqueries on the scores table by `score_condition`.
    col("scores", "", Kind::Scores),
];

/// At most this many `scores` filters in one request (each is two subqueries on the scores).
pub const MAX_SCORE_FILTERS: usize = 5;

/// Query parameters that are shorthands for a filter on one column.
const PARAM_COLUMNS: &[(&str, &str)] = &[
    ("traceId", "trace_id"),
    ("type", "type"),
    ("name", "name"),
    ("userId", "user_id"),
    ("sessionId", "session_id"),
    ("level", "level"),
    ("version", "version"),
    ("parentObservationId", "parent_span_id"),
];

const MAX_LIMIT: i64 = 1000;
/// The API order (newest first); the cursor compares the same tuple.
const ORDER: &str = "start_time DESC, xxHash32(trace_id) DESC, span_id DESC";
/// The Observations view's other order: oldest first.
const ORDER_ASCENDING: &str = "start_time ASC, xxHash32(trace_id) ASC, span_id ASC";
const METADATA_PREVIEW_CHARS: usize = 200;

/// The position after the last row of a page.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cursor {
    /// Microsecond precision, so rows in the same millisecond are neither skipped nor repeated.
    last_start_time_to: String,
    last_trace_id: String,
    last_id: String,
    /// Set on a page read oldest first, so a cursor is never continued in the other order.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    ascending: bool,
}

/// A `search` is at most this many characters (the UI's search box).
pub const MAX_SEARCH_CHARS: usize = 200;

/// What the Observations view adds to a v2 page; the public route has none of it.
#[derive(Debug, Default, Clone, Copy)]
pub struct ViewOptions<'a> {
    /// The search box's text.
    pub search: Option<&'a str>,
    /// Search input and output (every word of the text, through their full-text indexes)
    /// instead of names and ids.
    pub search_io: bool,
    /// Oldest first instead of newest first.
    pub ascending: bool,
}

pub async fn list(
    clickhouse: &ClickHouse,
    project_id: &str,
    params: &Params,
) -> Result<CursorPage<ObservationV2>> {
    list_for_view(clickhouse, project_id, params, ViewOptions::default()).await
}

/// `list`, with the Observations view's options. The search keeps observations whose name
/// contains the text (any case), or whose id, trace id, user id or session id is the text: one OR
/// the `filter` JSON cannot say; the name test reads the `name` column of the rows the other
/// conditions leave, in time order, so the page's LIMIT bounds the work as for any other filter.
/// With `search_io` it keeps those whose input or output has every word of the text, which the
/// full-text indexes of `events_full` answer without reading the values.
pub async fn list_for_view(
    clickhouse: &ClickHouse,
    project_id: &str,
    params: &Params,
    view: ViewOptions<'_>,
) -> Result<CursorPage<ObservationV2>> {
    if params.bool("parseIoAsJson")? == Some(true) {
        return Err(ReadError::bad_request(
            "parseIoAsJson=true is no longer supported on the v2 observations endpoint. \
             Parse the input and output strings on the client instead.",
        ));
    }
    let limit = params.int("limit", 50, 1, MAX_LIMIT)?;
    let groups = groups(params);
    let score_limit =
        if groups.contains(&"scores") { Some(params.int("scoreLimit", 50, 1, 50)?) } else { None };
    let expand = params.list("expandMetadata");
    let filters = match params.get("filter") {
        Some(raw) => filter::parse(raw)?,
        None => Vec::new(),
    };
    let (score_filters, filters): (Vec<_>, Vec<_>) = filters.into_iter().partition(|f| f.column == "scores");
    if score_filters.len() > MAX_SCORE_FILTERS {
        return Err(ReadError::bad_request(format!("At most {MAX_SCORE_FILTERS} filters on `scores`")));
    }
    let search = view.search.map(str::trim).filter(|text| !text.is_empty());
    let full_text = check_io_filters(&filters)? || (view.search_io && search.is_some());
    // events_core keeps 200-character previews of input, output and metadata; the full values
    // live in events_full.
    let needs_full = full_text || groups.contains(&"io") || !expand.is_empty();
    let table = if needs_full { &latest::EVENTS_FULL } else { &latest::EVENTS_CORE };

    let mut matching = vec![filter::to_sql(&filters, COLUMNS)?];
    for score_filter in &score_filters {
        matching.push(score_condition(project_id, score_filter)?);
    }
    matching.extend(param_conditions(params, &filters)?);
    if let Some(text) = search {
        matching.push(if view.search_io { io_search_condition(text)? } else { search_condition(text)? });
    }
    let matching = and(&matching);
    let ascending = view.ascending;
    let cursor = match params.get("cursor") {
        Some(raw) => cursor_condition(cursor::decode(raw)?, ascending)?,
        None => Sql::default(),
    };

    let select: Vec<&str> =
        GROUPS.iter().filter(|(name, _)| groups.contains(name)).map(|(_, sql)| *sql).collect();
    let select = select.join(", ");
    let order = if ascending { ORDER_ASCENDING } else { ORDER };
    let page =
        Page { project_id, table, matching: &matching, cursor, select: &select, limit, order, ascending };
    let (rows, next) = match params.get("traceId") {
        Some(trace_id) => page.of_one_trace(clickhouse, trace_id).await?,
        None => page.by_candidates(clickhouse).await?,
    };
    let scores = match score_limit {
        Some(per_subject) => scores_of(clickhouse, project_id, per_subject, &rows).await?,
        None => Vec::new(),
    };
    let mut data: Vec<ObservationV2> = rows
        .into_iter()
        .map(|row| {
            let scores = groups.contains(&"scores").then(|| scores_for(&scores, &row));
            let mut observation = row.into_observation(&groups);
            observation.scores = scores;
            if let Some(metadata) = &mut observation.metadata {
                // Cut first, as events_core stores its previews: a cut value is no JSON and stays text.
                render::truncate_metadata(metadata, METADATA_PREVIEW_CHARS, &expand);
                render::parse_metadata_values(metadata);
            }
            observation
        })
        .collect();
    trace_context::resolve(clickhouse, project_id, &mut data).await?;
    Ok(CursorPage::new(data, next))
}

/// One page of observations: the project, the table to read, the conditions and the columns.
struct Page<'a> {
    project_id: &'a str,
    table: &'a latest::Versioned,
    matching: &'a Sql,
    cursor: Sql,
    select: &'a str,
    limit: i64,
    /// `ORDER` or `ORDER_ASCENDING`.
    order: &'static str,
    ascending: bool,
}

/// A page's key in API order (the candidates step).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate {
    id: String,
    trace_id: String,
    /// The start time with microseconds.
    #[serde(rename = "_t")]
    start_time: String,
}

impl Cursor {
    fn after(start_time: &str, trace_id: &str, id: &str, ascending: bool) -> Self {
        Self {
            last_start_time_to: start_time.to_owned(),
            last_trace_id: trace_id.to_owned(),
            last_id: id.to_owned(),
            ascending,
        }
    }
}

impl Page<'_> {
    /// The common case of one trace (`traceId`), in one query: the newest version of every span
    /// of the trace, then the filters and the cursor on those. Exact by the rules of `latest`,
    /// and a trace is small enough to collapse whole, where a project is not.
    async fn of_one_trace(
        self,
        clickhouse: &ClickHouse,
        trace_id: &str,
    ) -> Result<(Vec<Row>, Option<String>)> {
        let mut scope = project(self.project_id);
        scope.push(" AND ").append(&equals("trace_id", trace_id));
        // The conditions apply inside, where no SELECT alias (`version`, `input`…) shadows a column.
        let mut sql = Sql::new(&format!("SELECT {}, start_time AS _t FROM (SELECT * FROM ", self.select));
        sql.append(&self.table.newest_matching(&scope, &Sql::default()))
            .push(" WHERE ")
            .append(&all_of(&[self.matching.clone(), self.cursor]))
            .push(&format!(") ORDER BY {} LIMIT ", self.order))
            .bind(self.limit + 1);
        let mut rows: Vec<Row> = sql.fetch(clickhouse).await?;
        let next = cursor::cut_page(&mut rows, self.limit, |row| {
            Cursor::after(
                row.cursor_time.as_deref().unwrap_or_default(),
                &row.trace_id,
                &row.id,
                self.ascending,
            )
        });
        Ok((rows, next))
    }

    /// Any other page in two steps, so that a project's versions are never collapsed whole.
    async fn by_candidates(self, clickhouse: &ClickHouse) -> Result<(Vec<Row>, Option<String>)> {
        // 1. The page's keys, in API order: any version matching counts here…
        let mut candidates = Sql::new(&format!(
            "SELECT span_id AS id, trace_id AS traceId, start_time AS _t FROM {} WHERE ",
            self.table.table
        ));
        candidates
            .append(&all_of(&[project(self.project_id), self.matching.clone(), self.cursor]))
            .push(&format!(" ORDER BY {} LIMIT 1 BY span_id LIMIT ", self.order))
            .bind(self.limit + 1);
        let mut candidates: Vec<Candidate> = candidates.fetch(clickhouse).await?;
        let next = cursor::cut_page(&mut candidates, self.limit, |c| {
            Cursor::after(&c.start_time, &c.trace_id, &c.id, self.ascending)
        });
        if candidates.is_empty() {
            return Ok((Vec::new(), next));
        }
        // 2. …but only a newest version that still matches is shown. Versions share their start
        // time (it is in the sorting key), so the page's time span bounds the lookup.
        let times: Vec<&str> = candidates.iter().map(|c| c.start_time.as_str()).collect();
        let (first, last) = (
            times.iter().min().copied().unwrap_or_default(),
            times.iter().max().copied().unwrap_or_default(),
        );
        let mut scope = project(self.project_id);
        scope
            .push(" AND start_time BETWEEN parseDateTime64BestEffort(")
            .bind(first)
            .push(", 6) AND parseDateTime64BestEffort(")
            .bind(last)
            .push(", 6)");
        let keys = candidates.iter().map(|c| c.id.clone()).collect();
        let mut sql = Sql::new(&format!("SELECT {} FROM ", self.select));
        sql.append(&self.table.newest_of(&scope, keys, self.matching))
            .push(&format!(" ORDER BY {}", self.order));
        Ok((sql.fetch(clickhouse).await?, next))
    }
}

/// The requested groups; `core` always, `core,basic` by default, unknown names dropped.
fn groups(params: &Params) -> Vec<&'static str> {
    let asked = params.list("fields");
    let asked: Vec<&str> =
        if asked.is_empty() { vec!["basic"] } else { asked.iter().map(String::as_str).collect() };
    GROUPS
        .iter()
        .map(|(name, _)| *name)
        .chain(EXTRA_GROUPS.iter().copied())
        .filter(|name| *name == "core" || asked.contains(name))
        .collect()
}

/// The scores of a page's observations, and of the traces whose root observations are on it.
async fn scores_of(
    clickhouse: &ClickHouse,
    project_id: &str,
    per_subject: i64,
    rows: &[Row],
) -> Result<Vec<(Attached, ScoreV3)>> {
    let observations: Vec<String> = rows.iter().map(|row| row.id.clone()).collect();
    let roots: Vec<String> = rows.iter().filter(|row| is_root(row)).map(|row| row.trace_id.clone()).collect();
    if observations.is_empty() {
        return Ok(Vec::new());
    }
    scores::on_observations(clickhouse, project_id, observations, roots, per_subject, &["core", "subject"])
        .await
}

fn is_root(row: &Row) -> bool {
    row.parent_observation_id.is_none()
}

/// One observation's scores: its own, then on a root those of its trace, each newest first.
fn scores_for(scores: &[(Attached, ScoreV3)], row: &Row) -> Vec<ScoreV3> {
    let id = row.id.as_str();
    let trace = Some(row.trace_id.as_str()).filter(|_| is_root(row));
    let own = scores.iter().filter(|(on, _)| matches!(on, Attached::Observation(o) if o == id));
    let of_trace =
        scores.iter().filter(|(on, _)| matches!(on, Attached::Trace(t) if Some(t.as_str()) == trace));
    own.chain(of_trace).map(|(_, score)| score.clone()).collect()
}

/// The trace whose root observation `observation_id` is, if it is one: spec/v4-migration-spec.md §1.4 shows a trace's
/// scores and comments on its root observation. Virtual root spans (`t-<trace id>`, from v3 traces)
/// are roots by construction; any other id is a root when its stored span has no parent.
pub async fn root_of_trace(
    clickhouse: &ClickHouse,
    project_id: &str,
    observation_id: &str,
) -> Result<Option<String>> {
    if let Some(trace_id) = observation_id.strip_prefix("t-").filter(|id| !id.is_empty()) {
        return Ok(Some(trace_id.to_owned()));
    }
    let mut sql = Sql::new("SELECT trace_id FROM events_core WHERE ");
    sql.append(&all_of(&[project(project_id), equals("span_id", observation_id)]))
        .push(" AND parent_span_id = '' AND is_deleted = 0 LIMIT 1");
    #[derive(Deserialize)]
    struct Root {
        trace_id: String,
    }
    let rows: Vec<Root> = sql.fetch(clickhouse).await?;
    Ok(rows.into_iter().next().map(|root| root.trace_id))
}

#[cfg(test)]
mod tests;
