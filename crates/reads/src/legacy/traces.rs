//! `GET /api/public/traces` and `GET /api/public/traces/{id}` from the v3 `traces` table
//! (reference/public-api.md §4.5), with observation ids, score ids, latency and cost per trace.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use storage::clickhouse::ClickHouse;
use storage::clickhouse::NEWEST_BY_ID;
use utoipa::ToSchema;

use super::observations::{ObservationView, VIEW_COLUMNS, render_view};
use crate::filter::{self, Column, Kind, col};
use crate::latest;
use crate::page::Paged;
use crate::params::PageRequest;
use crate::render::{self, Num};
use crate::scores::legacy::{Score, Version, of_traces as scores_of_traces};
use crate::sql::{self, Sql, and, equals, one_of, project, time_bound};
use crate::{Params, ReadError, Result};

/// A Trace under its API keys.
pub(crate) const TRACE_COLUMNS: &str = "id, toDateTime64(timestamp, 3) AS timestamp, name, input, output, \
    session_id AS sessionId, release, version, user_id AS userId, metadata, tags, public, environment, \
    bookmarked, project_id AS projectId, toDateTime64(created_at, 3) AS createdAt, \
    toDateTime64(updated_at, 3) AS updatedAt, is_deleted AS _deleted";

const COLUMNS: &[Column] = &[
    col("id", "id", Kind::Text),
    col("timestamp", "timestamp", Kind::DateTime),
    col("name", "name", Kind::Text),
    col("userId", "ifNull(user_id, '')", Kind::Text),
    col("sessionId", "ifNull(session_id, '')", Kind::Text),
    col("release", "ifNull(release, '')", Kind::Text),
    col("version", "ifNull(version, '')", Kind::Text),
    col("environment", "environment", Kind::Text),
    col("tags", "tags", Kind::Tags),
    col("bookmarked", "bookmarked", Kind::Bool),
    col("public", "public", Kind::Bool),
    col("metadata", "metadata", Kind::MetadataMap),
];

const ORDER_FIELDS: &[(&str, &str)] = &[
    ("id", "id"),
    ("timestamp", "timestamp"),
    ("name", "name"),
    ("userId", "user_id"),
    ("release", "release"),
    ("version", "version"),
    ("public", "public"),
    ("bookmarked", "bookmarked"),
    ("sessionId", "session_id"),
];

const FIELD_GROUPS: &[&str] = &["core", "io", "scores", "observations", "metrics"];

/// A Trace: a row of [`TRACE_COLUMNS`] with its stored JSON parsed back (sessions embed it too).
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    pub id: String,
    pub timestamp: String,
    pub name: String,
    #[serde(deserialize_with = "render::de_json_text")]
    #[schema(value_type = Object, nullable)]
    pub input: Value,
    #[serde(deserialize_with = "render::de_json_text")]
    #[schema(value_type = Object, nullable)]
    pub output: Value,
    pub session_id: Option<String>,
    pub release: Option<String>,
    pub version: Option<String>,
    pub user_id: Option<String>,
    /// Each value parsed when it is JSON (`"0"` → 0), else the text it is (`render::metadata_value`).
    #[serde(deserialize_with = "render::de_metadata")]
    #[schema(value_type = Object)]
    pub metadata: Value,
    pub tags: Vec<String>,
    pub public: bool,
    pub environment: String,
    pub bookmarked: bool,
    pub project_id: String,
    pub created_at: String,
    pub updated_at: String,
    /// Always `null`: Langfuse no longer keeps one.
    #[serde(skip_deserializing)]
    pub external_id: Option<String>,
    #[serde(rename = "_deleted", skip_serializing)]
    deleted: u8,
}

/// A trace as listed: its observations and scores by id.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TraceSummary {
    #[serde(flatten)]
    pub trace: Trace,
    pub html_path: String,
    /// Seconds from the first start to the last end; `-1` without the `metrics` group.
    pub latency: Num,
    /// `-1` without the `metrics` group.
    pub total_cost: Num,
    pub observations: Vec<String>,
    pub scores: Vec<String>,
}

