//! The legacy v1 reads on the v3 tables (`traces`, `observations`, `scores`), page-based with the
//! `meta` block. Available in `legacy` and `dual`; the web binary answers 404 in `events_only`.

pub mod daily;
pub mod observations;
pub mod sessions;
pub mod traces;

use crate::sql::Sql;

pub(crate) fn project(project_id: &str) -> Sql {
    let mut sql = Sql::new("project_id = ");
    sql.bind(project_id);
    sql
}

pub(crate) fn equals(column: &str, value: &str) -> Sql {
    let mut sql = Sql::new(&format!("{column} = "));
    sql.bind(value);
    sql
}

pub(crate) fn one_of(column: &str, values: Vec<String>) -> Sql {
    let mut sql = Sql::new(&format!("{column} IN "));
    sql.bind(values);
    sql
}

/// `column op <datetime>` with millisecond precision.
pub(crate) fn time_bound(column: &str, op: &str, at: chrono::DateTime<chrono::Utc>) -> Sql {
    let mut sql = Sql::new(&format!("{column} {op} fromUnixTimestamp64Milli(toInt64("));
    sql.bind(at.timestamp_millis()).push("))");
    sql
}
