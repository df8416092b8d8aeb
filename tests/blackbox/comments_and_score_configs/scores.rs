//! Scores checked against their configs at ingestion: `POST /scores` refuses the request, a batch
//! answers each unfit event with its own 400 entry (404 for a config the project does not have), and (with a worker) refused scores are never
//! stored while fitting ones are stored as their config says.

use std::time::{Duration, Instant};

use chrono::{SecondsFormat, Utc};
use reqwest::Method;
use serde_json::{Value, json};

use super::{CONFIGS, refused};
use crate::api::Api;

/// The configs of the score tests: NUMERIC 0–10 `quality`, CATEGORICAL `verdict` (good 1, bad 0),
/// BOOLEAN `correct`, and an archived NUMERIC `retired`. Returns their ids in that order.
async fn score_configs(api: &Api) -> [String; 4] {
    let bodies = [
        json!({"name": "quality", "dataType": "NUMERIC", "minValue": 0, "maxValue": 10}),
        json!({"name": "verdict", "dataType": "CATEGORICAL", "categories": [{"label": "good", "value": 1}, {"label": "bad", "value": 0}]}),
        json!({"name": "correct", "dataType": "BOOLEAN"}),
        json!({"name": "retired", "dataType": "NUMERIC"}),
    ];
    let mut ids = Vec::new();
    for body in bodies {
        ids.push(
            api.expect(200, Method::POST, CONFIGS, Some(&body)).await["id"].as_str().unwrap().to_owned(),
        );
    }
    api.expect(200, Method::PATCH, &format!("{CONFIGS}/{}", ids[3]), Some(&json!({"isArchived": true})))
        .await;
    ids.try_into().unwrap()
}

fn score(id: &str, config: &str, value: Value) -> Value {
    json!({"id": id, "traceId": "trace-1", "name": "anything", "value": value, "configId": config})
}

fn batch(scores: &[Value]) -> Value {
    let at = Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true);
    let mut events: Vec<Value> = scores
        .iter()
        .map(|body| json!({"id": format!("ev-{}", body["id"].as_str().unwrap()), "type": "score-create", "timestamp": at, "body": body}))
        .collect();
    // Another kind of event, accepted in every write mode, must be unaffected by the refusals.
    events.push(json!({"id": "ev-log", "type": "sdk-log", "timestamp": at, "body": {"log": "hello"}}));
    json!({"batch": events})
}

