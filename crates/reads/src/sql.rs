//! SQL text with its bound values kept apart, and rows fetched as JSON objects.
//!
//! User input never enters the SQL text unescaped: every value goes through a `?` placeholder,
//! which the `clickhouse` crate renders as an escaped literal, or, for a list, as server-side
//! query parameters (a list of ids can be longer than a statement may be). ClickHouse itself serialises the rows
//! (`JSONEachRow`, dates in ISO-8601 with `Z`, numbers as it prints them), and each row is
//! deserialized straight into the typed row of its query.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use storage::clickhouse::{ClickHouse, StringList, Work};

use crate::ReadError;

/// One row as ClickHouse rendered it.
pub type JsonRow = Map<String, Value>;

#[derive(Debug, Clone, PartialEq)]
pub enum Bind {
    Str(String),
    Int(i64),
    Float(f64),
    Strs(Vec<String>),
}

impl From<&str> for Bind {
    fn from(value: &str) -> Self {
        Bind::Str(value.to_owned())
    }
}
impl From<String> for Bind {
    fn from(value: String) -> Self {
        Bind::Str(value)
    }
}
impl From<i64> for Bind {
    fn from(value: i64) -> Self {
        Bind::Int(value)
    }
}
impl From<f64> for Bind {
    fn from(value: f64) -> Self {
        Bind::Float(value)
    }
}
impl From<Vec<String>> for Bind {
    fn from(value: Vec<String>) -> Self {
        Bind::Strs(value)
    }
}

#[derive(Debug, Default, Clone)]
pub struct Sql {
    text: String,
    binds: Vec<Bind>,
}

impl Sql {
    pub fn new(text: &str) -> Self {
        debug_assert!(!text.contains('?'), "placeholders only through bind()");
        Self { text: text.to_owned(), binds: Vec::new() }
    }

    /// Appends SQL text written by us (never user input).
    pub fn push(&mut self, text: &str) -> &mut Self {
        debug_assert!(!text.contains('?'), "placeholders only through bind()");
        self.text.push_str(text);
        self
    }

    /// Appends a placeholder for `value`.
    pub fn bind(&mut self, value: impl Into<Bind>) -> &mut Self {
        self.text.push('?');
        self.binds.push(value.into());
        self
    }

    /// Appends another fragment with its binds.
    pub fn append(&mut self, other: &Sql) -> &mut Self {
        self.text.push_str(&other.text);
        self.binds.extend(other.binds.iter().cloned());
        self
    }

