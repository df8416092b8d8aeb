//! `GET /api/public/sessions[/{id}]`: sessions are the `session_id`s of the v3 traces
//! (reference/public-api.md §4.7).

use serde::{Deserialize, Serialize};
use storage::clickhouse::ClickHouse;
use storage::clickhouse::NEWEST_BY_ID;
use utoipa::ToSchema;

use super::traces::{TRACE_COLUMNS, Trace, render_trace};
use crate::latest;
use crate::page::Paged;
use crate::params::PageRequest;
use crate::sql::{self, Sql, all_of, and, one_of, project, time_bound};
use crate::{Params, ReadError, Result};

/// A session: the traces sharing a `sessionId`, created with the first of them.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub id: String,
    pub created_at: String,
    pub project_id: String,
    pub environment: String,
}

/// A session read alone, with its traces (oldest first, not paged).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionWithTraces {
    #[serde(flatten)]
    pub session: Session,
    pub traces: Vec<Trace>,
}

pub async fn list(clickhouse: &ClickHouse, project_id: &str, params: &Params) -> Result<Paged<Session>> {
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
    let data: Vec<Session> = sql.fetch(clickhouse).await?;
    let mut sessions = Sql::new("(");
    sessions.append(&grouped).push(")");
    let total = sql::count_rows(clickhouse, &sessions).await?;
    Ok(page.page(data, total))
}

pub async fn get(clickhouse: &ClickHouse, project_id: &str, session_id: &str) -> Result<SessionWithTraces> {
    let mut sql = Sql::new(&format!("SELECT {TRACE_COLUMNS} FROM traces WHERE project_id = "));
    sql.bind(project_id).push(" AND session_id = ").bind(session_id).push(NEWEST_BY_ID);
    let rows: Vec<Trace> = sql.fetch(clickhouse).await?;
    let mut traces: Vec<Trace> = rows.into_iter().filter_map(render_trace).collect();
    traces.retain(|t| t.session_id.as_deref() == Some(session_id));
    traces.sort_by(|a, b| a.timestamp.cmp(&b.timestamp));
    let Some(first) = traces.first() else {
        return Err(ReadError::not_found("Session not found within authorized project"));
    };
    let session = Session {
        id: session_id.to_owned(),
        created_at: first.timestamp.clone(),
        project_id: project_id.to_owned(),
        environment: first.environment.clone(),
    };
    Ok(SessionWithTraces { session, traces })
}
