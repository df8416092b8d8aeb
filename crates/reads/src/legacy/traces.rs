//! `GET /api/public/traces` and `GET /api/public/traces/{id}` from the v3 `traces` table
//! (reference/public-api.md §4.5), with observation ids, score ids, latency and cost per trace.

use serde_json::{Map, Value, json};
use storage::clickhouse::ClickHouse;

use super::observations::of_traces;
use crate::filter::{self, Column, Kind, col};
use crate::latest;
use crate::params::PageRequest;
use crate::render::{self, take};
use crate::scores::legacy::{Version, of_traces as scores_of_traces};
use crate::sql::{self, JsonRow, Sql, and, equals, one_of, project, time_bound};
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

pub async fn list(clickhouse: &ClickHouse, project_id: &str, params: &Params) -> Result<Value> {
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
    let rows = sql.fetch_json(clickhouse).await?;
    let total = sql::count_rows(clickhouse, &latest).await?;

    let mut traces: Vec<Map<String, Value>> = rows.into_iter().filter_map(render_trace).collect();
    let ids: Vec<String> = traces.iter().filter_map(|t| t["id"].as_str().map(str::to_owned)).collect();
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
    for trace in &mut traces {
        let id = trace["id"].as_str().unwrap_or_default().to_owned();
        let summary = summaries.iter().find(|s| s["traceId"].as_str() == Some(&id));
        let get = |k: &str| summary.and_then(|s| s.get(k)).cloned();
        add_details(trace, project_id);
        if groups.contains(&"metrics") {
            trace.insert("latency".into(), get("latency").unwrap_or(json!(0.0)));
            trace.insert("totalCost".into(), get("totalCost").unwrap_or(json!(0.0)));
        } else {
            trace.insert("latency".into(), json!(-1));
            trace.insert("totalCost".into(), json!(-1));
        }
        let observations = if groups.contains(&"observations") { get("ids") } else { None };
        trace.insert("observations".into(), observations.unwrap_or(json!([])));
        let scores = score_ids.iter().find(|s| s["traceId"].as_str() == Some(&id)).map(|s| s["ids"].clone());
        trace.insert("scores".into(), scores.unwrap_or(json!([])));
        if !groups.contains(&"io") {
            trace.insert("input".into(), Value::Null);
            trace.insert("output".into(), Value::Null);
        }
    }
    Ok(json!({ "data": traces, "meta": page.meta(total) }))
}

pub async fn get(clickhouse: &ClickHouse, project_id: &str, id: &str) -> Result<Value> {
    let mut sql = Sql::new(&format!("SELECT {TRACE_COLUMNS} FROM traces WHERE project_id = "));
    sql.bind(project_id).push(" AND id = ").bind(id).push(" ORDER BY event_ts DESC LIMIT 1");
    let mut trace = sql
        .fetch_json(clickhouse)
        .await?
        .into_iter()
        .next()
        .and_then(render_trace)
        .ok_or_else(|| ReadError::not_found(format!("Trace {id} not found within authorized project")))?;
    let observations = of_traces(clickhouse, project_id, vec![id.to_owned()]).await?;
    let scores = scores_of_traces(clickhouse, project_id, vec![id.to_owned()], Version::V1).await?;
    let summary = summaries(clickhouse, project_id, vec![id.to_owned()]).await?;
    add_details(&mut trace, project_id);
    let get = |k: &str| summary.first().and_then(|s| s.get(k)).cloned().unwrap_or(json!(0.0));
    trace.insert("latency".into(), get("latency"));
    trace.insert("totalCost".into(), get("totalCost"));
    trace.insert("observations".into(), Value::Array(observations));
    trace.insert("scores".into(), Value::Array(scores));
    Ok(Value::Object(trace))
}

/// The plain Trace object (sessions embed it too).
pub(crate) fn render_trace(mut row: JsonRow) -> Option<Map<String, Value>> {
    if take(&mut row, "_deleted").as_u64() == Some(1) {
        return None;
    }
    render::parse_json_keys(&mut row, &["input", "output"]);
    let metadata = render::metadata_values(take(&mut row, "metadata"));
    row.insert("metadata".into(), metadata);
    row.insert("externalId".into(), Value::Null);
    Some(row)
}

fn add_details(trace: &mut Map<String, Value>, project_id: &str) {
    let id = trace["id"].as_str().unwrap_or_default();
    let path = format!("/project/{project_id}/traces/{id}");
    trace.insert("htmlPath".into(), Value::String(path));
}

/// Per trace: the ids of its observations, latency (first start to last end, seconds) and total cost.
async fn summaries(
    clickhouse: &ClickHouse,
    project_id: &str,
    trace_ids: Vec<String>,
) -> Result<Vec<JsonRow>> {
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
        .push(" ORDER BY event_ts DESC LIMIT 1 BY id) WHERE is_deleted = 0 GROUP BY trace_id");
    sql.fetch_json(clickhouse).await
}

async fn score_ids(
    clickhouse: &ClickHouse,
    project_id: &str,
    trace_ids: Vec<String>,
) -> Result<Vec<JsonRow>> {
    let mut sql = Sql::new(
        "SELECT trace_id AS traceId, groupArray(id) AS ids FROM (SELECT id, trace_id, is_deleted FROM scores \
         WHERE project_id = ",
    );
    sql.bind(project_id)
        .push(" AND trace_id IN ")
        .bind(trace_ids)
        .push(" ORDER BY event_ts DESC LIMIT 1 BY id) WHERE is_deleted = 0 GROUP BY trace_id");
    sql.fetch_json(clickhouse).await
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