/// A trace read alone: its observations and scores in full.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TraceWithDetails {
    #[serde(flatten)]
    pub trace: Trace,
    pub html_path: String,
    pub latency: Num,
    pub total_cost: Num,
    pub observations: Vec<ObservationView>,
    pub scores: Vec<Score>,
    /// The media its input, output and metadata reference, filled by web.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Object>>)]
    pub media_references: Option<Vec<Value>>,
}

impl render::MediaFields for TraceWithDetails {
    fn media_field(&self, name: &str) -> Option<&Value> {
        match name {
            "input" => Some(&self.trace.input),
            "output" => Some(&self.trace.output),
            "metadata" => Some(&self.trace.metadata),
            _ => None,
        }
    }

    fn set_media_references(&mut self, references: Vec<Value>) {
        self.media_references = Some(references);
    }
}

/// Per trace: the ids of its observations, latency and total cost; or the ids of its scores.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TraceAggregate {
    trace_id: String,
    ids: Vec<String>,
    #[serde(default)]
    latency: Option<Num>,
    #[serde(default)]
    total_cost: Option<Num>,
}

pub async fn list(clickhouse: &ClickHouse, project_id: &str, params: &Params) -> Result<Paged<TraceSummary>> {
    let page = PageRequest::parse(params)?;
    let groups = field_groups(params)?;
    let latest = latest::TRACES.newest_matching(&project(project_id), &and(&conditions(params)?));
    let order = order_by(params.get("orderBy"))?;
    let mut sql = Sql::new(&format!("SELECT {TRACE_COLUMNS} FROM "));
    sql.append(&latest)
        .push(&format!(" ORDER BY {order} LIMIT "))
        .bind(page.limit)
        .push(" OFFSET ")
        .bind(page.offset());
    let rows: Vec<Trace> = sql.fetch(clickhouse).await?;
    let total = sql::count_rows(clickhouse, &latest).await?;

    let traces: Vec<Trace> = rows.into_iter().filter_map(render_trace).collect();
    let ids: Vec<String> = traces.iter().map(|t| t.id.clone()).collect();
    // Observation summaries feed only the `metrics` and `observations` groups.
    let summarised = groups.contains(&"metrics") || groups.contains(&"observations");
    let summaries = if summarised && !ids.is_empty() {
        summaries(clickhouse, project_id, ids.clone()).await?
    } else {
        Vec::new()
    };
    let score_ids = if groups.contains(&"scores") && !ids.is_empty() {
        score_ids(clickhouse, project_id, ids).await?
    } else {
        Vec::new()
    };
    let data = traces
        .into_iter()
        .map(|mut trace| {
            let summary = summaries.iter().find(|s| s.trace_id == trace.id);
            let (latency, total_cost) = if groups.contains(&"metrics") {
                let zero = || Num::float(0.0);
                let latency = summary.and_then(|s| s.latency.clone()).unwrap_or_else(zero);
                (latency, summary.and_then(|s| s.total_cost.clone()).unwrap_or_else(zero))
            } else {
                (Num::int(-1), Num::int(-1))
            };
            let observations = match summary {
                Some(summary) if groups.contains(&"observations") => summary.ids.clone(),
                _ => Vec::new(),
            };
            let scores = score_ids.iter().find(|s| s.trace_id == trace.id).map(|s| s.ids.clone());
            if !groups.contains(&"io") {
                (trace.input, trace.output) = (Value::Null, Value::Null);
            }
            TraceSummary {
                html_path: html_path(project_id, &trace.id),
                trace,
                latency,
                total_cost,
                observations,
                scores: scores.unwrap_or_default(),
            }
        })
        .collect();
    Ok(page.page(data, total))
}

