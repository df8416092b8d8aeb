//! Evaluators and evaluation rules (`/api/public/v2/evaluators…`, `/api/public/v2/evaluation-rules…`)
//! through a running `web`: the real Python SDK 5 end to end, then raw HTTP for what the SDK does
//! not show — the SDK's error shape on bad input and bad credentials, roles over the session (a
//! VIEWER reads and cannot write), and isolation between projects.

use reqwest::Method;
use serde_json::{Value, json};

use crate::api::Api;
use crate::apps::run_client;
use crate::identity::web;
use crate::sessions::{Browser, signed_up};

const EVALUATORS: &str = "/api/public/v2/evaluators";
const RULES: &str = "/api/public/v2/evaluation-rules";

#[tokio::test]
async fn python_sdk_manages_evaluators_and_rules() {
    let api = Api::start(&[]).await;
    let seen = run_client("evaluators.py", &api.web).await;
    assert_eq!(
        seen["created"],
        json!(["llm_as_judge", 1, "active", ["input", "output"], "user", "NUMERIC", "stub"])
    );
    assert_eq!(seen["default_model"], true);
    assert_eq!(seen["fetched"], json!(["Helpfulness", "Is the answer helpful?", "$.text"]));
    assert_eq!(seen["pages"], json!([["Tone"], ["Helpfulness"], true, true]), "newest first, cursor paged");
    assert_eq!(seen["renamed"], json!(["Helpfulness v2", 1]), "metadata changes make no version");
    assert_eq!(seen["redefined"], json!([2, ["output"], true]));
    assert_eq!(seen["versions"], json!([2, 1]));
    assert_eq!(seen["code"][0], 501, "{seen}");
    assert!(seen["code"][2].as_str().unwrap().contains("sandbox"), "{seen}");
    assert_eq!(
        (&seen["bad_categories"][0], &seen["bad_categories"][1]),
        (&json!(400), &json!("invalid_body")),
        "{seen}"
    );
    assert_eq!(seen["bad_categories"][3], json!([["outputDefinition", "categories"]]), "{seen}");
    assert!(
        seen["unmapped"][2].as_str().unwrap().contains("\"other\" of the prompt is not mapped"),
        "{seen}"
    );
    assert_eq!((&seen["missing"][0], &seen["missing"][1]), (&json!(404), &json!("resource_not_found")));
    assert_eq!(seen["rule"], json!(["Generations", true, 0.5, "type", "any of", true]));
    assert_eq!(seen["draft"], json!([false, 1.0, []]));
    assert_eq!(seen["rules_page"], json!([["Draft"], true]));
    assert_eq!(seen["rule_updated"], json!(["All generations", 1.0]));
    assert_eq!(seen["emptied"], false, "an empty assignment list disables the rule");
    assert_eq!(seen["assignments"], 0);
    assert_eq!(seen["enable_empty"][0], 400, "{seen}");
    assert_eq!(seen["unknown_evaluator"][0], 404, "{seen}");
    assert_eq!(seen["bad_filter"][3], json!([["filter", 0, "column"]]), "{seen}");
    assert_eq!(seen["rule_deleted"], true);
    assert_eq!(seen["rule_gone"][0], 404);
    assert_eq!(seen["evaluator_deleted"], true);
    assert_eq!(seen["evaluator_gone"][0], 404);
}

fn judge() -> Value {
    json!({"type": "llm_as_judge", "name": "Judge", "prompt": "Rate {{output}}",
           "outputDefinition": {"dataType": "BOOLEAN"}})
}

