//! Bounded chunks over a table in the order of its sorting key, newest first.
//!
//! A backfill chunk is "the next N rows below the cursor" within one partition. Walking the
//! sorting key (descending) lets the engine read each chunk in order and skip everything else
//! through the primary index, so every chunk costs about N rows however big the partition is — where
//! hash buckets would rescan the partition once per chunk. The filters are plain lexicographic
//! comparisons written out with AND/OR, which the primary index understands.

use serde::{Deserialize, Serialize};

/// One component of a table's sorting key: a column, optionally wrapped in a function
/// (`toDate(timestamp)`).
#[derive(Debug, Clone, Copy)]
pub struct KeyPart {
    pub function: Option<&'static str>,
    pub column: &'static str,
}

const fn col(column: &'static str) -> KeyPart {
    KeyPart { function: None, column }
}

const fn date(column: &'static str) -> KeyPart {
    KeyPart { function: Some("toDate"), column }
}

/// `traces`: ORDER BY (project_id, toDate(timestamp), id).
pub const TRACES_KEY: &[KeyPart] = &[col("project_id"), date("timestamp"), col("id")];
/// `observations`: ORDER BY (project_id, type, toDate(start_time), id).
pub const OBSERVATIONS_KEY: &[KeyPart] = &[col("project_id"), col("type"), date("start_time"), col("id")];
/// `observations_pid_tid_sorting`, by trace: a trace never straddles two chunks, so the trace
/// rows a chunk joins are exactly its traces.
pub const SCRATCH_KEY: &[KeyPart] = &[col("project_id"), col("trace_id")];

impl KeyPart {
    fn render(&self, alias: &str) -> String {
        match self.function {
            Some(function) => format!("{function}({alias}{})", self.column),
            None => format!("{alias}{}", self.column),
        }
    }
}

/// The key values of one row, as text (dates as `YYYY-MM-DD`), as the cursor stores them.
pub type KeyValues = Vec<String>;

/// A SQL condition with `?` placeholders and the values to bind, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Condition {
    pub sql: String,
    pub binds: Vec<String>,
}

impl Condition {
    pub fn always() -> Self {
        Self { sql: "1".into(), binds: Vec::new() }
    }

    pub fn and(mut self, other: Condition) -> Self {
        self.sql = format!("({}) AND ({})", self.sql, other.sql);
        self.binds.extend(other.binds);
        self
    }
}

/// Rows whose key is strictly below `cursor` (all rows when there is none).
pub fn below(key: &[KeyPart], alias: &str, cursor: Option<&KeyValues>) -> Condition {
    match cursor {
        None => Condition::always(),
        Some(values) => compare(key, alias, values, "<", "<"),
    }
}

/// Rows whose key is at or above `boundary`.
pub fn at_or_above(key: &[KeyPart], alias: &str, boundary: &KeyValues) -> Condition {
    compare(key, alias, boundary, ">", ">=")
}

/// `(k1 op v1) OR (k1 = v1 AND ((k2 op v2) OR (k2 = v2 AND … kn last_op vn)))`.
fn compare(key: &[KeyPart], alias: &str, values: &KeyValues, op: &str, last_op: &str) -> Condition {
    let parts: Vec<String> = key.iter().map(|part| part.render(alias)).collect();
    let n = parts.len().min(values.len());
    let mut sql = format!("{} {last_op} ?", parts[n - 1]);
    let mut binds = vec![values[n - 1].clone()];
    for i in (0..n - 1).rev() {
        sql = format!("({p} {op} ?) OR ({p} = ? AND ({sql}))", p = parts[i]);
        let mut head = vec![values[i].clone(), values[i].clone()];
        head.extend(binds);
        binds = head;
    }
    Condition { sql, binds }
}

/// `SELECT` of the key of the row `offset` rows below the cursor, in descending key order: the
/// lowest row of the next chunk.
pub fn boundary_query(table: &str, key: &[KeyPart], offset: u64, within: &Condition) -> Condition {
    let values: Vec<String> = key.iter().map(|part| format!("toString({})", part.render(""))).collect();
    let order: Vec<String> = key.iter().map(|part| format!("{} DESC", part.render(""))).collect();
    Condition {
        sql: format!(
            "SELECT [{}] FROM {table} WHERE {} ORDER BY {} LIMIT 1 OFFSET {offset}",
            values.join(", "),
            within.sql,
            order.join(", ")
        ),
        binds: within.binds.clone(),
    }
}

/// Where a chunked step is: the partitions it planned (newest first), the one it is in, and the
/// key below which that partition is still to do.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkCursor {
    pub partitions: Vec<String>,
    pub partition_index: usize,
    pub below: Option<KeyValues>,
    pub chunks_done: u64,
}

impl ChunkCursor {
    pub fn current_partition(&self) -> Option<&str> {
        self.partitions.get(self.partition_index).map(String::as_str)
    }

    /// After a chunk: continue below its boundary, or with the next partition when the chunk
    /// reached the bottom of this one.
    pub fn advance(&mut self, boundary: Option<KeyValues>) {
        self.chunks_done += 1;
        match boundary {
            Some(boundary) => self.below = Some(boundary),
            None => {
                self.partition_index += 1;
                self.below = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_spells_out_the_lexicographic_order() {
        let cursor = vec!["p1".to_owned(), "2026-11-03".to_owned(), "x".to_owned()];
        let c = below(TRACES_KEY, "t.", Some(&cursor));
        assert_eq!(
            c.sql,
            "(t.project_id < ?) OR (t.project_id = ? AND ((toDate(t.timestamp) < ?) OR \
             (toDate(t.timestamp) = ? AND (t.id < ?))))"
        );
        assert_eq!(c.binds, ["p1", "p1", "2026-11-03", "2026-11-03", "x"]);
        assert_eq!(below(TRACES_KEY, "", None), Condition::always());
    }

    #[test]
    fn the_boundary_row_belongs_to_the_chunk_above_it() {
        let boundary = vec!["p".to_owned(), "t9".to_owned()];
        let c = at_or_above(SCRATCH_KEY, "", &boundary);
        assert_eq!(c.sql, "(project_id > ?) OR (project_id = ? AND (trace_id >= ?))");
        assert_eq!(c.binds.len(), 3);
    }

    #[test]
    fn boundary_query_reads_in_descending_key_order() {
        let q = boundary_query("traces", TRACES_KEY, 99, &Condition::always());
        assert_eq!(
            q.sql,
            "SELECT [toString(project_id), toString(toDate(timestamp)), toString(id)] FROM traces WHERE 1 \
             ORDER BY project_id DESC, toDate(timestamp) DESC, id DESC LIMIT 1 OFFSET 99"
        );
    }

    #[test]
    fn cursor_moves_down_a_partition_then_to_the_next() {
        let mut cursor =
            ChunkCursor { partitions: vec!["202611".into(), "202610".into()], ..Default::default() };
        cursor.advance(Some(vec!["p".into()]));
        assert_eq!(cursor.current_partition(), Some("202611"));
        assert_eq!(cursor.below, Some(vec!["p".to_owned()]));
        cursor.advance(None);
        assert_eq!(cursor.current_partition(), Some("202610"));
        assert_eq!(cursor.below, None);
        cursor.advance(None);
        assert_eq!(cursor.current_partition(), None);
        assert_eq!(cursor.chunks_done, 3);
    }
}
