//! Scores from the v3 `scores` table: the v3 API (cursor pages) and the legacy v1/v2 lists.
//! Scores were never migrated: v4 reads them from the same table (reference/storage.md §8.3).

pub mod legacy;
pub mod v3;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use storage::clickhouse::ClickHouse;
use utoipa::ToSchema;

use crate::latest;
use crate::render::{self, Num};
use crate::sql::{Sql, project};

/// Columns every score response is built from (renamed to their API keys).
pub(crate) const SCORE_COLUMNS: &str = "id, project_id AS projectId, name, source, \
    toDateTime64(timestamp, 3) AS timestamp, environment, toDateTime64(created_at, 3) AS createdAt, \
    toDateTime64(updated_at, 3) AS updatedAt, data_type AS dataType, value AS _value, \
    string_value AS _stringValue, long_string_value AS _longStringValue, comment, config_id AS configId, \
    metadata, author_user_id AS authorUserId, queue_id AS queueId, trace_id AS traceId, \
    observation_id AS observationId, session_id AS sessionId, dataset_run_id AS datasetRunId, \
    execution_trace_id AS executionTraceId, is_deleted AS _deleted";

/// A row of [`SCORE_COLUMNS`]; `_key` is the grouping key some reads add.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ScoreRow {
    pub id: String,
    pub project_id: String,
    pub name: String,
    pub source: String,
    pub timestamp: String,
    pub environment: String,
    pub created_at: String,
    pub updated_at: String,
    pub data_type: String,
    #[serde(rename = "_value")]
    pub value: Option<Num>,
    #[serde(rename = "_stringValue")]
    pub string_value: Option<String>,
    #[serde(rename = "_longStringValue")]
    pub long_string_value: Option<String>,
    pub comment: Option<String>,
    pub config_id: Option<String>,
    #[serde(deserialize_with = "render::de_metadata")]
    pub metadata: Value,
    pub author_user_id: Option<String>,
    pub queue_id: Option<String>,
    pub trace_id: Option<String>,
    pub observation_id: Option<String>,
    pub session_id: Option<String>,
    pub dataset_run_id: Option<String>,
    pub execution_trace_id: Option<String>,
    #[serde(rename = "_deleted")]
    pub deleted: u8,
    #[serde(rename = "_key", default)]
    pub key: Option<String>,
}

/// A score's value as its data type carries it: a number, a boolean, or text (`null` when a
/// text kind has none).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(untagged)]
pub enum ScoreValue {
    Number(Num),
    Boolean(bool),
    Text(Option<String>),
}

impl ScoreRow {
    /// The value as each data type carries it (v3 `value`).
    pub(crate) fn typed_value(&mut self) -> ScoreValue {
        let number = self.value.take();
        let string = self.string_value.take();
        let long = self.long_string_value.take();
        match self.data_type.as_str() {
            "NUMERIC" => number.map_or(ScoreValue::Text(None), ScoreValue::Number),
            "BOOLEAN" => ScoreValue::Boolean(number.and_then(|n| n.as_f64()).is_some_and(|v| v != 0.0)),
            "CORRECTION" => ScoreValue::Text(long),
            "TEXT" if string.is_none() => ScoreValue::Text(long),
            _ => ScoreValue::Text(string),
        }
    }

    /// What the score is about (v3 `subject`).
    pub(crate) fn subject(&self) -> Subject {
        let get = |v: &Option<String>| v.as_deref().filter(|s| !s.is_empty()).map(str::to_owned);
        if let Some(id) = get(&self.dataset_run_id) {
            Subject::Experiment { id }
        } else if let Some(id) = get(&self.observation_id) {
            Subject::Observation { id, trace_id: get(&self.trace_id) }
        } else if let Some(id) = get(&self.session_id) {
            Subject::Session { id }
        } else {
            Subject::Trace { id: get(&self.trace_id) }
        }
    }
}