#[tokio::test]
async fn scores_are_refused_unless_they_fit_their_config() {
    let api = Api::start(&[]).await;
    let [quality, verdict, correct, retired] = score_configs(&api).await;
    let fitting = [
        score("s-num", &quality, json!(7.5)),
        score("s-label", &verdict, json!("good")),
        score("s-value", &verdict, json!(0)),
        score("s-bool", &correct, json!(1)),
        json!({"id": "s-typed", "traceId": "trace-1", "name": "x", "value": 10, "dataType": "NUMERIC", "configId": quality}),
        json!({"id": "s-plain", "traceId": "trace-1", "name": "free", "value": 99}),
    ];
    // POST /scores alone: an annotation names its config, or is a correction.
    let annotated = json!({"id": "s-ann", "traceId": "trace-1", "name": "x", "value": 7, "source": "ANNOTATION", "configId": quality});
    api.expect(200, Method::POST, "/api/public/scores", Some(&annotated)).await;
    let correction = json!({"id": "s-fix", "traceId": "trace-1", "name": "x", "value": "better", "dataType": "CORRECTION", "source": "ANNOTATION"});
    api.expect(200, Method::POST, "/api/public/scores", Some(&correction)).await;
    let bare = json!({"id": "s-bare", "traceId": "trace-1", "name": "x", "value": 7, "source": "ANNOTATION"});
    refused(&api, Method::POST, "/api/public/scores", Some(bare), "ANNOTATION scores need a `configId`")
        .await;
    let unfit = [
        (score("s-high", &quality, json!(11)), "Value 11 is above the maximum 10 of score config 'quality'"),
        (score("s-low", &quality, json!(-1)), "below the minimum 0"),
        (score("s-text", &quality, json!("7")), "the value must be a number"),
        (score("s-meh", &verdict, json!("meh")), "'meh' is not a category of score config 'verdict'"),
        (score("s-two", &verdict, json!(2)), "2 is not a category value"),
        (score("s-bool2", &correct, json!(2)), "the value must be 0 or 1"),
        (score("s-old", &retired, json!(1)), "is archived"),
        (
            json!({"id": "s-typed2", "traceId": "trace-1", "name": "x", "value": "good", "dataType": "CATEGORICAL", "configId": quality}),
            "Data type mismatch based on score config 'quality': expected NUMERIC, got CATEGORICAL",
        ),
    ];

    // POST /scores: one at a time, all or nothing.
    for body in &fitting {
        let answer = api.expect(200, Method::POST, "/api/public/scores", Some(body)).await;
        assert_eq!(answer["id"], body["id"]);
    }
    for (body, rule) in &unfit {
        refused(&api, Method::POST, "/api/public/scores", Some(body.clone()), rule).await;
    }
    let mixed = json!([fitting[0], unfit[0].0]);
    refused(&api, Method::POST, "/api/public/scores", Some(mixed), "Score s-high: Value 11 is above").await;
    // A config the project does not have is a 404, as upstream answers.
    let unknown = score("s-none", "no-such-config", json!(1));
    let answer = api.expect(404, Method::POST, "/api/public/scores", Some(&unknown)).await;
    let says = "configId `no-such-config` does not match a score config";
    assert!(answer["message"].as_str().unwrap().contains(says), "{answer}");

    // The batch: each unfit score is its own 400 entry; the rest, the SDK log included, is accepted.
    let mut scores: Vec<Value> = fitting.to_vec();
    scores.extend(unfit.iter().map(|(body, _)| body.clone()));
    scores.push(unknown);
    let answer = api.expect(207, Method::POST, "/api/public/ingestion", Some(&batch(&scores))).await;
    let mut accepted: Vec<&str> =
        answer["successes"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    accepted.sort_unstable();
    let mut expected: Vec<String> =
        fitting.iter().map(|s| format!("ev-{}", s["id"].as_str().unwrap())).collect();
    expected.push("ev-log".to_owned());
    expected.sort_unstable();
    assert_eq!(accepted, expected, "{answer}");
    let errors = answer["errors"].as_array().unwrap();
    assert_eq!(errors.len(), unfit.len() + 1, "{answer}");
    let entry = errors.iter().find(|e| e["id"] == "ev-s-none").unwrap_or_else(|| panic!("{answer}"));
    assert_eq!(entry["status"], 404, "{entry}");
    assert!(entry["error"].as_str().unwrap().contains(says), "{entry}");
    for (body, rule) in &unfit {
        let id = format!("ev-{}", body["id"].as_str().unwrap());
        let entry = errors
            .iter()
            .find(|e| e["id"] == id.as_str())
            .unwrap_or_else(|| panic!("no entry for {id}: {answer}"));
        assert_eq!(entry["status"], 400, "{entry}");
        assert!(entry["error"].as_str().unwrap().contains(rule), "{id}: expected `{rule}` in {entry}");
    }
    // A batch event that is invalid for another reason is still reported by the parser, once.
    let broken = json!({"batch": [{"id": "ev-x", "type": "score-create", "timestamp": "yesterday", "body": score("s-x", &quality, json!(1))}]});
    let answer = api.expect(207, Method::POST, "/api/public/ingestion", Some(&broken)).await;
    assert_eq!(answer["errors"].as_array().unwrap().len(), 1, "{answer}");
    assert!(answer["errors"][0]["error"].as_str().unwrap().contains("timestamp"), "{answer}");
}

/// Polls `path` until `done` holds, with a deadline.
async fn until(api: &Api, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let body = api.expect(200, Method::GET, path, None).await;
        if done(&body) {
            return body;
        }
        assert!(Instant::now() < deadline, "GET {path} never satisfied the condition: {body}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn refused_scores_are_never_stored_and_fitting_ones_are_stored_as_their_config_says() {
    let api = Api::start(&[
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy"),
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
    ])
    .await;
    let _worker = api.worker().await;
    let [quality, verdict, correct, _] = score_configs(&api).await;
    let scores = [
        score("kept-bool", &correct, json!(1)),
        score("kept-label", &verdict, json!(0)),
        score("dropped", &quality, json!(50)),
        score("kept-num", &quality, json!(3)),
        score("kept-good", &verdict, json!("good")),
    ];
    let answer = api.expect(207, Method::POST, "/api/public/ingestion", Some(&batch(&scores))).await;
    assert_eq!(answer["errors"].as_array().unwrap().len(), 1, "{answer}");

    // One payload holds all five: once the four kept scores are readable, the fifth would be too.
    // The page and its count are two reads, so wait until both show the insert.
    let listed = until(&api, "/api/public/v2/scores?limit=100", |body| {
        body["meta"]["totalItems"].as_u64() >= Some(4)
            && body["data"].as_array().is_some_and(|d| d.len() >= 4)
    })
    .await;
    let stored = |id: &str| listed["data"].as_array().unwrap().iter().find(|s| s["id"] == id).cloned();
    assert!(stored("dropped").is_none() && listed["meta"]["totalItems"] == 4, "{listed}");
    let boolean = stored("kept-bool").unwrap();
    assert_eq!(
        (&boolean["dataType"], &boolean["stringValue"], &boolean["name"]),
        (&json!("BOOLEAN"), &json!("True"), &json!("correct"))
    );
    let label = stored("kept-label").unwrap();
    assert_eq!(
        (&label["dataType"], &label["stringValue"], &label["configId"]),
        (&json!("CATEGORICAL"), &json!("bad"), &json!(verdict))
    );
    let good = stored("kept-good").unwrap();
    assert_eq!(
        (good["stringValue"].as_str(), good["value"].as_f64()),
        (Some("good"), Some(1.0)),
        "a category's numeric value is its config's: {good}"
    );
    let numeric = stored("kept-num").unwrap();
    assert_eq!(
        (&numeric["dataType"], numeric["value"].as_f64(), &numeric["name"]),
        (&json!("NUMERIC"), Some(3.0), &json!("quality"))
    );
}

#[tokio::test]
async fn a_deleted_score_is_gone_from_every_read() {
    let api = Api::start(&[
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy"),
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
    ])
    .await;
    let _worker = api.worker().await;
    for id in ["doomed", "kept"] {
        let body = json!({"id": id, "traceId": "trace-1", "name": "quality", "value": 0.5});
        api.expect(200, Method::POST, "/api/public/scores", Some(&body)).await;
    }
    api.until("/api/public/v2/scores?limit=100", |body| body["meta"]["totalItems"].as_u64() >= Some(2)).await;

    let deleted = api.expect(200, Method::DELETE, "/api/public/scores/doomed", None).await;
    assert_eq!(deleted["message"], "Score deletion queued successfully", "{deleted}");
    api.expect(404, Method::GET, "/api/public/scores/doomed", None).await;
    api.expect(404, Method::GET, "/api/public/v2/scores/doomed", None).await;
    let listed = api.expect(200, Method::GET, "/api/public/v2/scores?limit=100", None).await;
    let ids: Vec<&str> = listed["data"].as_array().unwrap().iter().filter_map(|s| s["id"].as_str()).collect();
    assert_eq!((ids, &listed["meta"]["totalItems"]), (vec!["kept"], &json!(1)), "{listed}");
    let again = api.expect(404, Method::DELETE, "/api/public/scores/doomed", None).await;
    assert!(again["message"].as_str().unwrap().contains("doomed"), "{again}");
    api.expect(404, Method::DELETE, "/api/public/scores/never-written", None).await;
}
