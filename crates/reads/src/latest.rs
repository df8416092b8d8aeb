//! Newest-version reads without FINAL.
//!
//! The tables are ReplacingMergeTrees: a row written twice (a retried insert, a backfill re-run,
//! an update) exists in several versions until a background merge keeps the one with the highest
//! `event_ts`. Reads must not wait for that merge. Two rules make them exact:
//!
//! 1. Versions are collapsed with `ORDER BY event_ts DESC LIMIT 1 BY <key>`, never FINAL.
//! 2. Filters are applied twice: once to find candidate keys (any version matching), and again to
//!    the newest version of each candidate. So an older version that matched a filter its newest
//!    version no longer matches (a renamed trace, an updated level) is never returned, and a row
//!    whose newest version is a deletion is gone.

use storage::clickhouse::newest_by;

use crate::sql::Sql;

/// A versioned table and the key its versions share.
pub struct Versioned {
    pub table: &'static str,
    pub key: &'static str,
    /// Columns `SELECT *` leaves out (MATERIALIZED) that reads use.
    pub extra: &'static str,
}

pub const TRACES: Versioned = Versioned { table: "traces", key: "id", extra: "" };
pub const OBSERVATIONS: Versioned = Versioned { table: "observations", key: "id", extra: "" };
pub const SCORES: Versioned = Versioned { table: "scores", key: "id", extra: "" };
const EVENT_EXTRA: &str = ", calculated_input_cost, calculated_output_cost, calculated_total_cost";
pub const EVENTS_CORE: Versioned = Versioned { table: "events_core", key: "span_id", extra: EVENT_EXTRA };
pub const EVENTS_FULL: Versioned = Versioned { table: "events_full", key: "span_id", extra: EVENT_EXTRA };

impl Versioned {
    /// `(…) AS latest`: the newest live version of every row in `scope` whose newest version
    /// satisfies `matching`. With no conditions it is every row of the scope, collapsed.
    pub fn newest_matching(&self, scope: &Sql, matching: &Sql) -> Sql {
        let Versioned { table, key, extra } = self;
        let mut sql = Sql::new(&format!("(SELECT * FROM (SELECT *{extra} FROM {table} WHERE "));
        sql.append(scope);
        if !matching.is_empty() {
            sql.push(&format!(" AND {key} IN (SELECT {key} FROM {table} WHERE "))
                .append(scope)
                .push(" AND (");
            sql.append(matching).push("))");
        }
        sql.push(&newest_by(key)).push(") WHERE is_deleted = 0");
        if !matching.is_empty() {
            sql.push(" AND (").append(matching).push(")");
        }
        sql.push(") AS latest");
        sql
    }

    /// `(…) AS latest`: the newest live version of each of `keys` that satisfies `matching`.
    pub fn newest_of(&self, scope: &Sql, keys: Vec<String>, matching: &Sql) -> Sql {
        let Versioned { table, key, extra } = self;
        let mut sql = Sql::new(&format!("(SELECT * FROM (SELECT *{extra} FROM {table} WHERE "));
        sql.append(scope)
            .push(&format!(" AND {key} IN "))
            .bind(keys)
            .push(&newest_by(key))
            .push(") WHERE is_deleted = 0");
        if !matching.is_empty() {
            sql.push(" AND (").append(matching).push(")");
        }
        sql.push(") AS latest");
        sql
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_apply_to_candidates_and_to_the_newest_version() {
        let mut scope = Sql::new("project_id = ");
        scope.bind("p");
        let mut matching = Sql::new("name = ");
        matching.bind("n");
        let sql = TRACES.newest_matching(&scope, &matching);
        assert_eq!(
            sql.text(),
            "(SELECT * FROM (SELECT * FROM traces WHERE project_id = ? AND id IN (SELECT id FROM traces WHERE \
             project_id = ? AND (name = ?)) ORDER BY event_ts DESC LIMIT 1 BY id) WHERE is_deleted = 0 AND \
             (name = ?)) AS latest"
        );
        let unfiltered = TRACES.newest_matching(&scope, &Sql::default());
        assert!(!unfiltered.text().contains(" IN "), "{}", unfiltered.text());
    }
}
