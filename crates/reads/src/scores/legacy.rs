//! The deprecated score reads: `GET /api/public/v2/scores[/{id}]` and the v1
//! `GET /api/public/scores[/{id}]` (reference/public-api.md §4.8), page-based.

use serde_json::{Map, Value, json};
use storage::clickhouse::ClickHouse;

use super::{SCORE_COLUMNS, typed_value};
use crate::filter::{self, Column, Kind, col};
use crate::latest;
use crate::params::PageRequest;
use crate::render::{self, take};
use crate::sql::{self, JsonRow, Sql, and, equals, one_of, project, time_bound};
use crate::{Params, ReadError, Result};

/// Which generation of the API: v1 scores always belong to a trace and carry no session or run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V1,
    V2,
}

const COLUMNS: &[Column] = &[
    col("id", "id", Kind::Text),
    col("name", "name", Kind::Text),
    col("source", "source", Kind::Text),
    col("dataType", "data_type", Kind::Text),
    col("value", "value", Kind::Number),
    col("stringValue", "ifNull(string_value, '')", Kind::Text),
    col("timestamp", "timestamp", Kind::DateTime),
    col("environment", "environment", Kind::Text),
    col("traceId", "ifNull(trace_id, '')", Kind::Text),
    col("observationId", "ifNull(observation_id, '')", Kind::Text),
    col("sessionId", "ifNull(session_id, '')", Kind::Text),
    col("configId", "ifNull(config_id, '')", Kind::Text),
    col("comment", "ifNull(comment, '')", Kind::Text),
    col("metadata", "metadata", Kind::MetadataMap),
];

pub async fn list(
    clickhouse: &ClickHouse,
    project_id: &str,
    params: &Params,
    version: Version,
) -> Result<Value> {
    let page = PageRequest::parse(params)?;
    let with_trace = params.list("fields").is_empty() || params.list("fields").iter().any(|f| f == "trace");
    let matching = and(&conditions_of(project_id, params, version)?);
    let latest = latest::SCORES.newest_matching(&project(project_id), &matching);
    let mut sql = Sql::new(&format!("SELECT {SCORE_COLUMNS} FROM "));
    sql.append(&latest)
        .push(" ORDER BY timestamp DESC, id DESC LIMIT ")
        .bind(page.limit)
        .push(" OFFSET ")
        .bind(page.offset());
    let rows = sql.fetch_json(clickhouse).await?;
    let total = sql::count_rows(clickhouse, &latest).await?;

    let mut data: Vec<Value> = rows.into_iter().filter_map(|row| render_row(row, version)).collect();
    if with_trace {
        attach_traces(clickhouse, project_id, &mut data).await?;
    }
    Ok(json!({ "data": data, "meta": page.meta(total) }))
}

pub async fn get(clickhouse: &ClickHouse, project_id: &str, id: &str, version: Version) -> Result<Value> {
    let mut sql = Sql::new(&format!("SELECT {SCORE_COLUMNS} FROM scores WHERE project_id = "));
    sql.bind(project_id).push(" AND id = ").bind(id).push(" ORDER BY event_ts DESC LIMIT 1");
    let row = sql.fetch_json(clickhouse).await?.into_iter().next();
    row.and_then(|row| render_row(row, version))
        .filter(|score| version == Version::V2 || !score["traceId"].is_null())
        .ok_or_else(|| ReadError::not_found("Score not found within authorized project"))
}

/// A v2 Score (`value` absent for TEXT, `stringValue` for the text kinds) or a v1 ScoreV1.
fn render_row(mut row: JsonRow, version: Version) -> Option<Value> {
    if take(&mut row, "_deleted").as_u64() == Some(1) {
        return None;
    }
    let data_type = row.get("dataType").and_then(Value::as_str).unwrap_or("NUMERIC").to_owned();
    let string_value = row.get("_stringValue").cloned().unwrap_or(Value::Null);
    // A category's numeric value (its config's; 0 without one).
    let number = row.get("_value").and_then(Value::as_f64).unwrap_or_default();
    let typed = typed_value(&mut row);
    let mut out = Map::new();
    for key in [
        "id",
        "projectId",
        "name",
        "source",
        "timestamp",
        "createdAt",
        "updatedAt",
        "environment",
        "dataType",
        "traceId",
        "observationId",
        "authorUserId",
        "comment",
        "configId",
        "queueId",
    ] {
        out.insert(key.into(), take(&mut row, key));
    }
    out.insert("metadata".into(), render::metadata_values(take(&mut row, "metadata")));
    match data_type.as_str() {
        "NUMERIC" => {
            out.insert("value".into(), typed);
            out.insert("stringValue".into(), Value::Null);
        }
        "BOOLEAN" => {
            out.insert("value".into(), json!(if typed == Value::Bool(true) { 1.0 } else { 0.0 }));
            out.insert("stringValue".into(), string_value);
        }
        "CATEGORICAL" => {
            out.insert("value".into(), json!(number));
            out.insert("stringValue".into(), typed);
        }
        _ => {
            out.insert("stringValue".into(), typed);
        }
    }
    if version == Version::V2 {
        for key in ["sessionId", "datasetRunId", "executionTraceId"] {
            out.insert(key.into(), take(&mut row, key));
        }
    }
    Some(Value::Object(out))
}

