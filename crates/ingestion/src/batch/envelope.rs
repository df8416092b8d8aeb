//! One event of a batch: the write-mode and auth-scope gates, the envelope (reference/public-api.md §2.1)
//! and the body by type.

use domain::config::WriteMode;
use serde_json::{Map, Value};

use super::check::Check;
use super::kind::{EventKind, is_score_or_log};
use super::merge::{Accepted, Entity};
use super::values::{kind as kind_of, shown};
use super::{BatchContext, EventResult, observation, score, trace};

/// The envelope id (for the result) and the accepted event, or the event's error result.
pub fn process(raw: &Value, context: &BatchContext) -> Result<(String, Accepted), EventResult> {
    let object = raw.as_object();
    let field = |key: &str| object.and_then(|o| o.get(key)).and_then(Value::as_str);
    let result_id = field("id").unwrap_or("unknown").to_owned();
    gate(field("type"), &result_id, context)?;
    let Some(object) = object else {
        let error = format!("event: expected an object, got {}", kind_of(raw));
        return Err(EventResult::invalid(result_id, error));
    };

    let mut check = Check::new(object, "");
    if check.value("id").is_none() {
        check.issue("id", "required");
    }
    check.id("id");
    let event_kind = event_kind(&mut check);
    if check.value("timestamp").is_none() {
        check.issue("timestamp", "required");
    }
    let at_micros = check.datetime("timestamp");
    if check.value("body").is_none() {
        check.issue("body", "required, an object");
    }
    let body = check.nested("body");

    // The body is checked even when the envelope is not, so one answer lists every problem.
    let accepted = match (event_kind, body) {
        (Some(event_kind), Some(body)) => {
            Some(accept(event_kind, body, at_micros.unwrap_or_else(|| received_micros(context)), context))
        }
        _ => None,
    };
    match (check.finish(), accepted) {
        (Ok(()), Some(Ok(accepted))) => Ok((result_id, accepted)),
        (envelope, accepted) => {
            let problems: Vec<String> =
                envelope.err().into_iter().chain(accepted.and_then(Result::err)).collect();
            Err(EventResult::invalid(result_id, problems.join("; ")))
        }
    }
}

/// Refuses what this server does not take from this caller, before looking at the event: in
/// events_only mode everything but scores and SDK logs (upstream checks this first too), and the
/// same for a public-key-only (Bearer) caller.
pub fn gate(type_name: Option<&str>, result_id: &str, context: &BatchContext) -> Result<(), EventResult> {
    if is_score_or_log(type_name) {
        return Ok(());
    }
    if context.write_mode == WriteMode::EventsOnly {
        return Err(EventResult::not_accepted(result_id.to_owned(), type_name.unwrap_or("unknown")));
    }
    if context.scores_only {
        return Err(EventResult::scope_denied(result_id.to_owned()));
    }
    Ok(())
}

/// Validates `body` as the body of `event_kind`; `at_micros` is the envelope timestamp.
pub fn accept(
    event_kind: EventKind,
    body: &Map<String, Value>,
    at_micros: i64,
    context: &BatchContext,
) -> Result<Accepted, String> {
    let entity = match event_kind {
        EventKind::TraceCreate => Entity::Trace(trace::parse(body, at_micros, context)?),
        EventKind::Observation(kind) => {
            Entity::Observation(observation::parse(kind, body, at_micros, context)?)
        }
        EventKind::ScoreCreate => Entity::Score(score::parse(body, at_micros, context)?),
        EventKind::SdkLog => Entity::Log(sdk_log(body)?),
        EventKind::DatasetRunItemCreate => {
            return Err("type: Dataset run item creation is only allowed for internal usage".to_owned());
        }
    };
    Ok(Accepted { update: event_kind.is_update(), at_micros, entity })
}

pub fn received_micros(context: &BatchContext) -> i64 {
    context.received_at_millis.saturating_mul(1_000)
}

fn event_kind(check: &mut Check<'_>) -> Option<EventKind> {
    let Some(value) = check.value("type") else {
        check.issue("type", "required");
        return None;
    };
    let found = value.as_str().and_then(EventKind::parse);
    if found.is_none() {
        let names: Vec<_> = EventKind::names().collect();
        check.issue(
            "type",
            format!("unknown event type {}, expected one of {}", shown(value), names.join(", ")),
        );
    }
    found
}

/// `sdk-log`: `{log: <any JSON>, id?: string}`; the log is kept for the server's own logs.
fn sdk_log(body: &Map<String, Value>) -> Result<Value, String> {
    let mut check = Check::new(body, "body");
    if !check.has_key("log") {
        check.issue("log", "required");
    }
    check.string("id");
    check.finish()?;
    Ok(body.get("log").cloned().unwrap_or(Value::Null))
}
