//! Project keys and the admin key, through a running `web`.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::apps::{ADMIN_KEY, App, PUBLIC_KEY, SECRET_KEY, Stack, free_port};

fn basic(public_key: &str, secret_key: &str) -> String {
    format!("Basic {}", STANDARD.encode(format!("{public_key}:{secret_key}")))
}

async fn get(app: &App, path: &str, authorization: Option<&str>) -> (u16, Value) {
    let mut request = crate::apps::http().get(format!("{}{path}", app.base_url));
    if let Some(value) = authorization {
        request = request.header("Authorization", value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

async fn started() -> (Stack, App) {
    let stack = Stack::new().await;
    let mut app = App::spawn("web", &stack.env, free_port());
    app.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    (stack, app)
}

#[tokio::test]
async fn project_keys() {
    let (_stack, app) = started().await;

    let (status, body) = get(&app, "/api/public/projects", Some(&basic(PUBLIC_KEY, SECRET_KEY))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"][0]["id"], "project-blackbox");
    assert_eq!(body["data"][0]["name"], "Blackbox");
    assert_eq!(body["data"][0]["organization"]["id"], "org-blackbox");
    assert_eq!(body["data"][0]["metadata"], serde_json::json!({}));

    let refusals = [
        (None, "No authorization header"),
        (Some(basic(PUBLIC_KEY, "sk-lf-wrong")), "Invalid credentials"),
        (Some(basic("pk-lf-unknown", SECRET_KEY)), "Invalid credentials"),
        (Some("Basic not-base64!".to_owned()), "Invalid authorization header"),
        (Some("Token abc".to_owned()), "Invalid authorization header"),
        (Some("Bearer pk-lf-unknown".to_owned()), "need to use basic auth"),
        // A known public key alone gets the very same answer: nothing tells which keys exist.
        (Some(format!("Bearer {PUBLIC_KEY}")), "need to use basic auth"),
    ];
    for (header, message) in refusals {
        let (status, body) = get(&app, "/api/public/projects", header.as_deref()).await;
        assert_eq!(status, 401, "{header:?}: {body}");
        assert!(body["message"].as_str().unwrap().contains(message), "{header:?}: {body}");
    }
    let unknown = get(&app, "/api/public/projects", Some("Bearer pk-lf-unknown")).await;
    let known = get(&app, "/api/public/projects", Some(&format!("Bearer {PUBLIC_KEY}"))).await;
    assert_eq!(unknown, known, "the same answer for a known and an unknown public key");
}

#[tokio::test]
async fn secret_of_one_project_does_not_open_another() {
    let (stack, app) = started().await;
    crate::api::add_other_project(&stack).await;

    let (status, body) = get(&app, "/api/public/projects", Some(&basic("pk-lf-other", "sk-lf-other"))).await;
    assert_eq!((status, body["data"][0]["id"].as_str()), (200, Some("other")), "{body}");
    let (status, _) = get(&app, "/api/public/projects", Some(&basic(PUBLIC_KEY, "sk-lf-other"))).await;
    assert_eq!(status, 401);
    let (status, _) = get(&app, "/api/public/projects", Some(&basic("pk-lf-other", SECRET_KEY))).await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn admin_endpoints_need_the_admin_key() {
    let (_stack, app) = started().await;
    for path in ["/api/admin/background-migrations", "/api/admin/ingestion/dead-letters"] {
        let (status, body) = get(&app, path, Some(&format!("Bearer {ADMIN_KEY}"))).await;
        assert_eq!(status, 200, "{body}");
        assert!(body["data"].is_array(), "{body}");
        for header in [None, Some("Bearer wrong-key".to_owned()), Some(basic(PUBLIC_KEY, SECRET_KEY))] {
            let (status, body) = get(&app, path, header.as_deref()).await;
            assert_eq!(status, 401, "{path} {header:?}: {body}");
        }
    }
    let replay = format!("{}/api/admin/ingestion/dead-letters/replay", app.base_url);
    let client = crate::apps::http();
    for header in ["Bearer wrong-key".to_owned(), basic(PUBLIC_KEY, SECRET_KEY)] {
        let response =
            client.post(&replay).header("authorization", &header).json(&json!({})).send().await.unwrap();
        assert_eq!(response.status(), 401, "{header}");
    }
    let admin = format!("Bearer {ADMIN_KEY}");
    let response =
        client.post(&replay).header("authorization", &admin).json(&json!({"bogus": 1})).send().await.unwrap();
    assert_eq!(response.status(), 400, "an unknown field is refused");
    let response =
        client.post(&replay).header("authorization", &admin).json(&json!({})).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.json::<Value>().await.unwrap(), json!({"replayed": []}));
}

#[tokio::test]
async fn unknown_paths_and_methods_answer_json() {
    let (_stack, app) = started().await;
    let (status, body) = get(&app, "/api/public/nothing-here", None).await;
    assert_eq!(status, 404);
    assert_eq!(body["error"], "LangfuseNotFoundError");
    let response =
        crate::apps::http().delete(format!("{}/api/public/health", app.base_url)).send().await.unwrap();
    assert_eq!(response.status(), 405);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["message"], "Method not allowed");
}
