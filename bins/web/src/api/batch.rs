//! The legacy write endpoints: `POST /api/public/ingestion` (batches), `/scores`, and the
//! single-object `/traces`, `/spans`, `/generations`, `/events` (404 in `events_only`).
//!
//! Each request is validated here, so the response accounts for every event; what is valid is
//! stored as a batch payload and queued, exactly like OTLP exports. Single objects are wrapped
//! into a one-event batch, so the worker has one legacy path. Scores that name a score config by
//! `configId` are checked against it here too, since only web can still refuse them.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::{Json, Router};
use bytes::Bytes;
use serde_json::{Map, Value, json};

use domain::config::WriteMode;
use ingestion::accept::Sender;
use ingestion::batch::{
    BatchContext, BatchError, EventResult, ParsedBatch, SingleKind, parse_batch, parse_scores, parse_single,
};
use resources::score_configs::{Misfit, ScoreConfigs};

use crate::app::AppState;
use crate::auth::{ProjectAuth, authenticate_project_or_scores};
use crate::error::ApiError;
use crate::ingest::{self, accept_error};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/public/ingestion", post(batch))
        .route("/api/public/scores", post(scores))
        .route("/api/public/traces", post(|s, a, h, b| single(s, a, h, b, SingleKind::Trace)))
        .route("/api/public/spans", post(|s, a, h, b| single(s, a, h, b, SingleKind::Span)))
        .route("/api/public/generations", post(|s, a, h, b| single(s, a, h, b, SingleKind::Generation)))
        .route("/api/public/events", post(|s, a, h, b| single(s, a, h, b, SingleKind::Event)))
}

fn context(state: &AppState, sender: &Sender) -> BatchContext {
    BatchContext {
        project_id: sender.project_id.clone(),
        received_at_millis: chrono::Utc::now().timestamp_millis(),
        write_mode: state.config.migration.write_mode,
        scores_only: sender.scores_only,
        public_key: sender.public_key.clone(),
        sdk: sender.sdk.clone(),
    }
}

fn invalid(error: BatchError) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "Invalid request data", "InvalidRequestError")
        .with_detail(error.to_string())
}

/// Parses on the blocking pool: a 4 MB batch is real CPU work.
async fn parse<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, BatchError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::internal(format!("parser task failed: {e}")))?
        .map_err(invalid)
}

