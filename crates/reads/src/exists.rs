//! Whether a trace, observation or session exists in a project, for writes that attach something
//! to one (comments). Both data models are asked: the v3 tables hold what `legacy` and `dual` wrote
//! and what the backfill has not copied yet; the events hold what `events_only` and direct v4
//! writes produced, and the `t-<trace id>` root spans. Each question is one `LIMIT 1` point query
//! per table, answered as soon as any row matches.

use storage::clickhouse::ClickHouse;

use crate::Result;
use crate::sql::{Sql, all_of, equals, project};

/// A ClickHouse-kept object a client can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Object {
    Trace,
    Observation,
    Session,
}

impl Object {
    /// The (table, id column) pairs where the object may live.
    fn places(self) -> [(&'static str, &'static str); 2] {
        match self {
            Self::Trace => [("traces", "id"), ("events_core", "trace_id")],
            Self::Observation => [("observations", "id"), ("events_core", "span_id")],
            Self::Session => [("traces", "session_id"), ("events_core", "session_id")],
        }
    }
}

pub async fn exists(clickhouse: &ClickHouse, project_id: &str, object: Object, id: &str) -> Result<bool> {
    let mut sql = Sql::new("SELECT count() AS found FROM (");
    for (index, (table, column)) in object.places().into_iter().enumerate() {
        if index > 0 {
            sql.push(" UNION ALL ");
        }
        sql.push(&format!("(SELECT 1 FROM {table} WHERE "))
            .append(&all_of(&[project(project_id), equals(column, id)]))
            .push(" LIMIT 1)");
    }
    sql.push(")");
    let rows = sql.fetch_json(clickhouse).await?;
    let found = rows.first().and_then(|row| row.get("found")).and_then(serde_json::Value::as_u64);
    Ok(found.unwrap_or_default() > 0)
}
