//! The WHERE conditions of a v2 observations page beyond the `filter` JSON's columns: the
//! individual filter parameters, the input/output rule, score filters, the UI's search and the
//! cursor's position.

use super::{COLUMNS, Cursor, MAX_SEARCH_CHARS, PARAM_COLUMNS};
use crate::filter;
use crate::latest;
use crate::scores;
use crate::sql::{Sql, equals, one_of, project};
use crate::{Params, ReadError, Result};

/// Filters on input/output need an `=` or `matches` among them (a full scan of the text otherwise);
/// returns whether any filter reads the full text columns.
pub(super) fn check_io_filters(filters: &[filter::Filter]) -> Result<bool> {
    let io: Vec<_> = filters.iter().filter(|f| matches!(f.column.as_str(), "input" | "output")).collect();
    if !io.is_empty() && !io.iter().any(|f| matches!(f.operator.as_str(), "=" | "matches")) {
        return Err(ReadError::bad_request(
            "Filters on input or output must include one with operator `=` or `matches`",
        ));
    }
    Ok(!io.is_empty() || filters.iter().any(|f| f.column == "metadata"))
}

/// The individual filter parameters; one the `filter` JSON also covers yields to it.
pub(super) fn param_conditions(params: &Params, filters: &[filter::Filter]) -> Result<Vec<Sql>> {
    let covered = |column: &str| {
        let api_name = COLUMNS.iter().find(|c| c.sql == column).map(|c| c.name).unwrap_or(column);
        filters.iter().any(|f| f.column == api_name)
    };
    let mut out = Vec::new();
    for (param, column) in PARAM_COLUMNS {
        if let Some(value) = params.get(param)
            && !covered(column)
        {
            out.push(equals(column, value));
        }
    }
    let environments = params.list("environment");
    if !environments.is_empty() && !covered("environment") {
        out.push(one_of("environment", environments));
    }
    if let Some(root) = params.bool("isRootObservation")? {
        out.push(Sql::new(if root { "parent_span_id = ''" } else { "parent_span_id != ''" }));
    }
    for (param, op) in [("fromStartTime", ">="), ("toStartTime", "<")] {
        if let Some(at) = params.datetime(param)? {
            let mut sql = Sql::new(&format!("start_time {op} fromUnixTimestamp64Micro(toInt64("));
            sql.bind(at.timestamp_micros()).push("))");
            out.push(sql);
        }
    }
    Ok(out)
}

/// Observations with a score that `score_filter` matches (the newest live version of each score
/// of the project): their own scores, and on a root observation its trace's own scores, as the
/// `scores` group attaches them.
pub(super) fn score_condition(project_id: &str, score_filter: &filter::Filter) -> Result<Sql> {
    let value = filter::score_value(score_filter)?;
    let scores_where = |kind: &str| {
        let mut matching = value.clone();
        matching.push(&format!(" AND {kind}"));
        latest::SCORES.newest_matching(&project(project_id), &matching)
    };
    let mut sql = Sql::new("span_id IN (SELECT ifNull(observation_id, '') FROM ");
    sql.append(&scores_where("ifNull(observation_id, '') != ''"))
        .push(") OR (parent_span_id = '' AND trace_id IN (SELECT ifNull(trace_id, '') FROM ")
        .append(&scores_where(scores::TRACE_KIND))
        .push("))");
    Ok(sql)
}

pub(super) fn search_condition(text: &str) -> Result<Sql> {
    if text.chars().count() > MAX_SEARCH_CHARS {
        return Err(ReadError::bad_request(format!("search must be at most {MAX_SEARCH_CHARS} characters")));
    }
    let mut sql = Sql::new("(positionCaseInsensitive(name, ");
    sql.bind(text).push(") > 0");
    for column in ["span_id", "trace_id", "user_id", "session_id"] {
        sql.push(&format!(" OR {column} = ")).bind(text);
    }
    sql.push(")");
    Ok(sql)
}

/// Input or output has every word of `text` (words as the indexes split them: runs of letters
/// and digits, any case). The full-text indexes on `lower(input)` and `lower(output)` of
/// `events_full` answer it, so no value is read.
pub(super) fn io_search_condition(text: &str) -> Result<Sql> {
    if text.chars().count() > MAX_SEARCH_CHARS {
        return Err(ReadError::bad_request(format!("search must be at most {MAX_SEARCH_CHARS} characters")));
    }
    if !text.chars().any(char::is_alphanumeric) {
        return Err(ReadError::bad_request(
            "A search in input and output needs at least one word (letters or digits)",
        ));
    }
    let words = text.to_lowercase();
    let mut sql = Sql::new("(hasAllTokens(lower(input), ");
    sql.bind(words.as_str()).push(") OR hasAllTokens(lower(output), ").bind(words.as_str()).push("))");
    Ok(sql)
}

pub(super) fn cursor_condition(cursor: Cursor, ascending: bool) -> Result<Sql> {
    if cursor.ascending != ascending {
        return Err(ReadError::bad_request("The cursor belongs to a page in the other order"));
    }
    let at = crate::params::parse_datetime("cursor", &cursor.last_start_time_to)
        .map_err(|_| ReadError::bad_request("Invalid cursor format"))?
        .timestamp_micros();
    let (bound, after) = if ascending { (">=", ">") } else { ("<=", "<") };
    // The first comparison lets the engine prune by the primary key; the tuple is the exact order.
    let mut sql = Sql::new(&format!("start_time {bound} fromUnixTimestamp64Micro(toInt64("));
    sql.bind(at)
        .push(&format!(
            ")) AND (start_time, xxHash32(trace_id), span_id) {after} (fromUnixTimestamp64Micro(toInt64("
        ))
        .bind(at)
        .push(")), xxHash32(")
        .bind(cursor.last_trace_id)
        .push("), ")
        .bind(cursor.last_id)
        .push(")");
    Ok(sql)
}
