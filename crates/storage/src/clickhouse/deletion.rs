//! Deleting traces: every row that belongs to them, in both data models.
//!
//! Lightweight `DELETE` rather than `is_deleted` copies: a deletion is usually asked for because the
//! data must go (personal data, a leaked secret), and a deleted row is masked from every read at
//! once and removed from disk by the next merge of its part, whether or not the read uses FINAL.
//! `events_core` is filled by a materialized view from `events_full`, which does not carry
//! deletions, so it is deleted from on its own; the staging table too, or a partition waiting for
//! propagation would bring the trace back.

use crate::Result;

use super::{ClickHouse, StringList, Work};

/// Each table and the column that names a row's trace.
const TRACE_TABLES: &[(&str, &str)] = &[
    ("observations_batch_staging", "trace_id"),
    ("events_full", "trace_id"),
    ("events_core", "trace_id"),
    ("observations", "trace_id"),
    ("scores", "trace_id"),
    ("traces", "id"),
];

/// Deletes the traces with these ids from every table of the project, and waits until the engine
/// has applied it: once this returns, no read returns them. Deleting an unknown id is not an error,
/// so a retry after a failure part way is safe. The ids travel as query parameters, so any number
/// of them is one statement per table.
pub async fn delete_traces(ch: &ClickHouse, project_id: &str, trace_ids: &[String]) -> Result<()> {
    if trace_ids.is_empty() {
        return Ok(());
    }
    let ids = StringList::new("trace_ids", trace_ids);
    for (table, column) in TRACE_TABLES {
        // lightweight_deletes_sync = 2: the statement returns when every replica has applied it.
        let sql = format!("DELETE FROM {table} WHERE project_id = ? AND {column} IN {}", ids.sql());
        let delete =
            ids.bind(ch.client().query(&sql).bind(project_id)).with_setting("lightweight_deletes_sync", "2");
        ch.bounded(Work::Write, table, delete.execute()).await?;
    }
    Ok(())
}

/// Every table that holds a project's rows, in the order a project's data is removed: the staging
/// table first, so propagation cannot copy rows back into `events_full` after it is cleared.
pub const PROJECT_TABLES: &[&str] = &[
    "observations_batch_staging",
    "events_full",
    "events_core",
    "observations",
    "scores",
    "traces",
    "dataset_run_items_rmt",
];

/// Deletes all of a project's rows from `table` and waits until the engine has applied it. Deleting
/// from a table that has none is not an error, so a repeated step is safe.
pub async fn delete_project_rows(ch: &ClickHouse, table: &str, project_id: &str) -> Result<()> {
    assert!(PROJECT_TABLES.contains(&table), "{table} is not a project table");
    let sql = format!("DELETE FROM {table} WHERE project_id = ?");
    let delete = ch.client().query(&sql).bind(project_id).with_setting("lightweight_deletes_sync", "2");
    // A whole project can be many parts' worth of rows: the bulk bound, not a request's.
    ch.bounded(Work::Bulk, table, delete.execute()).await
}