/// A trace with its observations and scores: the trace, then its observations (with the trace's
/// latency and cost worked out beside them) and its scores together. Three statements, the last two
/// sent at once, so they run side by side; a missing trace costs only the first.
pub async fn get(clickhouse: &ClickHouse, project_id: &str, id: &str) -> Result<TraceWithDetails> {
    let mut sql = Sql::new(&format!("SELECT {TRACE_COLUMNS} FROM traces WHERE project_id = "));
    sql.bind(project_id).push(" AND id = ").bind(id).push(" ORDER BY event_ts DESC LIMIT 1");
    let trace = sql
        .fetch::<Trace>(clickhouse)
        .await?
        .into_iter()
        .next()
        .and_then(render_trace)
        .ok_or_else(|| ReadError::not_found(format!("Trace {id} not found within authorized project")))?;
    let ((observations, summary), scores) = futures::future::try_join(
        observations_with_summary(clickhouse, project_id, id),
        scores_of_traces(clickhouse, project_id, vec![id.to_owned()], Version::V1),
    )
    .await?;
    let zero = || Num::float(0.0);
    let (latency, total_cost) = summary.unwrap_or_else(|| (zero(), zero()));
    Ok(TraceWithDetails {
        html_path: html_path(project_id, &trace.id),
        trace,
        latency,
        total_cost,
        observations,
        scores,
        media_references: None,
    })
}

/// The live observations of one trace, oldest first, and the trace's latency and total cost over
/// them (as [`summaries`] works them out, here as window aggregates on every row); no summary when
/// the trace has no live observation.
async fn observations_with_summary(
    clickhouse: &ClickHouse,
    project_id: &str,
    trace_id: &str,
) -> Result<(Vec<ObservationView>, Option<(Num, Num)>)> {
    let mut sql = Sql::new(&format!(
        "SELECT {VIEW_COLUMNS}, \
         date_diff('millisecond', min(start_time) OVER (), max(coalesce(end_time, start_time)) OVER ()) / 1000 \
         AS _traceLatency, toFloat64(sum(ifNull(total_cost, 0)) OVER ()) AS _traceTotalCost \
         FROM (SELECT * FROM observations WHERE project_id = "
    ));
    sql.bind(project_id)
        .push(" AND trace_id = ")
        .bind(trace_id)
        .push(NEWEST_BY_ID)
        .push(") WHERE is_deleted = 0");
    let mut summary = None;
    let mut views = Vec::new();
    for mut row in sql.fetch_json(clickhouse).await? {
        let number = |value: Option<Value>| value.and_then(|v| serde_json::from_value::<Num>(v).ok());
        let (latency, cost) = (number(row.remove("_traceLatency")), number(row.remove("_traceTotalCost")));
        summary = summary.or(latency.zip(cost));
        let view: ObservationView = serde_json::from_value(Value::Object(row))
            .map_err(|e| ReadError::Internal(format!("engine row: {e}")))?;
        views.extend(render_view(view));
    }
    views.sort_by(|a, b| a.start_time.cmp(&b.start_time));
    Ok((views, summary))
}

/// The trace of a row; `None` when the newest version is a deletion.
pub(crate) fn render_trace(trace: Trace) -> Option<Trace> {
    (!render::is_deleted(&trace.deleted)).then_some(trace)
}

fn html_path(project_id: &str, trace_id: &str) -> String {
    format!("/project/{project_id}/traces/{trace_id}")
}

/// Per trace: the ids of its observations, latency (first start to last end, seconds) and total cost.
async fn summaries(
    clickhouse: &ClickHouse,
    project_id: &str,
    trace_ids: Vec<String>,
) -> Result<Vec<TraceAggregate>> {
    let mut sql = Sql::new(
        "SELECT trace_id AS traceId, groupArray(id) AS ids, \
         date_diff('millisecond', min(start_time), max(coalesce(end_time, start_time))) / 1000 AS latency, \
         toFloat64(sum(ifNull(total_cost, 0))) AS totalCost \
         FROM (SELECT id, trace_id, start_time, end_time, total_cost, is_deleted FROM observations \
               WHERE project_id = ",
    );
    sql.bind(project_id)
        .push(" AND trace_id IN ")
        .bind(trace_ids)
        .push(NEWEST_BY_ID)
        .push(") WHERE is_deleted = 0 GROUP BY trace_id");
    sql.fetch(clickhouse).await
}

