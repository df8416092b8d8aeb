//! The `filter=` JSON of the read APIs and the `filters` of metrics queries (reference/public-api.md
//! §6.3): `[{type, column, operator, value, key?}]`, turned into bound SQL against a per-endpoint
//! table of columns. Unknown columns, types and operators are 400s that say what is allowed.

use serde::Deserialize;
use serde_json::Value;

use crate::ReadError;
use crate::params::parse_datetime;
use crate::sql::Sql;

/// How a column is stored, which decides the SQL of each operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string column (`''` stands for "not set" on the events tables).
    Text,
    Number,
    DateTime,
    Bool,
    /// `Array(String)`, e.g. tags.
    Tags,
    /// `Map(String, String)` (v3 tables).
    MetadataMap,
    /// Parallel `metadata_names` / `metadata_values` arrays (events tables); `sql` names the prefix.
    MetadataArrays,
    /// The scores of a row (`key` = score name), kept in another table: the endpoint turns these
    /// filters into its own subquery on the scores (see [`score_value`]); `to_sql` refuses them.
    Scores,
}

/// A filterable column: the name clients use and the SQL expression it stands for.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub name: &'static str,
    pub sql: &'static str,
    pub kind: Kind,
}

pub const fn col(name: &'static str, sql: &'static str, kind: Kind) -> Column {
    Column { name, sql, kind }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Filter {
    #[serde(rename = "type")]
    pub kind: String,
    pub column: String,
    pub operator: String,
    #[serde(default)]
    pub value: Value,
    #[serde(default)]
    pub key: Option<String>,
}

/// Parses the `filter` query parameter.
pub fn parse(raw: &str) -> Result<Vec<Filter>, ReadError> {
    let value: Value =
        serde_json::from_str(raw).map_err(|_| ReadError::bad_request("Invalid JSON in filter parameter"))?;
    parse_value(value)
}

pub fn parse_value(value: Value) -> Result<Vec<Filter>, ReadError> {
    serde_json::from_value(value).map_err(|e| {
        ReadError::bad_request(format!(
            "Invalid filter: {e}. Expected an array of {{type, column, operator, value, key?}}"
        ))
    })
}

/// The conditions of all filters, joined with AND.
pub fn to_sql(filters: &[Filter], columns: &[Column]) -> Result<Sql, ReadError> {
    let parts = filters.iter().map(|f| condition(f, columns)).collect::<Result<Vec<_>, _>>()?;
    Ok(crate::sql::all_of(&parts))
}

fn condition(filter: &Filter, columns: &[Column]) -> Result<Sql, ReadError> {
    let column = columns.iter().find(|c| c.name == filter.column).ok_or_else(|| {
        let names: Vec<_> = columns.iter().map(|c| c.name).collect();
        ReadError::bad_request(format!(
            "Invalid filter column `{}`. Must be one of: {}",
            filter.column,
            names.join(", ")
        ))
    })?;
    let op = filter.operator.as_str();
    let bad_op = || {
        ReadError::bad_request(format!(
            "Operator `{op}` is not valid for filter type `{}` on `{}`",
            filter.kind, filter.column
        ))
    };
    if column.kind == Kind::Scores {
        return Err(ReadError::bad_request(format!("`{}` cannot be filtered here", filter.column)));
    }
    let mut sql = Sql::default();
    match filter.kind.as_str() {
        "datetime" => {
            let raw = filter.value.as_str().ok_or_else(|| value_error(filter, "an ISO datetime"))?;
            let at = parse_datetime(&filter.column, raw)?;
            let op = comparison(op).filter(|o| *o != "=").ok_or_else(bad_op)?;
            sql.push(&format!("{} {op} fromUnixTimestamp64Milli(toInt64(", column.sql))
                .bind(at.timestamp_millis())
                .push("))");
        }
        "string" => sql = string_condition(&Sql::new(column.sql), op, text(filter)?).ok_or_else(bad_op)?,
        "number" => {
            let op = comparison(op).ok_or_else(bad_op)?;
            sql.push(&format!("{} {op} ", column.sql)).bind(number(filter)?);
        }
        "boolean" => {
            let value = filter.value.as_bool().ok_or_else(|| value_error(filter, "true or false"))?;
            let op = match op {
                "=" => "=",
                "<>" => "!=",
                _ => return Err(bad_op()),
            };
            sql.push(&format!("{} {op} ", column.sql)).bind(i64::from(value));
        }
        "stringOptions" | "categoryOptions" | "arrayOptions" => {
            let values = strings(filter)?;
            if column.kind == Kind::Tags {
                let f = match op {
                    "any of" => "hasAny",
                    "all of" => "hasAll",
                    "none of" => "NOT hasAny",
                    _ => return Err(bad_op()),
                };
                sql.push(&format!("{f}({}, ", column.sql)).bind(values).push(")");
            } else {
                let f = match op {
                    "any of" => "IN",
                    "none of" => "NOT IN",
                    _ => return Err(bad_op()),
                };
                sql.push(&format!("{} {f} ", column.sql)).bind(values);
            }
        }
        "stringObject" | "numberObject" => {
            let key = filter.key.as_deref().filter(|k| !k.is_empty()).ok_or_else(|| {
                ReadError::bad_request(format!("Filter on `{}` needs a `key`", filter.column))
            })?;
            let mut value_of_key = Sql::default();
            match column.kind {
                Kind::MetadataMap => value_of_key.push(&format!("{}[", column.sql)).bind(key).push("]"),
                Kind::MetadataArrays => value_of_key
                    .push(&format!("arrayElement({0}_values, indexOf({0}_names, ", column.sql))
                    .bind(key)
                    .push("))"),
                _ => {
                    return Err(ReadError::bad_request(format!(
                        "`{}` has no keys to filter on",
                        filter.column
                    )));
                }
            };
            if filter.kind == "numberObject" {
                let op = comparison(op).ok_or_else(bad_op)?;
                sql.push("toFloat64OrNull(")
                    .append(&value_of_key)
                    .push(&format!(") {op} "))
                    .bind(number(filter)?);
            } else {
                sql = string_condition(&value_of_key, op, text(filter)?).ok_or_else(bad_op)?;
            }
        }
        "null" => {
            let test = match (op, column.kind) {
                ("is null", Kind::Text) => "empty({})",
                ("is not null", Kind::Text) => "notEmpty({})",
                ("is null", _) => "isNull({})",
                ("is not null", _) => "isNotNull({})",
                _ => return Err(bad_op()),
            };
            sql.push(&test.replace("{}", column.sql));
        }
        other => {
            return Err(ReadError::bad_request(format!(
                "Unknown filter type `{other}`. Must be one of: datetime, string, number, boolean, \
                 stringOptions, categoryOptions, arrayOptions, stringObject, numberObject, null"
            )));
        }
    }
    Ok(sql)
}

/// The condition a `scores` filter puts on a row of the scores table: the score named `key` and
/// either its number (`numberObject`: `=`, `<>`, `>`, `<`, `>=`, `<=` on a numeric or boolean
/// score's value) or its text (`stringObject`: `=` on a categorical value or a boolean's
/// `True`/`False`).
pub fn score_value(filter: &Filter) -> Result<Sql, ReadError> {
    let key = filter.key.as_deref().filter(|k| !k.is_empty()).ok_or_else(|| {
        ReadError::bad_request(format!("Filter on `{}` needs a `key` (the score name)", filter.column))
    })?;
    let op = filter.operator.as_str();
    let bad_op = || {
        ReadError::bad_request(format!(
            "Operator `{op}` is not valid for filter type `{}` on `{}`",
            filter.kind, filter.column
        ))
    };
    let mut sql = Sql::new("name = ");
    sql.bind(key);
    match filter.kind.as_str() {
        "numberObject" => {
            let op = if op == "<>" { Some("!=") } else { comparison(op) }.ok_or_else(bad_op)?;
            sql.push(&format!(" AND data_type IN ('NUMERIC', 'BOOLEAN') AND value {op} "))
                .bind(number(filter)?);
        }
        "stringObject" => {
            if op != "=" {
                return Err(bad_op());
            }
            sql.push(" AND data_type IN ('CATEGORICAL', 'BOOLEAN') AND string_value = ").bind(text(filter)?);
        }
        other => {
            return Err(ReadError::bad_request(format!(
                "Filter type `{other}` is not valid on `{}`. Must be one of: numberObject, stringObject",
                filter.column
            )));
        }
    }
    Ok(sql)
}

/// `=`, `contains`, … on a string expression; `None` for an unknown operator.
fn string_condition(expr: &Sql, op: &str, value: &str) -> Option<Sql> {
    // Every template has the expression (`{}`) before the value (`?`).
    let (prefix, rest) = string_template(op)?.split_once("{}")?;
    let (middle, suffix) = rest.split_once('?')?;
    let mut sql = Sql::default();
    sql.push(prefix).append(expr).push(middle).bind(value).push(suffix);
    Some(sql)
}

fn string_template(op: &str) -> Option<&'static str> {
    Some(match op {
        "=" => "{} = ?",
        "contains" => "position({}, ?) > 0",
        "does not contain" => "position({}, ?) = 0",
        "starts with" => "startsWith({}, ?)",
        "ends with" => "endsWith({}, ?)",
        // Case-insensitive literal search (upstream backs it with a text index).
        "matches" => "positionCaseInsensitive({}, ?) > 0",
        _ => return None,
    })
}