/// Authentication (full key, or public key for scores), SDK headers and the bounded body of the
/// endpoints that accept scores from the browser SDK.
async fn scores_or_project_request(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> Result<(Sender, Bytes), ApiError> {
    let (auth, scores_only) = authenticate_project_or_scores(state, headers).await?;
    let sender = ingest::scoped_sender(&auth, headers, scores_only)?;
    let body = ingest::read_body(body, state.config.ingestion.max_body_bytes).await?;
    Ok((sender, body))
}

fn has_records(parsed: &ParsedBatch) -> bool {
    !(parsed.traces.is_empty() && parsed.observations.is_empty() && parsed.scores.is_empty())
}

async fn batch(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let (sender, body) = scores_or_project_request(&state, &headers, body).await?;
    let context = context(&state, &sender);
    let (bytes, batch_context) = (body.clone(), context.clone());
    let parsed = parse(move || parse_batch(&bytes, &batch_context)).await?;
    let (body, parsed) = if names_score_configs(&parsed) {
        fit_batch_scores(&state, context, body).await?
    } else {
        (body, parsed)
    };
    for log in &parsed.logs {
        tracing::info!(project_id = %sender.project_id, sdk_log = %log, "sdk-log event");
    }
    if has_records(&parsed) {
        state.acceptor.accept_batch(&sender, body).await.map_err(accept_error)?;
    }
    Ok((StatusCode::MULTI_STATUS, Json(json!(parsed.response()))))
}

async fn scores(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let (sender, body) = scores_or_project_request(&state, &headers, body).await?;
    let is_array = body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
    let (context, bytes) = (context(&state, &sender), body.clone());
    let (parsed, ids) = parse(move || parse_scores(&bytes, &context)).await?;
    reject_event_errors(&parsed)?;
    let values: Value = serde_json::from_slice(&body).map_err(|e| ApiError::bad_request(e.to_string()))?;
    let mut items = match values {
        Value::Array(items) => items,
        single => vec![single],
    };
    for (item, id) in items.iter().zip(&ids) {
        if let Some(Err(rule)) = item.as_object().map(annotation_rule) {
            return Err(ApiError::bad_request(if is_array { format!("Score {id}: {rule}") } else { rule }));
        }
    }
    if names_score_configs(&parsed) {
        fit_scores(&state, &sender, &mut items, &ids, is_array).await?;
    }
    let events: Vec<Value> =
        items.into_iter().zip(&ids).map(|(mut item, id)| envelope("score-create", id, &mut item)).collect();
    accept_wrapped(&state, &sender, events).await?;
    if is_array {
        Ok((StatusCode::ACCEPTED, Json(json!({ "message": "Accepted" }))))
    } else {
        Ok((StatusCode::OK, Json(json!({ "id": ids.first() }))))
    }
}

async fn single(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    body: Body,
    kind: SingleKind,
) -> Result<Json<Value>, ApiError> {
    if state.config.migration.write_mode == WriteMode::EventsOnly {
        return Err(ApiError::not_found(
            "This endpoint is not available in events_only write mode; send traces with OpenTelemetry to /api/public/otel/v1/traces",
        ));
    }
    let sender = ingest::sender(&auth, &headers)?;
    let body = ingest::read_body(body, state.config.ingestion.max_body_bytes).await?;
    let (context, bytes) = (context(&state, &sender), body.clone());
    let (parsed, id) = parse(move || parse_single(kind, &bytes, &context)).await?;
    reject_event_errors(&parsed)?;
    let mut item: Value = serde_json::from_slice(&body).map_err(|e| ApiError::bad_request(e.to_string()))?;
    let event_type = match kind {
        SingleKind::Trace => "trace-create",
        SingleKind::Span => "span-create",
        SingleKind::Generation => "generation-create",
        SingleKind::Event => "event-create",
        SingleKind::Score => "score-create",
    };
    accept_wrapped(&state, &sender, vec![envelope(event_type, &id, &mut item)]).await?;
    Ok(Json(json!({ "id": id })))
}

/// A single-object request is all or nothing: its one event's error is the response.
fn reject_event_errors(parsed: &ParsedBatch) -> Result<(), ApiError> {
    match parsed.errors.first() {
        None => Ok(()),
        Some(error) => Err(ApiError::new(
            StatusCode::from_u16(error.status).unwrap_or(StatusCode::BAD_REQUEST),
            error.message.clone().unwrap_or_else(|| "Invalid request data".to_owned()),
            "InvalidRequestError",
        )
        .with_detail(error.error.clone().unwrap_or_default())),
    }
}

/// A batch event around a bare body, with the id the parser settled on.
fn envelope(event_type: &str, id: &str, body: &mut Value) -> Value {
    if let Value::Object(fields) = body {
        fields.entry("id").or_insert_with(|| Value::String(id.to_owned()));
    }
    json!({
        "id": uuid::Uuid::new_v4().to_string(),
        "type": event_type,
        "timestamp": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "body": body.take(),
    })
}

async fn accept_wrapped(state: &AppState, sender: &Sender, events: Vec<Value>) -> Result<(), ApiError> {
    let payload =
        serde_json::to_vec(&json!({ "batch": events })).map_err(|e| ApiError::internal(e.to_string()))?;
    state.acceptor.accept_batch(sender, Bytes::from(payload)).await.map_err(accept_error)
}

fn names_score_configs(parsed: &ParsedBatch) -> bool {
    parsed.scores.iter().any(|score| score.config_id.is_some())
}

/// The batch as it is to be stored, and its answer, once the scores that name a `configId` are
/// checked against their configs. A refused score-create event is dropped from the batch and
/// answered with a 400 entry; the valid events around it are still accepted. A fitting score is
/// stored as its config says (`ScoreConfigs::fit`). The rewritten batch is parsed again, so the
/// 207 accounts for exactly what the worker will read; an event refused by its config is not in
/// it, and is reported once, with the config's reason, even if it is malformed in other ways too.
async fn fit_batch_scores(
    state: &AppState,
    context: BatchContext,
    body: Bytes,
) -> Result<(Bytes, ParsedBatch), ApiError> {
    let mut request: Value =
        parse(move || serde_json::from_slice(&body).map_err(|e| BatchError::NotJson(e.to_string()))).await?;
    // `parse_batch` accepted this body, so `batch` is an array.
    let events = request
        .get_mut("batch")
        .and_then(Value::as_array_mut)
        .ok_or(BatchError::MissingBatch)
        .map_err(invalid)?;
    let configs = ScoreConfigs::lookup(
        &state.stores.postgres,
        &context.project_id,
        events.iter().filter_map(|event| score_body(event)),
    )
    .await?;
    let mut refused = Vec::new();
    events.retain_mut(|event| {
        let id = event.get("id").and_then(Value::as_str).unwrap_or("unknown").to_owned();
        match score_body_mut(event).map(|score| configs.fit(score)) {
            Some(Err(Misfit::UnknownConfig(message))) => {
                refused.push(EventResult::not_found(id, message));
                false
            }
            Some(Err(Misfit::BrokenRule(rule))) => {
                refused.push(EventResult::invalid(id, rule));
                false
            }
            _ => true,
        }
    });
    let (bytes, mut parsed) = parse(move || {
        let bytes = serde_json::to_vec(&request).map_err(|e| BatchError::NotJson(e.to_string()))?;
        let parsed = parse_batch(&bytes, &context)?;
        Ok((Bytes::from(bytes), parsed))
    })
    .await?;
    parsed.errors.extend(refused);
    Ok((bytes, parsed))
}

fn is_score_create(event: &Value) -> bool {
    event.get("type").and_then(Value::as_str) == Some("score-create")
}

/// The body of a score-create event.
fn score_body(event: &Value) -> Option<&Map<String, Value>> {
    if is_score_create(event) { event.get("body")?.as_object() } else { None }
}

fn score_body_mut(event: &mut Value) -> Option<&mut Map<String, Value>> {
    if is_score_create(event) { event.get_mut("body")?.as_object_mut() } else { None }
}

/// `POST /scores` takes `source`, and an `ANNOTATION` score (a human's judgement on a scale) must
/// name the config of that scale, unless it is a CORRECTION (reference/public-api.md §4.8).
fn annotation_rule(score: &Map<String, Value>) -> Result<(), String> {
    let text = |key: &str| score.get(key).and_then(Value::as_str);
    if text("source") == Some("ANNOTATION")
        && text("dataType") != Some("CORRECTION")
        && text("configId").is_none()
    {
        return Err("ANNOTATION scores need a `configId` (unless their dataType is CORRECTION)".to_owned());
    }
    Ok(())
}

/// `POST /scores` is all or nothing: the first score that does not fit its config refuses the
/// request, with the rule it broke. Fitting scores are stored as their configs say
/// (`ScoreConfigs::fit`), and parsed again so that what is stored is what was validated.
async fn fit_scores(
    state: &AppState,
    sender: &Sender,
    items: &mut [Value],
    ids: &[String],
    is_array: bool,
) -> Result<(), ApiError> {
    let pool = &state.stores.postgres;
    let configs =
        ScoreConfigs::lookup(pool, &sender.project_id, items.iter().filter_map(Value::as_object)).await?;
    for (item, id) in items.iter_mut().zip(ids) {
        if let Some(score) = item.as_object_mut()
            && let Err(misfit) = configs.fit(score)
        {
            let message = if is_array {
                format!("Score {id}: {}", misfit.message())
            } else {
                misfit.message().to_owned()
            };
            return Err(match misfit {
                Misfit::UnknownConfig(_) => ApiError::not_found(message),
                Misfit::BrokenRule(_) => ApiError::bad_request(message),
            });
        }
    }
    let bytes = serde_json::to_vec(items).map_err(|e| ApiError::internal(e.to_string()))?;
    let context = context(state, sender);
    let (parsed, _) = parse(move || parse_scores(&bytes, &context)).await?;
    reject_event_errors(&parsed)
}
