//! `GET /api/public/sessions[/{id}]`: sessions are the `session_id`s of the v3 traces
//! (reference/public-api.md §4.7).

use serde_json::{Value, json};
use storage::clickhouse::ClickHouse;

use super::traces::{TRACE_COLUMNS, render_trace};
use crate::latest;
use crate::params::PageRequest;
use crate::sql::{self, Sql, all_of, and, one_of, project, time_bound};
use crate::{Params, ReadError, Result};

pub async fn list(clickhouse: &ClickHouse, project_id: &str, params: &Params) -> Result<Value> {
    let page = PageRequest::parse(params)?;
    let mut conditions = vec![Sql::new("session_id IS NOT NULL")];
    let environments = params.list("environment");
    if !environments.is_empty() {
        conditions.push(one_of("environment", environments));
    }
    let mut having = Vec::new();
    for (param, op) in [("fromTimestamp", ">="), ("toTimestamp", "<")] {
        if let Some(at) = params.datetime(param)? {
            having.push(time_bound("createdAt", op, at));
        }
    }
    let sessions = latest::TRACES.newest_matching(&project(project_id), &and(&conditions));
    let mut grouped = Sql::new(
        "SELECT session_id AS id, toDateTime64(min(timestamp), 3) AS createdAt, any(project_id) AS projectId, \
         any(environment) AS environment FROM ",
    );
    grouped
        .append(&sessions)
        .push(" WHERE is_deleted = 0 GROUP BY session_id HAVING ")
        .append(&all_of(&having));
    let mut sql = Sql::new("SELECT * FROM (");
    sql.append(&grouped)
        .push(") ORDER BY createdAt DESC, id DESC LIMIT ")
        .bind(page.limit)
        .push(" OFFSET ")
        .bind(page.offset());
    let data = sql.fetch_json(clickhouse).await?;
    let mut sessions = Sql::new("(");
    sessions.append(&grouped).push(")");
    let total = sql::count_rows(clickhouse, &sessions).await?;
    Ok(json!({ "data": data, "meta": page.meta(total) }))
}

pub async fn get(clickhouse: &ClickHouse, project_id: &str, session_id: &str) -> Result<Value> {
    let mut sql = Sql::new(&format!("SELECT {TRACE_COLUMNS} FROM traces WHERE project_id = "));
    sql.bind(project_id)
        .push(" AND session_id = ")
        .bind(session_id)
        .push(" ORDER BY event_ts DESC LIMIT 1 BY id");
    let mut traces: Vec<_> = sql.fetch_json(clickhouse).await?.into_iter().filter_map(render_trace).collect();
    traces.retain(|t| t.get("sessionId").and_then(Value::as_str) == Some(session_id));
    if traces.is_empty() {
        return Err(ReadError::not_found("Session not found within authorized project"));
    }
    traces.sort_by(|a, b| a["timestamp"].as_str().cmp(&b["timestamp"].as_str()));
    let first = &traces[0];
    Ok(json!({
        "id": session_id,
        "createdAt": first["timestamp"],
        "projectId": project_id,
        "environment": first["environment"],
        "traces": traces,
    }))
}
