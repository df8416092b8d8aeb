//! Lists of strings (ids, mostly) sent as server-side query parameters, in chunks.
//!
//! The `clickhouse` crate's `bind` writes a value into the SQL text, and ClickHouse refuses a
//! statement over `max_query_size` (256 KiB): 100,000 trace ids are about 4 MB. Server-side
//! parameters (`{name:Array(String)}`) are not part of the parsed text, but the crate sends each
//! one as a field of a `multipart/form-data` body, and a server refuses a field over
//! `http_max_field_value_size` (128 KiB by default, a server-profile setting a query cannot raise)
//! with `HTML Form Exception: Field value too long`. So a list travels as several parameters of
//! at most [`PARAM_BYTES`] each, joined by `arrayConcat` in the statement: any length of list is
//! one statement whose text stays small, and the engine still sees one constant set (`IN` keeps
//! using the primary key).

use clickhouse::query::Query;

/// The most bytes one parameter's value may take as the crate serialises it (`['a','b']`): half
/// of ClickHouse's default `http_max_field_value_size`, so a server configured a little lower
/// still takes it.
pub const PARAM_BYTES: usize = 64 * 1024;

/// A list of strings as one array expression over server-side parameters. `sql()` goes into the
/// statement's text, then `bind` attaches the values to the query made from it.
#[derive(Debug)]
pub struct StringList<'a> {
    sql: String,
    chunks: Vec<(String, &'a [String])>,
}

impl<'a> StringList<'a> {
    /// The list `values` under parameters named `name` (one chunk) or `name_0`, `name_1`, …
    /// (`name` must be a valid identifier; each list of a statement needs its own). A single value
    /// larger than [`PARAM_BYTES`] gets a chunk of its own.
    pub fn new(name: &str, values: &'a [String]) -> Self {
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        let (mut start, mut size) = (0, 2); // the brackets
        for (i, value) in values.iter().enumerate() {
            let cost = serialized_len(value) + 1; // and its comma
            if i > start && size + cost > PARAM_BYTES {
                ranges.push((start, i));
                (start, size) = (i, 2);
            }
            size += cost;
        }
        ranges.push((start, values.len())); // an empty list is one empty chunk: `[]`
        let chunks: Vec<(String, &'a [String])> = if ranges.len() == 1 {
            vec![(name.to_owned(), values)]
        } else {
            ranges.iter().enumerate().map(|(k, &(a, b))| (format!("{name}_{k}"), &values[a..b])).collect()
        };
        let placeholders: Vec<String> =
            chunks.iter().map(|(name, _)| format!("{{{name}:Array(String)}}")).collect();
        let sql = match placeholders.as_slice() {
            [one] => one.clone(),
            many => format!("arrayConcat({})", many.join(", ")),
        };
        Self { sql, chunks }
    }

    /// The array expression, e.g. for `column IN <sql>` or `hasAny(tags, <sql>)`.
    pub fn sql(&self) -> &str {
        &self.sql
    }

    /// How many parameters the list travels in.
    pub fn chunks(&self) -> usize {
        self.chunks.len()
    }

    /// Attaches the values to a query whose text contains [`sql`](Self::sql).
    pub fn bind(&self, mut query: Query) -> Query {
        for (name, values) in &self.chunks {
            query = query.param(name, values);
        }
        query
    }
}

/// The length of `'value'` as the crate writes it inside an array parameter: quoted, with
/// `\`, `'`, `` ` ``, tab and newline each behind a backslash.
fn serialized_len(value: &str) -> usize {
    value.len() + 2 + value.bytes().filter(|b| matches!(b, b'\\' | b'\'' | b'`' | b'\t' | b'\n')).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize, len: usize) -> Vec<String> {
        (0..n).map(|i| format!("{i:0len$}")).collect()
    }

    #[test]
    fn a_short_list_is_one_parameter() {
        let values = ids(3, 4);
        let list = StringList::new("ids", &values);
        assert_eq!(list.sql(), "{ids:Array(String)}");
        assert_eq!(list.chunks, vec![("ids".to_owned(), &values[..])]);
        let empty: Vec<String> = Vec::new();
        assert_eq!(StringList::new("ids", &empty).chunks(), 1);
    }

    #[test]
    fn a_long_list_is_split_under_the_field_limit_and_loses_nothing() {
        let values = ids(100_000, 36);
        let list = StringList::new("ids", &values);
        assert!(list.chunks() > 1);
        assert!(list.sql().starts_with("arrayConcat({ids_0:Array(String)}, {ids_1:Array(String)}"));
        let mut joined = Vec::new();
        for (name, chunk) in &list.chunks {
            let mut text = String::new();
            // What the crate would send, measured the same way ClickHouse measures the field.
            text.push('[');
            text.push_str(&chunk.iter().map(|v| format!("'{v}'")).collect::<Vec<_>>().join(","));
            text.push(']');
            assert!(text.len() <= PARAM_BYTES, "{name} is {} bytes", text.len());
            joined.extend_from_slice(chunk);
        }
        assert_eq!(joined, values);
    }

    #[test]
    fn escapes_count_toward_the_size_and_a_huge_value_stands_alone() {
        assert_eq!(serialized_len("a'b\\"), 8);
        let values = vec!["a".to_owned(), "x".repeat(PARAM_BYTES * 2), "b".to_owned()];
        let list = StringList::new("ids", &values);
        let chunks: Vec<&[String]> = list.chunks.iter().map(|(_, c)| *c).collect();
        assert_eq!(chunks, vec![&values[..1], &values[1..2], &values[2..]]);
    }
}
