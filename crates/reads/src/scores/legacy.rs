//! The deprecated score reads: `GET /api/public/v2/scores[/{id}]` and the v1
//! `GET /api/public/scores[/{id}]` (reference/public-api.md §4.8), page-based.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use storage::clickhouse::ClickHouse;
use storage::clickhouse::NEWEST_BY_ID;
use utoipa::ToSchema;

use super::{SCORE_COLUMNS, ScoreRow, ScoreValue};
use crate::filter::{self, Column, Kind, col};
use crate::latest;
use crate::page::Paged;
use crate::params::PageRequest;
use crate::render::Num;
use crate::sql::{self, Sql, and, equals, one_of, project, time_bound};
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

/// A v2 Score or, without the `v2` keys, a v1 ScoreV1.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Score {
    pub id: String,
    pub project_id: String,
    pub name: String,
    pub source: String,
    pub timestamp: String,
    pub created_at: String,
    pub updated_at: String,
    pub environment: String,
    pub data_type: String,
    pub trace_id: Option<String>,
    pub observation_id: Option<String>,
    pub author_user_id: Option<String>,
    pub comment: Option<String>,
    pub config_id: Option<String>,
    pub queue_id: Option<String>,
    /// Each value parsed when it is JSON (`"0"` → 0), else the text it is (`render::metadata_value`).
    #[schema(value_type = Object)]
    pub metadata: Value,
    /// The number (1 or 0 for BOOLEAN, the category's number for CATEGORICAL); absent for the text
    /// kinds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Num>,
    /// The text of the text kinds, the label of BOOLEAN and CATEGORICAL; `null` for NUMERIC.
    pub string_value: Option<String>,
    /// v2 only.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub links: Option<ScoreLinks>,
    /// The score's trace, in the lists unless `fields` leaves out `trace`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<ScoreTrace>,
}

/// What a v2 score may be about besides a trace.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoreLinks {
    pub session_id: Option<String>,
    pub dataset_run_id: Option<String>,
    pub execution_trace_id: Option<String>,
}

/// The newest version of a score's trace, as the lists show it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoreTrace {
    #[serde(skip_serializing)]
    id: String,
    pub user_id: Option<String>,
    pub tags: Vec<String>,
    pub environment: String,
    pub session_id: Option<String>,
}

pub async fn list(
    clickhouse: &ClickHouse,
    project_id: &str,
    params: &Params,
    version: Version,
) -> Result<Paged<Score>> {
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
    let rows: Vec<ScoreRow> = sql.fetch(clickhouse).await?;
    let total = sql::count_rows(clickhouse, &latest).await?;

    let mut data: Vec<Score> = rows.into_iter().filter_map(|row| render_row(row, version)).collect();
    if with_trace {
        attach_traces(clickhouse, project_id, &mut data).await?;
    }
    Ok(page.page(data, total))
}

pub async fn get(clickhouse: &ClickHouse, project_id: &str, id: &str, version: Version) -> Result<Score> {
    let mut sql = Sql::new(&format!("SELECT {SCORE_COLUMNS} FROM scores WHERE project_id = "));
    sql.bind(project_id).push(" AND id = ").bind(id).push(" ORDER BY event_ts DESC LIMIT 1");
    let row = sql.fetch::<ScoreRow>(clickhouse).await?.into_iter().next();
    row.and_then(|row| render_row(row, version))
        .filter(|score| version == Version::V2 || score.trace_id.is_some())
        .ok_or_else(|| ReadError::not_found("Score not found within authorized project"))
}

/// A v2 Score (`value` absent for the text kinds, `stringValue` for them) or a v1 ScoreV1; `None`
/// for a deleted score.
fn render_row(mut row: ScoreRow, version: Version) -> Option<Score> {
    if row.deleted == 1 {
        return None;
    }
    let string_value = row.string_value.clone();
    // A category's numeric value (its config's; 0 without one).
    let number = row.value.as_ref().and_then(Num::as_f64).unwrap_or_default();
    let typed = row.typed_value();
    let (value, string_value) = match row.data_type.as_str() {
        "NUMERIC" => (typed_number(typed), None),
        "BOOLEAN" => {
            (Some(Num::float(if typed == ScoreValue::Boolean(true) { 1.0 } else { 0.0 })), string_value)
        }
        "CATEGORICAL" => (Some(Num::float(number)), typed_text(typed)),
        _ => (None, typed_text(typed)),
    };
    let links = (version == Version::V2).then(|| ScoreLinks {
        session_id: row.session_id.take(),
        dataset_run_id: row.dataset_run_id.take(),
        execution_trace_id: row.execution_trace_id.take(),
    });
    Some(Score {
        id: row.id,
        project_id: row.project_id,
        name: row.name,
        source: row.source,
        timestamp: row.timestamp,
        created_at: row.created_at,
        updated_at: row.updated_at,
        environment: row.environment,
        data_type: row.data_type,
        trace_id: row.trace_id,
        observation_id: row.observation_id,
        author_user_id: row.author_user_id,
        comment: row.comment,
        config_id: row.config_id,
        queue_id: row.queue_id,
        metadata: row.metadata,
        value,
        string_value,
        links,
        trace: None,
    })
}

