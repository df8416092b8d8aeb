//! Legacy batch ingestion (`POST /api/public/ingestion`, reference/public-api.md §2) and the legacy
//! single-object endpoints (`POST /api/public/traces`, `/spans`, `/generations`, `/events`,
//! `/scores`): request bodies → the per-event 207 result plus the merged v3 records to write.
//!
//! Pure code (no I/O). Loupe is stricter than upstream in one respect: every event is accounted
//! for. An `sdk-log` is a 201 success (upstream omits it from the answer) and an event without an
//! entity id is a 400 (upstream answers 201 and drops it).

mod check;
mod envelope;
mod kind;
mod merge;
mod observation;
mod score;
mod single;
mod time;
mod trace;
mod usage;
mod values;

#[cfg(test)]
mod tests;

use domain::config::WriteMode;
use domain::sdk::SdkInfo;
use domain::v3::{ObservationUpdate, ScoreRecord, TraceUpdate};
use serde::Serialize;
use serde_json::Value;

pub(crate) use check::MAX_ID_LENGTH;
pub use single::{SingleKind, parse_scores, parse_scores_value, parse_single, parse_single_value};
pub(crate) use usage::openai_usage;
pub(crate) use values::js_length;

/// The `public_key` of a payload a signed-in person sent through the UI (`user:<user id>`): the
/// scores it carries are authored by that person (`authorUserId`). No API key has this form:
/// `IngestionService::sender` refuses one that does, so no client can claim a person's name.
pub const PERSON_KEY_PREFIX: &str = "user:";

/// Who sent a request, and how this server is configured to take it.
#[derive(Debug, Clone)]
pub struct BatchContext {
    pub project_id: String,
    /// When the request was received; the `event_ts` (version) of every record it yields, and the
    /// timestamp of single-object requests.
    pub received_at_millis: i64,
    pub write_mode: WriteMode,
    /// Bearer public-key auth: only `score-create` and `sdk-log` events are allowed.
    pub scores_only: bool,
    pub public_key: String,
    pub sdk: SdkInfo,
}

impl BatchContext {
    /// The signed-in person who sent the request, when a person did (see [`PERSON_KEY_PREFIX`]).
    pub fn person(&self) -> Option<&str> {
        self.public_key.strip_prefix(PERSON_KEY_PREFIX).filter(|id| !id.is_empty())
    }
}

/// Whole-request failures: the HTTP layer answers 400 with this message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BatchError {
    #[error("request body is not valid JSON: {0}")]
    NotJson(String),
    #[error("request body must be a JSON object, got {0}")]
    NotAnObject(&'static str),
    #[error("`batch` is required: an array of ingestion events")]
    MissingBatch,
    #[error("`batch` must be an array of ingestion events, got {0}")]
    BatchNotArray(&'static str),
    #[error("`metadata` must be an object or null, got {0}")]
    MetadataNotObject(&'static str),
    #[error("request body must be a score object or an array of score objects, got {0}")]
    NotScores(&'static str),
}

/// One event's entry in the 207 answer: `{id, status}` for a success, plus `message` and `error`
/// for a failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct EventResult {
    pub id: String,
    pub status: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl EventResult {
    pub fn created(id: String) -> Self {
        Self { id, status: 201, message: None, error: None }
    }

    pub fn invalid(id: String, error: String) -> Self {
        Self { id, status: 400, message: Some("Invalid request data".to_owned()), error: Some(error) }
    }

    pub fn not_found(id: String, error: String) -> Self {
        Self { id, status: 404, message: Some("Resource not found".to_owned()), error: Some(error) }
    }

    pub fn scope_denied(id: String) -> Self {
        Self {
            id,
            status: 401,
            message: Some("Authentication error".to_owned()),
            error: Some("Access Scope Denied".to_owned()),
        }
    }

    pub fn not_accepted(id: String, type_name: &str) -> Self {
        let error = format!(
            "Event type \"{type_name}\" is not accepted by /api/public/ingestion: this server runs in the \
             events_only write mode, where traces and observations are only ingested through OpenTelemetry \
             (/api/public/otel/v1/traces, used by Langfuse SDKs from Python v3 and JS v4 on). This endpoint \
             only accepts score-create and sdk-log events."
        );
        Self { id, status: 400, message: Some("Event type not accepted".to_owned()), error: Some(error) }
    }
}

/// The outcome of one request: a result for every event and the records to write.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedBatch {
    pub successes: Vec<EventResult>,
    pub errors: Vec<EventResult>,
    /// One per trace id (wrapper traces included).
    pub traces: Vec<TraceUpdate>,
    /// One per observation id.
    pub observations: Vec<ObservationUpdate>,
    /// One per score id.
    pub scores: Vec<ScoreRecord>,
    /// The `log` of each `sdk-log` event.
    pub logs: Vec<Value>,
}

/// The 207 body: `{"successes": [...], "errors": [...]}`.
#[derive(Debug, Serialize)]
pub struct IngestionResponse<'a> {
    pub successes: &'a [EventResult],
    pub errors: &'a [EventResult],
}

impl ParsedBatch {
    pub fn response(&self) -> IngestionResponse<'_> {
        IngestionResponse { successes: &self.successes, errors: &self.errors }
    }
}

