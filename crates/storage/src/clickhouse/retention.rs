//! The statements of a project's retention (docs/retention.md): which rows of a table are older
//! than a project's cutoff, their removal by lightweight `DELETE` one partition at a time, and whole
//! month partitions dropped when nothing in them is to be kept — moved into a holding table first,
//! so rows written into the month after the check are looked at again before anything is lost.
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
    projects_in(ch, table, partition_id).await
}

async fn projects_in(ch: &ClickHouse, table: &str, partition_id: &str) -> Result<Vec<ProjectRows>> {
    let sql = format!(
        "SELECT project_id, count() AS rows FROM {table} WHERE _partition_id = ? GROUP BY project_id ORDER BY project_id"
    );
    let query = ch.client().query(&sql).bind(partition_id);
    ch.bounded(Work::Read, table, query.fetch_all()).await
}

/// Where a month partition waits while retention drops it: a table of the same structure, engine
/// and partition key as `table` (what `MOVE PARTITION` needs), empty between drops.
pub fn holding_table(table: &str) -> String {
    assert!(monthly(table), "{table} has no month partitions");
    format!("{table}_retention_hold")
}

/// Creates `table`'s holding table if it is not there yet.
pub async fn create_holding_table(ch: &ClickHouse, table: &str) -> Result<()> {
    let on_cluster = ch.cluster().map(|c| format!(" ON CLUSTER {c}")).unwrap_or_default();
    let sql = format!("CREATE TABLE IF NOT EXISTS {}{on_cluster} AS {table}", holding_table(table));
    ch.bounded(Work::Write, table, ch.client().query(&sql).execute()).await
}

/// The partitions waiting in `table`'s holding table (none when it does not exist): left there by a
/// drop that stopped half-way.
pub async fn held_partitions(ch: &ClickHouse, table: &str) -> Result<Vec<PartitionRows>> {
    partitions(ch, &holding_table(table)).await
}

/// Moves a whole partition (its parts, at once) into the holding table. Rows inserted into the
/// month after this land in new parts of `table` and stay there.
pub async fn move_to_holding(ch: &ClickHouse, table: &str, partition_id: &str) -> Result<()> {
    let sql = format!("ALTER TABLE {table} MOVE PARTITION ID ? TO TABLE {}", holding_table(table));
    ch.bounded(Work::Write, table, ch.client().query(&sql).bind(partition_id).execute()).await
}

/// Which projects have live rows in a held partition, and how many.
pub async fn held_projects(ch: &ClickHouse, table: &str, partition_id: &str) -> Result<Vec<ProjectRows>> {
    projects_in(ch, &holding_table(table), partition_id).await
}

/// Copies the rows of `projects` in a held partition back into `table`. After a crash between this
/// and [`drop_held`], a repeat copies them again: the tables are ReplacingMergeTrees on
/// `(event_ts, is_deleted)` and the copies are identical, so they collapse into one.
pub async fn copy_back(ch: &ClickHouse, table: &str, partition_id: &str, projects: &[String]) -> Result<()> {
    let sql = format!(
        "INSERT INTO {table} SELECT * FROM {} WHERE _partition_id = ? AND has(?, project_id)",
        holding_table(table)
    );
    let query = ch.client().query(&sql).bind(partition_id).bind(projects);
    ch.bounded(Work::Bulk, table, query.execute()).await
}

/// Drops a held partition: what was not copied back is gone.
pub async fn drop_held(ch: &ClickHouse, table: &str, partition_id: &str) -> Result<()> {
    let sql = format!("ALTER TABLE {} DROP PARTITION ID ?", holding_table(table));
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
