//! Scores from the v3 `scores` table: the v3 API (cursor pages) and the legacy v1/v2 lists.
//! Scores were never migrated: v4 reads them from the same table (storage.md §8.3).

pub mod legacy;
pub mod v3;

use serde_json::{Value, json};
use storage::clickhouse::ClickHouse;

use crate::latest;
use crate::render::take;
use crate::sql::{JsonRow, Sql, project};

/// Columns every score response is built from (renamed to their API keys).
pub(crate) const SCORE_COLUMNS: &str = "id, project_id AS projectId, name, source, \
    toDateTime64(timestamp, 3) AS timestamp, environment, toDateTime64(created_at, 3) AS createdAt, \
    toDateTime64(updated_at, 3) AS updatedAt, data_type AS dataType, value AS _value, \
    string_value AS _stringValue, long_string_value AS _longStringValue, comment, config_id AS configId, \
    metadata, author_user_id AS authorUserId, queue_id AS queueId, trace_id AS traceId, \
    observation_id AS observationId, session_id AS sessionId, dataset_run_id AS datasetRunId, \
    execution_trace_id AS executionTraceId, is_deleted AS _deleted";

/// The value as each data type carries it: a number, a boolean, or text.
pub(crate) fn typed_value(row: &mut JsonRow) -> Value {
    let number = take(row, "_value");
    let string = take(row, "_stringValue");
    let long = take(row, "_longStringValue");
    match row.get("dataType").and_then(Value::as_str).unwrap_or("NUMERIC") {
        "NUMERIC" => number,
        "BOOLEAN" => Value::Bool(number.as_f64().is_some_and(|v| v != 0.0)),
        "CORRECTION" => long,
        "TEXT" if string.is_null() => long,
        _ => string,
    }
}

/// What a score is about (v3 `subject`): experiment, observation, session or trace, in that order.
pub(crate) fn subject(row: &JsonRow) -> Value {
    let get = |k: &str| row.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    if let Some(id) = get("datasetRunId") {
        json!({"kind": "experiment", "id": id})
    } else if let Some(id) = get("observationId") {
        json!({"kind": "observation", "id": id, "traceId": get("traceId")})
    } else if let Some(id) = get("sessionId") {
        json!({"kind": "session", "id": id})
    } else {
        json!({"kind": "trace", "id": get("traceId")})
    }
}

/// A score about a trace itself, not one of its observations, a session or an experiment: the
/// `trace` subject kind, in [`subject`]'s order.
pub(crate) const TRACE_KIND: &str =
    "ifNull(observation_id, '') = '' AND ifNull(session_id, '') = '' AND ifNull(dataset_run_id, '') = ''";

/// Scores shown on observations (ScoreV3 with its subject), up to `per_subject` newest of each
/// observation and each trace: the scores of `observations`, and the trace-kind scores of
/// `root_traces`, the traces whose root observations are shown (spec 1.4). Each comes with the
/// observation or trace it belongs to.
pub(crate) async fn on_observations(
    clickhouse: &ClickHouse,
    project_id: &str,
    observations: Vec<String>,
    root_traces: Vec<String>,
    per_subject: i64,
) -> crate::Result<Vec<(Attached, Value)>> {
    let mut matching = Sql::new("observation_id IN ");
    matching
        .bind(observations)
        .push(" OR (trace_id IN ")
        .bind(root_traces)
        .push(&format!(" AND {TRACE_KIND})"));
    let mut sql = Sql::new(&format!("SELECT {SCORE_COLUMNS} FROM "));
    sql.append(&latest::SCORES.newest_matching(&project(project_id), &matching))
        .push(" ORDER BY timestamp DESC, id DESC LIMIT ")
        .bind(per_subject)
        .push(" BY ifNull(observation_id, ''), ifNull(trace_id, '')");
    let rows = sql.fetch_json(clickhouse).await?;
    Ok(rows
        .into_iter()
        .filter_map(|row| {
            let text =
                |key: &str| row.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
            let attached = match (text("observationId"), text("traceId")) {
                (Some(observation), _) => Attached::Observation(observation),
                (None, Some(trace)) => Attached::Trace(trace),
                (None, None) => return None,
            };
            v3::render_row(row, &["core", "subject"]).map(|score| (attached, score))
        })
        .collect())
}

/// What a score returned by [`on_observations`] is shown on.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Attached {
    Observation(String),
    /// The trace, so its root observations.
    Trace(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(v: Value) -> JsonRow {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn values_follow_the_data_type() {
        let mut r = row(json!({"dataType": "BOOLEAN", "_value": 1.0, "_stringValue": "True"}));
        assert_eq!(typed_value(&mut r), json!(true));
        let mut r = row(json!({"dataType": "CATEGORICAL", "_value": 0.0, "_stringValue": "good"}));
        assert_eq!(typed_value(&mut r), json!("good"));
        let mut r = row(json!({"dataType": "CORRECTION", "_longStringValue": "fixed"}));
        assert_eq!(typed_value(&mut r), json!("fixed"));
        let mut r = row(json!({"dataType": "NUMERIC", "_value": 0.5}));
        assert_eq!(typed_value(&mut r), json!(0.5));
        assert!(!r.contains_key("_value"));
    }

    #[test]
    fn subjects_prefer_the_most_specific_link() {
        assert_eq!(subject(&row(json!({"traceId": "t", "observationId": "o"})))["kind"], "observation");
        assert_eq!(subject(&row(json!({"traceId": "t", "datasetRunId": "r"})))["kind"], "experiment");
        assert_eq!(subject(&row(json!({"sessionId": "s"})))["kind"], "session");
        assert_eq!(subject(&row(json!({"traceId": "t"}))), json!({"kind": "trace", "id": "t"}));
    }
}