    pub fn is_empty(&self) -> bool {
        self.text.trim().is_empty()
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The statement as the crate sends it: scalars through its `?` (written into the text, short),
    /// each list as server-side parameters (`StringList`), so a list of any length leaves the text
    /// under ClickHouse's `max_query_size`.
    fn into_query(self, clickhouse: &ClickHouse) -> clickhouse::query::Query {
        let lists: Vec<Option<StringList<'_>>> = (self.binds.iter().enumerate())
            .map(|(i, bind)| match bind {
                Bind::Strs(values) => Some(StringList::new(&format!("list{i}"), values)),
                _ => None,
            })
            .collect();
        let mut text = String::with_capacity(self.text.len());
        let mut pieces = self.text.split('?');
        text.push_str(pieces.next().unwrap_or_default());
        for (list, piece) in lists.iter().zip(pieces) {
            text.push_str(list.as_ref().map_or("?", StringList::sql));
            text.push_str(piece);
        }
        let mut query = clickhouse.client().query(&text);
        for (bind, list) in self.binds.iter().zip(&lists) {
            query = match (bind, list) {
                (_, Some(list)) => list.bind(query),
                (Bind::Str(v), None) => query.bind(v),
                (Bind::Int(v), None) => query.bind(*v),
                (Bind::Float(v), None) => query.bind(*v),
                (Bind::Strs(_), None) => unreachable!("every list has its parameters"),
            };
        }
        query
    }

    /// Runs the query and parses each output row into a JSON object (for rows whose keys the
    /// request decides, as metrics rows).
    pub async fn fetch_json(self, clickhouse: &ClickHouse) -> Result<Vec<JsonRow>, ReadError> {
        self.fetch(clickhouse).await
    }

    /// Runs the query and deserializes each output row into `T`.
    pub async fn fetch<T: DeserializeOwned>(self, clickhouse: &ClickHouse) -> Result<Vec<T>, ReadError> {
        let mut cursor = self
            .into_query(clickhouse)
            .with_setting("date_time_output_format", "iso")
            .with_setting("output_format_json_quote_64bit_integers", "0")
            .with_setting("output_format_json_quote_decimals", "0")
            .with_setting("output_format_json_named_tuples_as_objects", "1")
            .fetch_bytes("JSONEachRow")
            .map_err(storage::Error::from)?;
        let body = clickhouse.bounded(Work::Read, "a read", cursor.collect()).await?;
        body.split(|b| *b == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| {
                serde_json::from_slice(line).map_err(|e| ReadError::Internal(format!("engine row: {e}")))
            })
            .collect()
    }
}

/// `project_id = ?`: every read is scoped to the caller's project.
pub fn project(project_id: &str) -> Sql {
    let mut sql = Sql::new("project_id = ");
    sql.bind(project_id);
    sql
}

pub fn equals(column: &str, value: &str) -> Sql {
    let mut sql = Sql::new(&format!("{column} = "));
    sql.bind(value);
    sql
}

pub fn one_of(column: &str, values: Vec<String>) -> Sql {
    let mut sql = Sql::new(&format!("{column} IN "));
    sql.bind(values);
    sql
}

/// `column op <datetime>` with millisecond precision.
pub fn time_bound(column: &str, op: &str, at: chrono::DateTime<chrono::Utc>) -> Sql {
    let mut sql = Sql::new(&format!("{column} {op} fromUnixTimestamp64Milli(toInt64("));
    sql.bind(at.timestamp_millis()).push("))");
    sql
}

/// How many rows a `FROM` source (a table expression, e.g. `(…) AS latest`) yields.
pub async fn count_rows(clickhouse: &ClickHouse, from: &Sql) -> Result<u64, ReadError> {
    #[derive(serde::Deserialize)]
    struct Count {
        n: u64,
    }
    let mut sql = Sql::new("SELECT count() AS n FROM ");
    sql.append(from);
    Ok(sql.fetch::<Count>(clickhouse).await?.first().map_or(0, |c| c.n))
}

/// `a AND b AND …` of the non-empty fragments, or `1`.
pub fn all_of(parts: &[Sql]) -> Sql {
    let mut out = and(parts);
    if out.is_empty() {
        out.push("1");
    }
    out
}

/// `a AND b AND …` of the non-empty fragments; empty when there are none.
pub fn and(parts: &[Sql]) -> Sql {
    let mut out = Sql::default();
    for part in parts.iter().filter(|p| !p.is_empty()) {
        if !out.is_empty() {
            out.push(" AND ");
        }
        out.push("(").append(part).push(")");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binds_follow_their_placeholders() {
        let mut sql = Sql::new("SELECT 1 WHERE a = ");
        sql.bind("x").push(" AND b IN ").bind(vec!["p".to_owned(), "q".to_owned()]);
        assert_eq!(sql.text(), "SELECT 1 WHERE a = ? AND b IN ?");
        assert_eq!(sql.binds, vec![Bind::Str("x".into()), Bind::Strs(vec!["p".into(), "q".into()])]);
    }

    #[test]
    fn all_of_skips_empty_fragments() {
        let mut a = Sql::default();
        a.push("x = ").bind(1_i64);
        let joined = all_of(&[Sql::default(), a, Sql::new("y")]);
        assert_eq!(joined.text(), "(x = ?) AND (y)");
        assert_eq!(all_of(&[]).text(), "1");
    }
}