async fn score_ids(
    clickhouse: &ClickHouse,
    project_id: &str,
    trace_ids: Vec<String>,
) -> Result<Vec<TraceAggregate>> {
    let mut sql = Sql::new(
        "SELECT trace_id AS traceId, groupArray(id) AS ids FROM (SELECT id, trace_id, is_deleted FROM scores \
         WHERE project_id = ",
    );
    sql.bind(project_id)
        .push(" AND trace_id IN ")
        .bind(trace_ids)
        .push(NEWEST_BY_ID)
        .push(") WHERE is_deleted = 0 GROUP BY trace_id");
    sql.fetch(clickhouse).await
}

fn field_groups(params: &Params) -> Result<Vec<&'static str>> {
    let asked = params.list("fields");
    if asked.is_empty() {
        return Ok(FIELD_GROUPS.to_vec());
    }
    let mut out = vec!["core"];
    for name in asked {
        let group = FIELD_GROUPS.iter().find(|g| **g == name).ok_or_else(|| {
            ReadError::bad_request(format!(
                "Unknown field group `{name}`. Must be one of: {}",
                FIELD_GROUPS.join(", ")
            ))
        })?;
        out.push(group);
    }
    Ok(out)
}

fn order_by(raw: Option<&str>) -> Result<String> {
    let Some(raw) = raw else { return Ok("timestamp DESC".into()) };
    let bad = || {
        ReadError::bad_request(format!(
            "Invalid orderBy `{raw}`: expected `<field>.<asc|desc>` with field one of {}",
            ORDER_FIELDS.iter().map(|(f, _)| *f).collect::<Vec<_>>().join(", ")
        ))
    };
    let (field, direction) = raw.split_once('.').ok_or_else(bad)?;
    let column = ORDER_FIELDS.iter().find(|(f, _)| *f == field).map(|(_, c)| *c).ok_or_else(bad)?;
    let direction = match direction {
        "asc" => "ASC",
        "desc" => "DESC",
        _ => return Err(bad()),
    };
    Ok(format!("{column} {direction}, id {direction}"))
}

fn conditions(params: &Params) -> Result<Vec<Sql>> {
    let mut out = Vec::new();
    if let Some(raw) = params.get("filter") {
        out.push(filter::to_sql(&filter::parse(raw)?, COLUMNS)?);
    }
    for (param, column) in [
        ("userId", "user_id"),
        ("name", "name"),
        ("sessionId", "session_id"),
        ("version", "version"),
        ("release", "release"),
    ] {
        if let Some(value) = params.get(param) {
            out.push(equals(column, value));
        }
    }
    let tags = params.list("tags");
    if !tags.is_empty() {
        let mut sql = Sql::new("hasAll(tags, ");
        sql.bind(tags).push(")");
        out.push(sql);
    }
    let environments = params.list("environment");
    if !environments.is_empty() {
        out.push(one_of("environment", environments));
    }
    for (param, op) in [("fromTimestamp", ">="), ("toTimestamp", "<")] {
        if let Some(at) = params.datetime(param)? {
            out.push(time_bound("timestamp", op, at));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_by_is_validated() {
        assert_eq!(order_by(None).unwrap(), "timestamp DESC");
        assert_eq!(order_by(Some("userId.asc")).unwrap(), "user_id ASC, id ASC");
        assert!(order_by(Some("input.asc")).is_err());
        assert!(order_by(Some("name.sideways")).is_err());
    }

    #[test]
    fn field_groups_default_to_all() {
        assert_eq!(field_groups(&Params::default()).unwrap(), FIELD_GROUPS);
        assert_eq!(field_groups(&Params::from_pairs([("fields", "io")])).unwrap(), ["core", "io"]);
        assert!(field_groups(&Params::from_pairs([("fields", "everything")])).is_err());
    }
}
