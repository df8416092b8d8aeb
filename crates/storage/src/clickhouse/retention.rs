//! The statements of a project's retention (docs/retention.md): which rows of a table are older
//! than a project's cutoff, their removal by lightweight `DELETE` one partition at a time, and whole
//! month partitions dropped when nothing in them is to be kept.
//!
//! The tables are [`PROJECT_TABLES`], the list project deletion walks; this module only adds the
//! column that dates a row in each. A cutoff travels as epoch milliseconds and is compared through
//! `fromUnixTimestamp64Milli`, so the server's time zone does not shift it.

use chrono::{DateTime, Utc};

use crate::Result;

use super::{ClickHouse, PROJECT_TABLES, Work};

/// The column that dates a row, per project table: the one its month partitions are cut by where
/// it has them, as upstream's retention reads them (observations and events by their start, traces
/// and scores by their timestamp, dataset run items by their creation). The staging table is dated
/// by the observation's start too, so a staged row older than the window is not propagated back
/// into `events_full` after it was cleared there.
const DATED_BY: &[(&str, &str)] = &[
    ("observations_batch_staging", "start_time"),
    ("events_full", "start_time"),
    ("events_core", "start_time"),
    ("observations", "start_time"),
    ("scores", "timestamp"),
    ("traces", "timestamp"),
    ("dataset_run_items_rmt", "created_at"),
];

/// Tables partitioned by `toYYYYMM(<dated column>)`: a partition id `YYYYMM` holds exactly the rows
/// of that month, so a whole month can be dropped. The staging table's partitions are 3-minute
/// windows of its insert time (and a 48-hour TTL drops them), dataset run items have none.
const MONTHLY: &[&str] = &["events_full", "events_core", "observations", "scores", "traces"];

/// The dating column of a project table.
pub fn dated_by(table: &str) -> &'static str {
    assert!(PROJECT_TABLES.contains(&table), "{table} is not a project table");
    DATED_BY
        .iter()
        .find(|(t, _)| *t == table)
        .map_or_else(|| unreachable!("every project table is dated"), |(_, c)| c)
}

pub fn monthly(table: &str) -> bool {
    MONTHLY.contains(&table)
}

fn millis(cutoff: DateTime<Utc>) -> i64 {
    cutoff.timestamp_millis()
}

#[derive(Debug, Clone, PartialEq, Eq, clickhouse::Row, serde::Deserialize)]
pub struct PartitionRows {
    pub partition_id: String,
    pub rows: u64,
}

/// The table's active partitions and the rows their parts hold (lightweight-deleted rows included
/// until a merge), from `system.parts`.
pub async fn partitions(ch: &ClickHouse, table: &str) -> Result<Vec<PartitionRows>> {
    let query = ch
        .client()
        .query(
            "SELECT partition_id, sum(rows) AS rows FROM system.parts \
             WHERE database = currentDatabase() AND table = ? AND active \
             GROUP BY partition_id ORDER BY partition_id",
        )
        .bind(table);
    ch.bounded(Work::Read, "system.parts", query.fetch_all()).await
}

#[derive(Debug, Clone, PartialEq, Eq, clickhouse::Row, serde::Deserialize)]
pub struct ProjectRows {
    pub project_id: String,
    pub rows: u64,
}

/// Which projects have live rows in one partition, and how many.
pub async fn partition_projects(
    ch: &ClickHouse,
    table: &str,
    partition_id: &str,
) -> Result<Vec<ProjectRows>> {
    assert!(PROJECT_TABLES.contains(&table), "{table} is not a project table");
    let sql = format!(
        "SELECT project_id, count() AS rows FROM {table} WHERE _partition_id = ? GROUP BY project_id ORDER BY project_id"
    );
    let query = ch.client().query(&sql).bind(partition_id);
    ch.bounded(Work::Read, table, query.fetch_all()).await
}

/// Drops a whole partition: instant, frees its disk at once. Dropping one already gone is not an
/// error (`DROP PARTITION ID` of an unknown id does nothing), so a repeat is safe.
pub async fn drop_partition(ch: &ClickHouse, table: &str, partition_id: &str) -> Result<()> {
    assert!(monthly(table), "{table} has no month partitions");
    let sql = format!("ALTER TABLE {table} DROP PARTITION ID ?");
    ch.bounded(Work::Write, table, ch.client().query(&sql).bind(partition_id).execute()).await
}

#[derive(Debug, Clone, PartialEq, Eq, clickhouse::Row, serde::Deserialize)]
pub struct Expired {
    pub partition_id: String,
    pub rows: u64,
}

/// A project's rows dated before `cutoff`, per partition (empty when there are none, so a pass with
/// nothing to remove issues no mutation at all).
pub async fn expired(
    ch: &ClickHouse,
    table: &str,
    project_id: &str,
    cutoff: DateTime<Utc>,
) -> Result<Vec<Expired>> {
    let column = dated_by(table);
    let sql = format!(
        "SELECT _partition_id AS partition_id, count() AS rows FROM {table} \
         WHERE project_id = ? AND {column} < fromUnixTimestamp64Milli(toInt64(?)) \
         GROUP BY partition_id ORDER BY partition_id"
    );
    let query = ch.client().query(&sql).bind(project_id).bind(millis(cutoff));
    ch.bounded(Work::Read, table, query.fetch_all()).await
}

/// Deletes a project's rows dated before `cutoff`, in one partition when `partition_id` is given
/// (one bounded mutation per month), and waits until the engine has applied it. Lightweight: the
/// rows are masked from every read at once and leave the disk with the next merge of their part.
pub async fn delete_expired(
    ch: &ClickHouse,
    table: &str,
    project_id: &str,
    cutoff: DateTime<Utc>,
    partition_id: Option<&str>,
) -> Result<()> {
    let column = dated_by(table);
    let within = if partition_id.is_some() { " IN PARTITION ID ?" } else { "" };
    let sql = format!(
        "DELETE FROM {table}{within} WHERE project_id = ? AND {column} < fromUnixTimestamp64Milli(toInt64(?))"
    );
    let mut query = ch.client().query(&sql);
    if let Some(partition) = partition_id {
        query = query.bind(partition);
    }
    let delete = query.bind(project_id).bind(millis(cutoff)).with_setting("lightweight_deletes_sync", "2");
    ch.bounded(Work::Bulk, table, delete.execute()).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_project_table_is_dated_and_monthly_tables_are_project_tables() {
        for table in PROJECT_TABLES {
            assert!(!dated_by(table).is_empty());
        }
        assert_eq!(DATED_BY.len(), PROJECT_TABLES.len());
        assert!(MONTHLY.iter().all(|t| PROJECT_TABLES.contains(t)));
        assert!(!monthly("observations_batch_staging") && !monthly("dataset_run_items_rmt"));
    }
}