fn comparison(op: &str) -> Option<&'static str> {
    Some(match op {
        "=" => "=",
        ">" => ">",
        "<" => "<",
        ">=" => ">=",
        "<=" => "<=",
        _ => return None,
    })
}

fn text(filter: &Filter) -> Result<&str, ReadError> {
    filter.value.as_str().ok_or_else(|| value_error(filter, "a string"))
}

fn number(filter: &Filter) -> Result<f64, ReadError> {
    filter.value.as_f64().ok_or_else(|| value_error(filter, "a number"))
}

fn strings(filter: &Filter) -> Result<Vec<String>, ReadError> {
    let items = filter.value.as_array().ok_or_else(|| value_error(filter, "an array of strings"))?;
    items
        .iter()
        .map(|v| v.as_str().map(str::to_owned).ok_or_else(|| value_error(filter, "an array of strings")))
        .collect()
}

fn value_error(filter: &Filter, expected: &str) -> ReadError {
    ReadError::bad_request(format!(
        "Invalid value for filter `{}` ({}): expected {expected}",
        filter.column, filter.kind
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const COLUMNS: &[Column] = &[
        col("name", "name", Kind::Text),
        col("latency", "latency_s", Kind::Number),
        col("startTime", "start_time", Kind::DateTime),
        col("tags", "tags", Kind::Tags),
        col("metadata", "metadata", Kind::MetadataArrays),
        col("public", "public", Kind::Bool),
    ];

    fn sql_of(json: &str) -> Result<String, ReadError> {
        Ok(to_sql(&parse(json)?, COLUMNS)?.text().to_owned())
    }

    #[test]
    fn each_type_renders_bound_sql() {
        assert_eq!(
            sql_of(r#"[{"type":"string","column":"name","operator":"contains","value":"x"}]"#).unwrap(),
            "(position(name, ?) > 0)"
        );
        assert_eq!(
            sql_of(r#"[{"type":"number","column":"latency","operator":">=","value":1.5}]"#).unwrap(),
            "(latency_s >= ?)"
        );
        assert_eq!(
            sql_of(r#"[{"type":"arrayOptions","column":"tags","operator":"all of","value":["a"]}]"#).unwrap(),
            "(hasAll(tags, ?))"
        );
        assert_eq!(
            sql_of(r#"[{"type":"stringObject","column":"metadata","key":"k","operator":"=","value":"v"}]"#)
                .unwrap(),
            "(arrayElement(metadata_values, indexOf(metadata_names, ?)) = ?)"
        );
        assert_eq!(
            sql_of(
                r#"[{"type":"datetime","column":"startTime","operator":"<","value":"2024-01-01T00:00:00Z"}]"#
            )
            .unwrap(),
            "(start_time < fromUnixTimestamp64Milli(toInt64(?)))"
        );
        assert_eq!(
            sql_of(r#"[{"type":"boolean","column":"public","operator":"<>","value":true}]"#).unwrap(),
            "(public != ?)"
        );
    }

    #[test]
    fn string_object_binds_key_then_value() {
        let filters = parse(
            r#"[{"type":"stringObject","column":"metadata","key":"k","operator":"contains","value":"v"}]"#,
        )
        .unwrap();
        let sql = to_sql(&filters, COLUMNS).unwrap();
        assert_eq!(
            sql.text(),
            "(position(arrayElement(metadata_values, indexOf(metadata_names, ?)), ?) > 0)"
        );
    }

    #[test]
    fn score_values_are_bound() {
        let f = |json: &str| score_value(&parse(json).unwrap()[0]).map(|sql| sql.text().to_owned());
        assert_eq!(
            f(r#"[{"type":"numberObject","column":"scores","key":"q","operator":"<>","value":1}]"#).unwrap(),
            "name = ? AND data_type IN ('NUMERIC', 'BOOLEAN') AND value != ?"
        );
        assert_eq!(
            f(r#"[{"type":"stringObject","column":"scores","key":"q","operator":"=","value":"good"}]"#)
                .unwrap(),
            "name = ? AND data_type IN ('CATEGORICAL', 'BOOLEAN') AND string_value = ?"
        );
        let e =
            f(r#"[{"type":"stringObject","column":"scores","key":"q","operator":"contains","value":"g"}]"#);
        assert!(e.unwrap_err().to_string().contains("Operator `contains`"));
        let e = f(r#"[{"type":"number","column":"scores","key":"q","operator":"=","value":1}]"#);
        assert!(e.unwrap_err().to_string().contains("numberObject, stringObject"));
        let e = f(r#"[{"type":"numberObject","column":"scores","operator":"=","value":1}]"#);
        assert!(e.unwrap_err().to_string().contains("needs a `key`"));
        let e = f(r#"[{"type":"numberObject","column":"scores","key":"q","operator":"=","value":"x"}]"#);
        assert!(e.unwrap_err().to_string().contains("expected a number"));
    }

    #[test]
    fn mistakes_are_named() {
        let e = sql_of(r#"[{"type":"string","column":"nope","operator":"=","value":"x"}]"#).unwrap_err();
        assert!(e.to_string().contains("Invalid filter column `nope`"), "{e}");
        let e = sql_of(r#"[{"type":"string","column":"name","operator":"~","value":"x"}]"#).unwrap_err();
        assert!(e.to_string().contains("Operator `~`"), "{e}");
        let e = sql_of(r#"[{"type":"number","column":"latency","operator":"=","value":"x"}]"#).unwrap_err();
        assert!(e.to_string().contains("expected a number"), "{e}");
        assert_eq!(sql_of("{").unwrap_err().to_string(), "Invalid JSON in filter parameter");
        let e = sql_of(r#"[{"type":"stringObject","column":"metadata","operator":"=","value":"x"}]"#)
            .unwrap_err();
        assert!(e.to_string().contains("needs a `key`"), "{e}");
    }
}
