//! The legacy write endpoints: `POST /api/public/ingestion` (batches), `/scores`, and the
//! single-object `/traces`, `/spans`, `/generations`, `/events` (not served in `events_only`).
//!
//! Every event is accounted for in the answer; what is valid is stored as a batch payload and
//! queued, exactly like OTLP exports. Single objects are wrapped into a one-event batch, so the
//! worker has one legacy path.

use bytes::Bytes;
use serde::Serialize;
use serde_json::{Value, json};

use domain::config::WriteMode;

use super::{IngestionService, blocking, scores};
use crate::accept::Sender;
use crate::batch::{
    EventResult, ParsedBatch, SingleKind, batch_events, parse_batch_value, parse_json, parse_scores_value,
    parse_single_value,
};
use crate::error::{ErrorKind, IngestError};

/// The 207 body of a batch: `{"successes": [...], "errors": [...]}`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct BatchAnswer {
    pub successes: Vec<EventResult>,
    pub errors: Vec<EventResult>,
}

/// What `POST /scores` answers: the id of a single score, or that an array was accepted.
#[derive(Debug, PartialEq, Eq)]
pub enum ScoresAnswer {
    One { id: String },
    Many,
}

impl IngestionService {
    /// `POST /api/public/ingestion`: the answer accounts for every event. Scores that name a config
    /// are checked against it first; a refused score-create event is dropped from what is stored
    /// and answered with its own entry (404 for an unknown config, 400 for a broken rule), and
    /// reported once, with the config's reason, even if it is malformed in other ways too.
    pub async fn batch(&self, sender: &Sender, body: Bytes) -> Result<BatchAnswer, IngestError> {
        let context = self.context(sender);
        // The body is decoded once; when no score names a config it is stored as sent.
        let (mut request, unchanged) = blocking(move || {
            let request = parse_json(&body)?;
            let names_configs = scores::named_in_batch(batch_events(&request)?);
            Ok((request, (!names_configs).then_some(body)))
        })
        .await?;
        let (stored, parsed) = match unchanged {
            Some(as_sent) => {
                let parsed = blocking(move || Ok(parse_batch_value(&request, &context)?)).await?;
                (as_sent, parsed)
            }
            None => {
                let configs = scores::lookup_for_batch(&self.postgres, &sender.project_id, &request).await?;
                blocking(move || {
                    let refused = scores::fit_batch(&configs, &mut request);
                    let mut parsed = parse_batch_value(&request, &context)?;
                    parsed.errors.extend(refused);
                    let stored = serde_json::to_vec(&request).map_err(IngestError::internal)?;
                    Ok((Bytes::from(stored), parsed))
                })
                .await?
            }
        };
        if !parsed.errors.is_empty() {
            super::count_rejected("batch_event", parsed.errors.len());
        }
        for log in &parsed.logs {
            tracing::info!(project_id = %sender.project_id, sdk_log = %log, "sdk-log event");
        }
        if has_records(&parsed) {
            self.acceptor.accept_batch(sender, stored).await?;
        }
        Ok(BatchAnswer { successes: parsed.successes, errors: parsed.errors })
    }

    /// `POST /api/public/scores`: one score or an array, all or nothing. The first score that is
    /// invalid, or does not fit its config, refuses the request.
    pub async fn scores(&self, sender: &Sender, body: Bytes) -> Result<ScoresAnswer, IngestError> {
        let context = self.context(sender);
        let is_array = body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
        let (parsed, ids, mut items) = blocking({
            let context = context.clone();
            move || Ok(parse_scores_value(parse_json(&body)?, &context)?)
        })
        .await?;
        reject_event_errors(&parsed)?;
        let labelled = |id: &str, message: &str| {
            if is_array { format!("Score {id}: {message}") } else { message.to_owned() }
        };
        for (item, id) in items.iter().zip(&ids) {
            if let Some(Err(rule)) = item.as_object().map(scores::annotation_rule) {
                return Err(IngestError::invalid(labelled(id, &rule)));
            }
        }
        if scores::named_in(items.iter().filter_map(Value::as_object)) {
            let objects = items.iter().filter_map(Value::as_object);
            let configs = storage::score_configs::lookup(&self.postgres, &sender.project_id, objects).await?;
            for (item, id) in items.iter_mut().zip(&ids) {
                if let Some(score) = item.as_object_mut()
                    && let Err(misfit) = configs.fit(score)
                {
                    let kind = scores::misfit_kind(&misfit);
                    return Err(IngestError::new(kind, labelled(id, misfit.message())));
                }
            }
            // What is stored is what was validated: the rewritten scores are checked again.
            let (parsed, _, fitted) =
                blocking(move || Ok(parse_scores_value(Value::Array(items), &context)?)).await?;
            reject_event_errors(&parsed)?;
            items = fitted;
        }
        let events: Vec<Value> = items.into_iter().map(|item| envelope("score-create", item)).collect();
        self.accept_wrapped(sender, events).await?;
        Ok(if is_array {
            ScoresAnswer::Many
        } else {
            ScoresAnswer::One { id: ids.into_iter().next().unwrap_or_default() }
        })
    }

    /// `POST /api/public/traces`, `/spans`, `/generations`, `/events`: one bare object, whose id
    /// (generated when absent) is the answer.
    pub async fn single(
        &self,
        sender: &Sender,
        kind: SingleKind,
        body: Bytes,
    ) -> Result<String, IngestError> {
        if self.write_mode == WriteMode::EventsOnly {
            return Err(IngestError::new(
                ErrorKind::NotServed,
                "This endpoint is not available in events_only write mode; send traces with OpenTelemetry to /api/public/otel/v1/traces",
            ));
        }
        let context = self.context(sender);
        let (parsed, id, object) =
            blocking(move || Ok(parse_single_value(kind, parse_json(&body)?, &context)?)).await?;
        reject_event_errors(&parsed)?;
        self.accept_wrapped(sender, vec![envelope(kind.event_type(), Value::Object(object))]).await?;
        Ok(id)
    }

    async fn accept_wrapped(&self, sender: &Sender, events: Vec<Value>) -> Result<(), IngestError> {
        let payload = serde_json::to_vec(&json!({ "batch": events })).map_err(IngestError::internal)?;
        Ok(self.acceptor.accept_batch(sender, Bytes::from(payload)).await?)
    }
}

fn has_records(parsed: &ParsedBatch) -> bool {
    !(parsed.traces.is_empty() && parsed.observations.is_empty() && parsed.scores.is_empty())
}

/// A single-object request is all or nothing: its one event's error is the answer.
fn reject_event_errors(parsed: &ParsedBatch) -> Result<(), IngestError> {
    parsed.errors.first().map_or(Ok(()), |error| Err(IngestError::from_event(error)))
}

/// A batch event around a bare body (which carries its id already).
fn envelope(event_type: &str, body: Value) -> Value {
    json!({
        "id": uuid::Uuid::new_v4().to_string(),
        "type": event_type,
        "timestamp": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "body": body,
    })
}