fn typed_number(value: ScoreValue) -> Option<Num> {
    match value {
        ScoreValue::Number(n) => Some(n),
        _ => None,
    }
}

fn typed_text(value: ScoreValue) -> Option<String> {
    match value {
        ScoreValue::Text(text) => text,
        _ => None,
    }
}

/// Adds `trace: {userId, tags, environment, sessionId}` from the newest version of each trace.
async fn attach_traces(clickhouse: &ClickHouse, project_id: &str, scores: &mut [Score]) -> Result<()> {
    let ids: Vec<String> = scores.iter().filter_map(|s| s.trace_id.clone()).collect();
    if ids.is_empty() {
        return Ok(());
    }
    let mut sql = Sql::new(
        "SELECT id, user_id AS userId, tags, environment, session_id AS sessionId FROM traces \
         WHERE project_id = ",
    );
    sql.bind(project_id).push(" AND id IN ").bind(ids).push(NEWEST_BY_ID);
    let traces: Vec<ScoreTrace> = sql.fetch(clickhouse).await?;
    for score in scores.iter_mut() {
        let Some(trace_id) = score.trace_id.as_deref() else { continue };
        score.trace = traces.iter().find(|t| t.id == trace_id).cloned();
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
) -> Result<Vec<Score>> {
    let mut sql = Sql::new(&format!("SELECT {SCORE_COLUMNS} FROM scores WHERE project_id = "));
    sql.bind(project_id).push(" AND trace_id IN ").bind(trace_ids).push(NEWEST_BY_ID);
    let rows: Vec<ScoreRow> = sql.fetch(clickhouse).await?;
    Ok(rows.into_iter().filter_map(|row| render_row(row, version)).collect())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn score(extra: Value, version: Version) -> Value {
        let mut row = json!({"id": "s", "projectId": "p", "name": "n", "source": "API", "timestamp": "t",
            "environment": "default", "createdAt": "t", "updatedAt": "t", "dataType": "NUMERIC", "_value": 1,
            "_longStringValue": "", "metadata": {"k": "{\"a\":1}"}, "_deleted": 0, "traceId": "tr"});
        row.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let row: ScoreRow = serde_json::from_value(row).unwrap();
        serde_json::to_value(render_row(row, version).unwrap()).unwrap()
    }

    #[test]
    fn each_data_type_keeps_its_shape() {
        let numeric = score(json!({}), Version::V1);
        assert_eq!((&numeric["value"], &numeric["stringValue"]), (&json!(1), &Value::Null));
        assert_eq!(numeric["metadata"], json!({"k": {"a": 1}}));
        assert!(numeric.get("sessionId").is_none(), "v1 has no session: {numeric}");
        let boolean = score(json!({"dataType": "BOOLEAN", "_stringValue": "True"}), Version::V2);
        assert_eq!((&boolean["value"], &boolean["stringValue"]), (&json!(1.0), &json!("True")));
        assert_eq!(boolean["sessionId"], Value::Null, "v2 always has the key: {boolean}");
        let text = score(json!({"dataType": "TEXT", "_longStringValue": "long"}), Version::V2);
        assert!(text.get("value").is_none(), "{text}");
        assert_eq!(text["stringValue"], "long");
        let deleted: ScoreRow = serde_json::from_value(json!({"id": "s", "projectId": "p", "name": "n",
            "source": "API", "timestamp": "t", "environment": "e", "createdAt": "t", "updatedAt": "t",
            "dataType": "NUMERIC", "metadata": {}, "_deleted": 1}))
        .unwrap();
        assert!(render_row(deleted, Version::V2).is_none());
    }
}