/// Adds `trace: {userId, tags, environment, sessionId}` from the newest version of each trace.
async fn attach_traces(clickhouse: &ClickHouse, project_id: &str, scores: &mut [Value]) -> Result<()> {
    let ids: Vec<String> = scores.iter().filter_map(|s| s["traceId"].as_str().map(str::to_owned)).collect();
    if ids.is_empty() {
        return Ok(());
    }
    let mut sql = Sql::new(
        "SELECT id, user_id AS userId, tags, environment, session_id AS sessionId FROM traces \
         WHERE project_id = ",
    );
    sql.bind(project_id).push(" AND id IN ").bind(ids).push(" ORDER BY event_ts DESC LIMIT 1 BY id");
    let traces = sql.fetch_json(clickhouse).await?;
    for score in scores.iter_mut() {
        let Some(trace_id) = score["traceId"].as_str() else { continue };
        if let Some(trace) = traces.iter().find(|t| t["id"].as_str() == Some(trace_id)) {
            let mut trace = trace.clone();
            trace.remove("id");
            score["trace"] = Value::Object(trace);
        }
    }
    Ok(())
}

fn conditions_of(project_id: &str, params: &Params, version: Version) -> Result<Vec<Sql>> {
    let mut out = Vec::new();
    if version == Version::V1 {
        out.push(Sql::new("trace_id IS NOT NULL"));
    }
    if let Some(raw) = params.get("filter") {
        out.push(filter::to_sql(&filter::parse(raw)?, COLUMNS)?);
    }
    let mut single = vec![
        ("name", "name"),
        ("source", "source"),
        ("configId", "config_id"),
        ("queueId", "queue_id"),
        ("dataType", "data_type"),
    ];
    if version == Version::V2 {
        single.extend([
            ("sessionId", "session_id"),
            ("datasetRunId", "dataset_run_id"),
            ("traceId", "trace_id"),
        ]);
    }
    for (param, column) in single {
        if let Some(value) = params.get(param) {
            out.push(equals(column, value));
        }
    }
    for (param, column) in
        [("scoreIds", "id"), ("environment", "environment"), ("observationId", "observation_id")]
    {
        let values = params.list(param);
        if !values.is_empty() && (version == Version::V2 || param != "observationId") {
            out.push(one_of(column, values));
        }
    }
    if let Some(value) = params.float("value")? {
        let op = match params.get("operator").unwrap_or("=") {
            op @ ("<" | ">" | "<=" | ">=" | "=" | "!=") => op.to_owned(),
            other => {
                return Err(ReadError::bad_request(format!(
                    "Invalid operator `{other}`. Must be one of <, >, <=, >=, !=, ="
                )));
            }
        };
        let mut sql = Sql::new(&format!("value {op} "));
        sql.bind(value);
        out.push(sql);
    }
    for (param, op) in [("fromTimestamp", ">="), ("toTimestamp", "<")] {
        if let Some(at) = params.datetime(param)? {
            out.push(time_bound("timestamp", op, at));
        }
    }
    // userId and traceTags are properties of the trace: the scores of matching traces.
    let user = params.get("userId");
    let tags = params.list("traceTags");
    if user.is_some() || !tags.is_empty() {
        let mut sql = Sql::new("trace_id IN (SELECT id FROM traces WHERE project_id = ");
        sql.bind(project_id);
        if let Some(user) = user {
            sql.push(" AND user_id = ").bind(user);
        }
        if !tags.is_empty() {
            sql.push(" AND hasAll(tags, ").bind(tags).push(")");
        }
        sql.push(")");
        out.push(sql);
    }
    Ok(out)
}

/// The scores of some traces (for a trace's full details), newest version of each.
pub(crate) async fn of_traces(
    clickhouse: &ClickHouse,
    project_id: &str,
    trace_ids: Vec<String>,
    version: Version,
) -> Result<Vec<Value>> {
    let mut sql = Sql::new(&format!("SELECT {SCORE_COLUMNS} FROM scores WHERE project_id = "));
    sql.bind(project_id)
        .push(" AND trace_id IN ")
        .bind(trace_ids)
        .push(" ORDER BY event_ts DESC LIMIT 1 BY id");
    Ok(sql.fetch_json(clickhouse).await?.into_iter().filter_map(|row| render_row(row, version)).collect())
}
