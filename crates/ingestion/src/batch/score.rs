//! `score-create` bodies (upstream `ScoreBody` + `applyScoreValidation`) → [`ScoreRecord`], with
//! the inflation upstream's worker does (`validateAndInflateScore`): an inferred data type,
//! `"True"`/`"False"` for booleans.

use domain::score_config::CATEGORY_VALUE_KEY;
use domain::v3::{ScoreDataType, ScoreRecord};
use serde_json::{Map, Value};

use super::BatchContext;
use super::check::{Check, DEFAULT_ENVIRONMENT};
use super::time::micros_to_millis;
use super::values::{js_length, kind};

const DATA_TYPES: [&str; 5] = ["NUMERIC", "CATEGORICAL", "BOOLEAN", "CORRECTION", "TEXT"];
const SOURCES: [&str; 3] = ["API", "EVAL", "ANNOTATION"];
const MAX_TEXT_LENGTH: usize = 500;
const TARGET_RULE: &str = "provide exactly one of the following: traceId (with optional observationId), sessionId or datasetRunId. ObservationId requires traceId";
/// Upstream unknown attribution value.
const UNKNOWN: &str = "unknown";

/// `at_micros` is the envelope timestamp: the score's timestamp unless the body has one (newer
/// SDKs send `timestamp` on `POST /api/public/scores`).
pub fn parse(
    body: &Map<String, Value>,
    at_micros: i64,
    context: &BatchContext,
) -> Result<ScoreRecord, String> {
    let mut check = Check::new(body, "body");
    let id = check.required_id("id");
    let name = check.string("name");
    if name.as_deref() == Some("") || check.value("name").is_none() {
        check.issue("name", "required, a non-empty string");
    }
    let trace_id = check.string("traceId");
    let session_id = check.string("sessionId");
    let dataset_run_id = check.string("datasetRunId");
    let observation_id = check.string("observationId");
    let environment = check.environment("environment");
    let comment = check.string("comment");
    let source = check.one_of("source", &SOURCES).unwrap_or("API");
    let execution_trace_id = check.string("executionTraceId");
    let queue_id = check.string("queueId");
    let config_id = check.string("configId");
    let timestamp = check.datetime("timestamp");
    let metadata = check.metadata("metadata");
    let value = value(&mut check, config_id.is_some());

    let targets = [&trace_id, &session_id, &dataset_run_id].iter().filter(|t| is_set(t)).count();
    if targets != 1 || (is_set(&observation_id) && !is_set(&trace_id)) {
        check.issue("traceId", TARGET_RULE);
    }
    if let Some(ScoreValue { data_type: ScoreDataType::Correction, .. }) = &value
        && !is_set(&trace_id)
    {
        check.issue("dataType", "CORRECTION scores need a traceId target, not a session or dataset run");
    }
    check.finish()?;

    let ScoreValue { data_type, value, string_value } = value.unwrap_or(ScoreValue::numeric(0.0));
    // Upstream stores corrections under the fixed name `output`.
    let name =
        if data_type == ScoreDataType::Correction { "output".to_owned() } else { name.unwrap_or_default() };
    let sdk = &context.sdk;
    Ok(ScoreRecord {
        id: id.unwrap_or_default(),
        project_id: context.project_id.clone(),
        timestamp: micros_to_millis(timestamp.unwrap_or(at_micros)),
        environment: environment.unwrap_or_else(|| DEFAULT_ENVIRONMENT.to_owned()),
        trace_id,
        session_id,
        dataset_run_id,
        observation_id,
        name,
        value,
        source: source.to_owned(),
        comment,
        metadata,
        // Only a person's UI request authors a score; an SDK's `authorUserId` is not taken.
        author_user_id: context.person().map(str::to_owned),
        config_id,
        data_type,
        string_value,
        queue_id,
        execution_trace_id,
        created_at: context.received_at_millis,
        updated_at: context.received_at_millis,
        event_ts: context.received_at_millis,
        ingestion_api_key: context.public_key.clone(),
        ingestion_sdk_name: sdk.name.clone().unwrap_or_else(|| UNKNOWN.to_owned()),
        ingestion_sdk_version: sdk.version.clone().unwrap_or_else(|| UNKNOWN.to_owned()),
    })
}

struct ScoreValue {
    data_type: ScoreDataType,
    value: f64,
    string_value: Option<String>,
}

impl ScoreValue {
    fn numeric(value: f64) -> Self {
        Self { data_type: ScoreDataType::Numeric, value, string_value: None }
    }

    /// String-valued scores store the label; the numeric value of a CATEGORICAL label comes from
    /// its score config (which web wrote into the accepted body), 0 without one as upstream.
    fn text(data_type: ScoreDataType, label: &str) -> Self {
        Self { data_type, value: 0.0, string_value: Some(label.to_owned()) }
    }
}

/// `dataType` + `value` by the rules of each data type; `None` (with an issue) when they disagree.
fn value(check: &mut Check<'_>, has_config: bool) -> Option<ScoreValue> {
    let data_type = check.one_of("dataType", &DATA_TYPES);
    if check.value("dataType").is_some() && data_type.is_none() {
        return None;
    }
    let Some(raw) = check.value("value") else {
        check.issue("value", "required");
        return None;
    };
    match (data_type, raw) {
        (None | Some("NUMERIC"), Value::Number(n)) => n.as_f64().map(ScoreValue::numeric),
        (None | Some("CATEGORICAL"), Value::String(s)) => {
            let mut score = ScoreValue::text(ScoreDataType::Categorical, s);
            if has_config && let Some(number) = check.value(CATEGORY_VALUE_KEY).and_then(Value::as_f64) {
                score.value = number;
            }
            Some(score)
        }
        (Some("BOOLEAN"), Value::Number(n)) => match n.as_f64() {
            Some(v) if v == 0.0 || v == 1.0 => Some(ScoreValue {
                data_type: ScoreDataType::Boolean,
                value: v,
                string_value: Some(if v == 1.0 { "True" } else { "False" }.to_owned()),
            }),
            _ => {
                check.issue("value", "Value must be a number equal to either 0 or 1 for data type BOOLEAN");
                None
            }
        },
        (Some("CORRECTION"), Value::String(s)) => {
            if has_config {
                check.issue("configId", "must not be set for data type CORRECTION");
            }
            Some(ScoreValue::text(ScoreDataType::Correction, s))
        }
        (Some("TEXT"), Value::String(s)) => {
            if s.is_empty() || js_length(s) > MAX_TEXT_LENGTH {
                check.issue(
                    "value",
                    format!("must be 1 to {MAX_TEXT_LENGTH} characters long for data type TEXT"),
                );
                return None;
            }
            Some(ScoreValue::text(ScoreDataType::Text, s))
        }
        (data_type, other) => {
            let expected = match data_type {
                None => "a number or a string",
                Some("NUMERIC" | "BOOLEAN") => "a number",
                Some(_) => "a string",
            };
            let data_type = data_type.map(|t| format!(" for data type {t}")).unwrap_or_default();
            check.issue("value", format!("expected {expected}{data_type}, got {}", kind(other)));
            None
        }
    }
}

fn is_set(target: &Option<String>) -> bool {
    target.as_deref().is_some_and(|t| !t.is_empty())
}
