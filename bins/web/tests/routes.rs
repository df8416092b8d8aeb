//! The router the binary serves, driven in-process (tower's `oneshot`) against the real test stack:
//! every route in the OpenAPI document is mounted and guarded as it says, and the document is what
//! `/api/public/openapi.json` serves.

#![allow(clippy::unwrap_used)]

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use domain::config::{Config, Role};
use test_support::{TestClickHouse, TestPostgres, stack_env};

const PUBLIC_KEY: &str = "pk-lf-router";
const SECRET_KEY: &str = "sk-lf-router";

/// A router over this test's own databases, as `web` builds it at startup.
async fn router() -> (Router, TestPostgres, TestClickHouse) {
    service::install_crypto_provider();
    let (pg, ch) = (TestPostgres::create().await, TestClickHouse::create().await);
    let mut env = stack_env(&pg, &ch);
    for (name, value) in [
        ("LANGFUSE_INIT_ORG_ID", "org-router"),
        ("LANGFUSE_INIT_PROJECT_ID", "project-router"),
        ("LANGFUSE_INIT_PROJECT_PUBLIC_KEY", PUBLIC_KEY),
        ("LANGFUSE_INIT_PROJECT_SECRET_KEY", SECRET_KEY),
        ("ADMIN_API_KEY", "admin-router"),
        ("SALT", "router-salt"),
    ] {
        env.insert(name.into(), value.into());
    }
    let config = Config::from_env_vars(Role::Web, env).unwrap_or_else(|e| panic!("{:?}", e.problems));
    let state = web::AppState::build(config, &CancellationToken::new()).await.unwrap();
    (web::router(state), pg, ch)
}

async fn call(router: &Router, method: Method, path: &str) -> (StatusCode, Value) {
    let request = Request::builder().method(method).uri(path).body(Body::empty()).unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// A concrete path for a templated one: each `{param}` becomes a placeholder segment.
fn concrete(template: &str) -> String {
    template
        .split('/')
        .map(|segment| if segment.starts_with('{') { "x" } else { segment })
        .collect::<Vec<_>>()
        .join("/")
}

/// Routes anyone may call; every other route must refuse a request without credentials.
const OPEN: &[&str] = &[
    "/api/public/health",
    "/api/public/ready",
    "/api/public/openapi.json",
    "/api/ui/auth/sign-up",
    "/api/ui/auth/sign-in",
    "/api/ui/auth/config",
];

#[tokio::test]
async fn every_documented_route_is_mounted_and_refuses_callers_without_credentials() {
    let (router, _pg, _ch) = router().await;
    let (status, served) = call(&router, Method::GET, "/api/public/openapi.json").await;
    assert_eq!(status, StatusCode::OK);
    let generated = serde_json::to_value(web::openapi()).unwrap();
    assert_eq!(served, generated, "the served document is the generated one");
    let paths = generated["paths"].as_object().unwrap();
    assert!(paths.len() >= 10, "only {} paths documented", paths.len());
    let mut checked = 0;
    for (template, operations) in paths {
        for (method, operation) in operations.as_object().unwrap() {
            let Ok(method) = method.to_uppercase().parse::<Method>() else { continue };
            let path = concrete(template);
            let (status, body) = call(&router, method.clone(), &path).await;
            let label = format!("{method} {template}");
            let fallback = body["message"].as_str().is_some_and(|m| m.starts_with("No such endpoint"));
            assert!(
                !fallback && status != StatusCode::METHOD_NOT_ALLOWED,
                "{label} is not mounted: {status} {body}"
            );
            if OPEN.contains(&template.as_str()) || template.contains("/media/") {
                continue;
            }
            if template.starts_with("/api/ui/public/") {
                // A public link's token is its credential (as a media URL's): a made-up one is a 404.
                assert_eq!(status, StatusCode::NOT_FOUND, "{label} with a made-up token: {body}");
                continue;
            }
            assert!(operation.get("security").is_some(), "{label} documents no security requirement");
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{label} without credentials: {body}");
            assert!(body["message"].is_string(), "{label}: the 401 has a JSON message: {body}");
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} guarded operations checked");
}

/// Client generators name their methods after operation ids, so two operations must never share one.
#[test]
fn operation_ids_are_unique() {
    let document = serde_json::to_value(web::openapi()).unwrap();
    let mut seen = std::collections::BTreeMap::new();
    for (template, operations) in document["paths"].as_object().unwrap() {
        for (method, operation) in operations.as_object().unwrap() {
            let Some(id) = operation["operationId"].as_str() else { continue };
            if let Some(first) = seen.insert(id.to_owned(), format!("{method} {template}")) {
                panic!("operation id `{id}` names both {first} and {method} {template}");
            }
        }
    }
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_json() {
    let (router, _pg, _ch) = router().await;
    let (status, body) = call(&router, Method::GET, "/api/public/no-such-thing").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["message"], "No such endpoint: /api/public/no-such-thing");
    let (status, body) = call(&router, Method::PATCH, "/api/public/health").await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(body["error"], "MethodNotAllowedError");
}

/// Every route is mounted through `utoipa_axum::routes!`, which documents it as it mounts it; a
/// route added with a plain `Router::route` would be served but missing from the document.
#[test]
fn routes_are_mounted_only_through_the_documenting_router() {
    let api = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/api");
    for entry in std::fs::read_dir(&api).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(&path).unwrap();
        let plain_routes = source.matches(".route(").count();
        let allowed = usize::from(name == "mod.rs"); // the document's own route
        assert!(
            plain_routes <= allowed,
            "src/api/{name} mounts {plain_routes} route(s) with a plain `.route(`: use `routes!`"
        );
    }
}