/// What a score is about: experiment, observation, session or trace, in that order.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Subject {
    Experiment {
        id: String,
    },
    Observation {
        id: String,
        #[serde(rename = "traceId")]
        trace_id: Option<String>,
    },
    Session {
        id: String,
    },
    Trace {
        id: Option<String>,
    },
}

/// A score about a trace itself, not one of its observations, a session or an experiment: the
/// `trace` subject kind, in [`subject`]'s order.
pub(crate) const TRACE_KIND: &str =
    "ifNull(observation_id, '') = '' AND ifNull(session_id, '') = '' AND ifNull(dataset_run_id, '') = ''";

/// Scores shown on observations (ScoreV3 with its subject), up to `per_subject` newest of each
/// observation and each trace: the scores of `observations`, and the trace-kind scores of
/// `root_traces`, the traces whose root observations are shown (spec/v4-migration-spec.md §1.4). Each comes with the
/// observation or trace it belongs to, rendered with the v3 field `groups` given.
pub(crate) async fn on_observations(
    clickhouse: &ClickHouse,
    project_id: &str,
    observations: Vec<String>,
    root_traces: Vec<String>,
    per_subject: i64,
    groups: &[&str],
) -> crate::Result<Vec<(Attached, v3::ScoreV3)>> {
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
    let rows: Vec<ScoreRow> = sql.fetch(clickhouse).await?;
    Ok(rows
        .into_iter()
        .filter_map(|row| {
            let text = |v: &Option<String>| v.as_deref().filter(|s| !s.is_empty()).map(str::to_owned);
            let attached = match (text(&row.observation_id), text(&row.trace_id)) {
                (Some(observation), _) => Attached::Observation(observation),
                (None, Some(trace)) => Attached::Trace(trace),
                (None, None) => return None,
            };
            v3::render_row(row, groups).map(|score| (attached, score))
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
    use serde_json::json;

    fn row(v: Value) -> ScoreRow {
        let mut base = json!({"id": "s", "projectId": "p", "name": "n", "source": "API", "timestamp": "t",
            "environment": "default", "createdAt": "t", "updatedAt": "t", "dataType": "NUMERIC", "_value": 0,
            "metadata": {}, "_deleted": 0});
        base.as_object_mut().unwrap().extend(v.as_object().unwrap().clone());
        serde_json::from_value(base).unwrap()
    }

    #[test]
    fn values_follow_the_data_type() {
        let mut r = row(json!({"dataType": "BOOLEAN", "_value": 1.0, "_stringValue": "True"}));
        assert_eq!(serde_json::to_value(r.typed_value()).unwrap(), json!(true));
        let mut r = row(json!({"dataType": "CATEGORICAL", "_value": 0.0, "_stringValue": "good"}));
        assert_eq!(serde_json::to_value(r.typed_value()).unwrap(), json!("good"));
        let mut r = row(json!({"dataType": "CORRECTION", "_longStringValue": "fixed"}));
        assert_eq!(serde_json::to_value(r.typed_value()).unwrap(), json!("fixed"));
        let mut r = row(json!({"dataType": "NUMERIC", "_value": 1}));
        assert_eq!(serde_json::to_string(&r.typed_value()).unwrap(), "1", "printed as the engine did");
    }

    #[test]
    fn subjects_prefer_the_most_specific_link() {
        let kind = |r: ScoreRow| serde_json::to_value(r.subject()).unwrap()["kind"].clone();
        assert_eq!(kind(row(json!({"traceId": "t", "observationId": "o"}))), "observation");
        assert_eq!(kind(row(json!({"traceId": "t", "datasetRunId": "r"}))), "experiment");
        assert_eq!(kind(row(json!({"sessionId": "s"}))), "session");
        let trace = serde_json::to_value(row(json!({"traceId": "t"})).subject()).unwrap();
        assert_eq!(trace, json!({"kind": "trace", "id": "t"}));
        let observation = serde_json::to_value(row(json!({"observationId": "o"})).subject()).unwrap();
        assert_eq!(observation, json!({"kind": "observation", "id": "o", "traceId": null}));
    }
}
