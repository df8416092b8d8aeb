//! The legacy single-object endpoints: `POST /api/public/traces`, `/spans`, `/generations`,
//! `/events` and `/scores` take one bare body (no envelope); `POST /api/public/scores` of newer
//! SDKs also takes an array of scores. Each body is validated and merged exactly as the body of
//! the matching batch event; a missing `id` is generated, as upstream does.

use serde_json::{Map, Value};
use uuid::Uuid;

use super::envelope::{self, received_micros};
use super::kind::{EventKind, SCORE_CREATE};
use super::merge::Accepted;
use super::values::kind as kind_of;
use super::{BatchContext, BatchError, Collector, EventResult, ParsedBatch, parse_json};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SingleKind {
    Trace,
    Span,
    Generation,
    Event,
    Score,
}

impl SingleKind {
    /// The batch event whose body this endpoint takes. Upstream routes spans, generations and
    /// events through the legacy `observation-create` body; the `*-create` bodies accept all of
    /// its fields plus `environment` and the prompt link.
    pub fn event_type(self) -> &'static str {
        match self {
            Self::Trace => "trace-create",
            Self::Span => "span-create",
            Self::Generation => "generation-create",
            Self::Event => "event-create",
            Self::Score => SCORE_CREATE,
        }
    }
}

/// Parses one bare object; returns the results (exactly one) and the id of the object, generated
/// when the body has none.
pub fn parse_single(
    kind: SingleKind,
    body: &[u8],
    context: &BatchContext,
) -> Result<(ParsedBatch, String), BatchError> {
    parse_single_value(kind, parse_json(body)?, context).map(|(parsed, id, _)| (parsed, id))
}

/// [`parse_single`] of a decoded body. Also returns the object as it is to be stored: with its
/// id, and a legacy generation's `prompt`/`completion` as `input`/`output`.
pub fn parse_single_value(
    kind: SingleKind,
    body: Value,
    context: &BatchContext,
) -> Result<(ParsedBatch, String, Map<String, Value>), BatchError> {
    let mut object = match body {
        Value::Object(object) => object,
        other => return Err(BatchError::NotAnObject(kind_of(&other))),
    };
    let id = ensure_id(&mut object);
    if kind == SingleKind::Generation {
        rename_legacy_generation_io(&mut object);
    }
    let mut collector = Collector::default();
    collector.add(one(kind.event_type(), &id, &object, context));
    Ok((collector.finish(), id, object))
}

/// `POST /api/public/scores`: one score object or a JSON array of them. Returns the id of each
/// element in order (generated when missing, `unknown` for an element that is not an object).
pub fn parse_scores(body: &[u8], context: &BatchContext) -> Result<(ParsedBatch, Vec<String>), BatchError> {
    parse_scores_value(parse_json(body)?, context).map(|(parsed, ids, _)| (parsed, ids))
}

/// [`parse_scores`] of a decoded body (or of scores rewritten by their configs). Also returns the
/// elements as they are to be stored, each object with its id.
pub fn parse_scores_value(
    body: Value,
    context: &BatchContext,
) -> Result<(ParsedBatch, Vec<String>, Vec<Value>), BatchError> {
    let items = match body {
        Value::Array(items) => items,
        object @ Value::Object(_) => vec![object],
        other => return Err(BatchError::NotScores(kind_of(&other))),
    };
    let mut collector = Collector::default();
    let mut ids = Vec::with_capacity(items.len());
    let mut stored = Vec::with_capacity(items.len());
    for item in items {
        let Value::Object(mut object) = item else {
            let error = format!("score: expected an object, got {}", kind_of(&item));
            collector.add(Err(EventResult::invalid(UNKNOWN_ID.to_owned(), error)));
            ids.push(UNKNOWN_ID.to_owned());
            stored.push(item);
            continue;
        };
        let id = ensure_id(&mut object);
        collector.add(one(SCORE_CREATE, &id, &object, context));
        ids.push(id);
        stored.push(Value::Object(object));
    }
    Ok((collector.finish(), ids, stored))
}

const UNKNOWN_ID: &str = "unknown";

fn one(
    event_type: &str,
    id: &str,
    body: &Map<String, Value>,
    context: &BatchContext,
) -> Result<(String, Accepted), EventResult> {
    envelope::gate(Some(event_type), id, context)?;
    let event_kind = EventKind::parse(event_type).ok_or_else(|| {
        EventResult::invalid(id.to_owned(), format!("type: unknown event type {event_type}"))
    })?;
    envelope::accept(event_kind, body, received_micros(context), context)
        .map(|accepted| (id.to_owned(), accepted))
        .map_err(|error| EventResult::invalid(id.to_owned(), error))
}

/// The body's `id`, or a new UUID written into the body when it has none. A non-string id is left
/// for validation to report.
fn ensure_id(object: &mut Map<String, Value>) -> String {
    match object.get("id") {
        Some(Value::String(id)) => id.clone(),
        None | Some(Value::Null) => {
            let id = Uuid::new_v4().to_string();
            object.insert("id".to_owned(), Value::String(id.clone()));
            id
        }
        Some(_) => UNKNOWN_ID.to_owned(),
    }
}

/// The first SDKs posted generations with `prompt`/`completion`; upstream maps them to
/// `input`/`output`.
fn rename_legacy_generation_io(object: &mut Map<String, Value>) {
    for (legacy, current) in [("prompt", "input"), ("completion", "output")] {
        if object.get(current).is_none_or(Value::is_null)
            && let Some(value) = object.get(legacy).filter(|v| !v.is_null()).cloned()
        {
            object.insert(current.to_owned(), value);
        }
    }
}
