//! Scores that name a score config by `configId` are checked against it before they are
//! accepted, since only the accepting side can still refuse them (`domain::score_config`).

use serde_json::{Map, Value};
use sqlx::PgPool;

use domain::score_config::{Misfit, ScoreConfigs, config_id};

use crate::batch::{EventResult, batch_events_mut};
use crate::error::{ErrorKind, IngestError};

/// Whether any of these score bodies names a config.
pub fn named_in<'a>(mut scores: impl Iterator<Item = &'a Map<String, Value>>) -> bool {
    scores.any(|score| config_id(score).is_some())
}

/// Whether any score-create event of a batch names a config.
pub fn named_in_batch(events: &[Value]) -> bool {
    named_in(events.iter().filter_map(score_body))
}

/// The configs the batch's score-create events name, in one query.
pub async fn lookup_for_batch(
    pool: &PgPool,
    project: &str,
    request: &Value,
) -> Result<ScoreConfigs, IngestError> {
    let events = request.get("batch").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    Ok(storage::score_configs::lookup(pool, project, events.iter().filter_map(score_body)).await?)
}

/// Rewrites each score-create event that fits its config as the config says it is stored, and
/// drops each that does not from the batch, returning their answers.
pub fn fit_batch(configs: &ScoreConfigs, request: &mut Value) -> Vec<EventResult> {
    let mut refused = Vec::new();
    let Some(events) = batch_events_mut(request) else { return refused };
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
    refused
}

/// A config the project does not have is a 404, as upstream answers; a broken rule a 400.
pub fn misfit_kind(misfit: &Misfit) -> ErrorKind {
    match misfit {
        Misfit::UnknownConfig(_) => ErrorKind::NotFound,
        Misfit::BrokenRule(_) => ErrorKind::InvalidRequest,
    }
}

/// `POST /scores` takes `source`, and an `ANNOTATION` score (a human's judgement on a scale) must
/// name the config of that scale, unless it is a CORRECTION (reference/public-api.md §4.8).
pub fn annotation_rule(score: &Map<String, Value>) -> Result<(), String> {
    let text = |key: &str| score.get(key).and_then(Value::as_str);
    if text("source") == Some("ANNOTATION")
        && text("dataType") != Some("CORRECTION")
        && text("configId").is_none()
    {
        return Err("ANNOTATION scores need a `configId` (unless their dataType is CORRECTION)".to_owned());
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn annotation_scores_need_a_config_unless_they_correct() {
        let score = |value: Value| value.as_object().unwrap().clone();
        assert!(annotation_rule(&score(json!({"source": "ANNOTATION"}))).is_err());
        assert!(annotation_rule(&score(json!({"source": "ANNOTATION", "configId": "c"}))).is_ok());
        assert!(annotation_rule(&score(json!({"source": "ANNOTATION", "dataType": "CORRECTION"}))).is_ok());
        assert!(annotation_rule(&score(json!({"source": "API"}))).is_ok());
    }

    #[test]
    fn unknown_configs_drop_their_events_and_keep_the_rest() {
        let mut request = json!({"batch": [
            {"id": "e1", "type": "score-create", "body": {"configId": "missing", "value": 1}},
            {"id": "e2", "type": "score-create", "body": {"value": 1}},
            {"id": "e3", "type": "trace-create", "body": {"configId": "missing"}},
        ]});
        assert!(named_in_batch(request["batch"].as_array().unwrap()));
        let refused = fit_batch(&ScoreConfigs::default(), &mut request);
        assert_eq!(refused.len(), 1);
        assert_eq!((refused[0].id.as_str(), refused[0].status), ("e1", 404));
        let kept: Vec<&str> =
            request["batch"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect();
        assert_eq!(kept, ["e2", "e3"], "only score-create bodies are checked");
    }
}