/// Parses a `POST /api/public/ingestion` body: `{"batch": [<event>…], "metadata"?: {…}}`.
pub fn parse_batch(body: &[u8], context: &BatchContext) -> Result<ParsedBatch, BatchError> {
    parse_batch_value(&parse_json(body)?, context)
}

/// [`parse_batch`] of a body already decoded (web decodes each request body once).
pub fn parse_batch_value(request: &Value, context: &BatchContext) -> Result<ParsedBatch, BatchError> {
    let mut collector = Collector::default();
    for event in batch_events(request)? {
        collector.add(envelope::process(event, context));
    }
    Ok(collector.finish())
}

/// The events of a batch request, once its envelope has the right shape.
pub fn batch_events(request: &Value) -> Result<&Vec<Value>, BatchError> {
    let Value::Object(request) = request else {
        return Err(BatchError::NotAnObject(values::kind(request)));
    };
    let events = match request.get("batch") {
        Some(Value::Array(events)) => events,
        Some(other) => return Err(BatchError::BatchNotArray(values::kind(other))),
        None => return Err(BatchError::MissingBatch),
    };
    // SDKs send `{batch_size, sdk_name, …}`; it is not used beyond this check.
    match request.get("metadata") {
        None | Some(Value::Null | Value::Object(_)) => {}
        Some(other) => return Err(BatchError::MetadataNotObject(values::kind(other))),
    }
    Ok(events)
}

/// [`batch_events`], to rewrite them; `None` when the shape is wrong (see [`batch_events`]).
pub fn batch_events_mut(request: &mut Value) -> Option<&mut Vec<Value>> {
    request.get_mut("batch").and_then(Value::as_array_mut)
}

/// Decodes a JSON request body.
pub fn parse_json(body: &[u8]) -> Result<Value, BatchError> {
    serde_json::from_slice(body).map_err(|e| BatchError::NotJson(crate::depth::json_error(&e)))
}

/// Results in the order the events were sent, and the accepted events to merge.
#[derive(Default)]
struct Collector {
    successes: Vec<EventResult>,
    errors: Vec<EventResult>,
    accepted: Vec<merge::Accepted>,
}

impl Collector {
    fn add(&mut self, outcome: Result<(String, merge::Accepted), EventResult>) {
        match outcome {
            Ok((id, accepted)) => {
                self.successes.push(EventResult::created(id));
                self.accepted.push(accepted);
            }
            Err(result) => self.errors.push(result),
        }
    }

    fn finish(self) -> ParsedBatch {
        let merged = merge::merge(self.accepted);
        ParsedBatch {
            successes: self.successes,
            errors: self.errors,
            traces: merged.traces,
            observations: merged.observations,
            scores: merged.scores,
            logs: merged.logs,
        }
    }
}