#[tokio::test]
async fn evaluator_routes_answer_the_sdk_error_shape_and_stay_in_their_project() {
    let api = Api::start(&[]).await;
    let (status, created) = api.send(Method::POST, EVALUATORS, Some(&judge())).await;
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();

    // Bad credentials and bad bodies answer PublicApiError: message, code, details.issues.
    let (status, body) = api.send_as("Basic bm86bm8=", Method::GET, EVALUATORS, None).await;
    assert_eq!((status, &body["code"]), (401, &json!("authentication_failed")), "{body}");
    let response = crate::apps::http()
        .post(format!("{}{EVALUATORS}", api.web.base_url))
        .header("Authorization", &api.key)
        .header("Content-Type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], "invalid_body", "{body}");
    let (status, body) = api.send(Method::POST, EVALUATORS, Some(&json!({"type": "llm_as_judge"}))).await;
    assert_eq!((status, &body["code"]), (400, &json!("invalid_body")), "{body}");
    let paths: Vec<&Value> =
        body["details"]["issues"].as_array().unwrap().iter().map(|i| &i["path"]).collect();
    assert_eq!(paths, [&json!(["name"]), &json!(["prompt"]), &json!(["outputDefinition"])], "{body}");
    let (status, body) = api.send(Method::GET, &format!("{EVALUATORS}?limit=500"), None).await;
    assert_eq!((status, &body["code"]), (400, &json!("invalid_query")), "{body}");
    let rule = json!({"name": "t", "enabled": false, "evaluatorAssignments": [], "sampling": 1.5});
    let (status, body) = api.send(Method::POST, RULES, Some(&rule)).await;
    assert_eq!((status, &body["details"]["issues"][0]["path"]), (400, &json!(["sampling"])), "{body}");
    // The v3 kinds cannot be created after the cutover (the test stack writes events_only).
    let rule = json!({"name": "t", "enabled": true, "target": "trace", "evaluatorAssignments": [{"evaluatorId": id}]});
    let (status, body) = api.send(Method::POST, RULES, Some(&rule)).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("events_only"), "{body}");

    // Another project's key sees none of it and cannot assign it.
    let other = api.other_project().await;
    let (status, body) = api.send_as(&other, Method::GET, &format!("{EVALUATORS}/{id}"), None).await;
    assert_eq!(status, 404, "{body}");
    let (_, listed) = api.send_as(&other, Method::GET, EVALUATORS, None).await;
    assert_eq!(listed["data"], json!([]));
    let rule = json!({"name": "steal", "enabled": true, "evaluatorAssignments": [{"evaluatorId": id}]});
    let (status, _) = api.send_as(&other, Method::POST, RULES, Some(&rule)).await;
    assert_eq!(status, 404);
    let (status, _) = api.send_as(&other, Method::DELETE, &format!("{EVALUATORS}/{id}"), None).await;
    assert_eq!(status, 404);
    let (status, _) = api.send(Method::GET, &format!("{EVALUATORS}/{id}"), None).await;
    assert_eq!(status, 200, "still there for its own project");
}

#[tokio::test]
async fn a_viewer_reads_evaluators_and_cannot_write_them() {
    let mut stack = crate::apps::Stack::new().await;
    stack.env.insert("LANGFUSE_INIT_USER_EMAIL".into(), "owner@example.com".into());
    stack.env.insert("LANGFUSE_INIT_USER_PASSWORD".into(), "owner password".into());
    let app = web(&stack.env).await;
    let mut owner = Browser::default();
    let credentials = json!({"email": "owner@example.com", "password": "owner password"});
    owner.expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;
    let project = [("X-Loupe-Project", "project-blackbox")];
    let made = owner.send(&app, "POST", EVALUATORS, Some(judge()), &project).await;
    assert_eq!(made.status, 200, "{}", made.body);
    assert!(
        made.body["createdBy"]["id"].is_string(),
        "a person's evaluator names its creator: {}",
        made.body
    );
    let id = made.body["id"].as_str().unwrap().to_owned();

    let mut viewer = signed_up(&app, "viewer@example.com").await;
    let me = viewer.expect(&app, 200, "GET", "/api/ui/me", None).await;
    let body = json!({"userId": me["user"]["id"], "role": "VIEWER"});
    owner.expect(&app, 200, "PUT", "/api/ui/organizations/org-blackbox/members", Some(body)).await;
    let read = viewer.send(&app, "GET", &format!("{EVALUATORS}/{id}"), None, &project).await;
    assert_eq!(read.status, 200, "{}", read.body);
    let path = format!("{EVALUATORS}/{id}");
    for (method, path, body) in [
        ("POST", EVALUATORS, Some(judge())),
        ("PATCH", path.as_str(), Some(json!({"name": "mine"}))),
        ("DELETE", path.as_str(), None),
        ("POST", RULES, Some(json!({"name": "r", "enabled": false, "evaluatorAssignments": []}))),
    ] {
        let answer = viewer.send(&app, method, path, body, &project).await;
        assert_eq!(answer.status, 403, "{method} {path}: {}", answer.body);
        assert_eq!(answer.body["code"], "access_denied", "{}", answer.body);
    }
}
