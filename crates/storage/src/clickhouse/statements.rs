//! The one way statements reach ClickHouse: each kind of work gets its time bound here, so no insert
//! or query can hang a worker or a request on a stalled server, and a timeout is always reported the
//! same way (as unavailable: the caller retries).
//!
//! Also the statement shape that repeats most: a table's newest version of each row
//! (`ORDER BY event_ts DESC LIMIT 1 BY <key>`), which every read of a ReplacingMergeTree uses
//! instead of FINAL (see `reads::latest` for the rules built on it).

use std::future::Future;
use std::time::Duration;

use clickhouse::RowOwned;
use clickhouse::RowWrite;

use super::ClickHouse;
use crate::{Error, ErrorKind, Result};

/// What a statement does, which decides how long it may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// A read answering an API request or feeding a write (the newest versions to merge onto).
    Read,
    /// An insert of a batch of rows, or a small write statement (a deletion, a copied version).
    Write,
    /// A bulk `INSERT … SELECT` of the migration jobs, bounded by its chunk size instead.
    Bulk,
}

impl Work {
    pub fn timeout(self) -> Duration {
        match self {
            Self::Read | Self::Write => Duration::from_secs(60),
            Self::Bulk => Duration::from_secs(30 * 60),
        }
    }

    /// Its label in `loupe_clickhouse_statements_total`.
    fn label(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Bulk => "bulk",
        }
    }

    fn verb(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Bulk => "bulk copy",
        }
    }
}

impl ClickHouse {
    /// Runs one statement's future within the time bound of its kind of work. `what` names it in the
    /// error (a table, a job step). Counted by kind of work: the statements a request or a flush
    /// sends one after another add up to its latency.
    pub async fn bounded<T>(
        &self,
        work: Work,
        what: &str,
        statement: impl Future<Output = std::result::Result<T, clickhouse::error::Error>>,
    ) -> Result<T> {
        metrics::counter!("loupe_clickhouse_statements_total", "work" => work.label()).increment(1);
        self.bounded_by(work.timeout(), work.verb(), what, statement).await
    }

    /// [`Self::bounded`] with an explicit bound, for tests that cannot wait a minute.
    #[doc(hidden)]
    pub async fn bounded_by<T>(
        &self,
        limit: Duration,
        verb: &str,
        what: &str,
        statement: impl Future<Output = std::result::Result<T, clickhouse::error::Error>>,
    ) -> Result<T> {
        match tokio::time::timeout(limit, statement).await {
            Ok(result) => result.map_err(Error::from),
            Err(_) => Err(Error::new(
                ErrorKind::Unavailable,
                format!("clickhouse {verb} of {what} timed out after {} ms", limit.as_millis()),
            )),
        }
    }

    /// Inserts `rows` into `table` in one request (callers batch: ClickHouse wants few, large
    /// inserts), within the write bound. Nothing is sent for no rows. Rows that borrow from their
    /// records stream through `bounded` with their own write loop instead, so they are converted
    /// one at a time rather than collected.
    pub async fn insert_rows<T: RowOwned + RowWrite>(&self, table: &str, rows: Vec<T>) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let insert = async {
            let mut insert = self.client().insert::<T>(table).await?;
            for row in rows {
                insert.write(&row).await?;
            }
            insert.end().await
        };
        self.bounded(Work::Write, table, insert).await
    }
}

/// The clause that keeps the newest version of each row of a ReplacingMergeTree whose rows share
/// `key`: the one spelling of the rule, used wherever a read collapses versions without FINAL.
pub fn newest_by(key: &str) -> String {
    format!(" ORDER BY event_ts DESC LIMIT 1 BY {key}")
}

/// [`newest_by`]`("id")`, for templates and literals: traces, observations, scores, run items.
pub const NEWEST_BY_ID: &str = " ORDER BY event_ts DESC LIMIT 1 BY id";
/// [`newest_by`]`("span_id")`: the events tables.
pub const NEWEST_BY_SPAN_ID: &str = " ORDER BY event_ts DESC LIMIT 1 BY span_id";

/// `SELECT <columns> FROM <table> WHERE <filter> ORDER BY event_ts DESC LIMIT 1 BY <key>`: the
/// newest version of each row the filter finds, deleted versions included (callers decide whether
/// a deletion hides the row or is what they look for).
pub fn newest_versions(columns: &str, table: &str, filter: &str, key: &str) -> String {
    format!("SELECT {columns} FROM {table} WHERE {filter}{}", newest_by(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_copies_get_longer_than_requests() {
        assert!(Work::Bulk.timeout() > Work::Read.timeout());
        assert_eq!(Work::Read.timeout(), Work::Write.timeout());
    }

    #[test]
    fn the_constants_spell_the_same_clause() {
        assert_eq!(NEWEST_BY_ID, newest_by("id"));
        assert_eq!(NEWEST_BY_SPAN_ID, newest_by("span_id"));
    }

    #[test]
    fn newest_versions_collapse_by_key_newest_first() {
        assert_eq!(
            newest_versions("?fields", "traces", "project_id = ? AND id IN ?", "id"),
            "SELECT ?fields FROM traces WHERE project_id = ? AND id IN ? ORDER BY event_ts DESC LIMIT 1 BY id"
        );
    }
}
