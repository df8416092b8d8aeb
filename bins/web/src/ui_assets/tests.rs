//! The UI's files as the router serves them, from a directory laid out as `npm run build` leaves it.

use std::path::PathBuf;

use axum::Router;
use axum::body::Body;
use axum::http::header::{ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE};
use axum::http::{HeaderMap, Method, Request, StatusCode};
use axum::routing::get;
use http_body_util::BodyExt;
use tower::ServiceExt;

use super::*;

const INDEX: &str = "<!doctype html><script type=module src=\"/assets/index-abc123.js\"></script>";
const SCRIPT: &str = "console.log('the app')";

/// A build: index.html, one hashed script with its .gz sibling, and an unhashed favicon.
struct Build(PathBuf);

impl Build {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("loupe-ui-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("assets")).unwrap();
        std::fs::write(dir.join("index.html"), INDEX).unwrap();
        std::fs::write(dir.join("assets/index-abc123.js"), SCRIPT).unwrap();
        let gz = marked_gzip(SCRIPT.as_bytes());
        std::fs::write(dir.join("assets/index-abc123.js.gz"), &gz).unwrap();
        std::fs::write(dir.join("favicon.svg"), "<svg/>").unwrap();
        Self(dir)
    }
}

impl Drop for Build {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Not real gzip: web serves the sibling as it is, so any distinct bytes prove which file was sent.
fn marked_gzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = b"GZ:".to_vec();
    out.extend_from_slice(bytes);
    out
}

fn router(dir: &std::path::Path) -> Router {
    let api = Router::new().route("/api/public/health", get(|| async { "ok" }));
    mount(api, dir)
}

async fn send(
    router: &Router,
    method: Method,
    path: &str,
    headers: &[(&str, &str)],
) -> (StatusCode, HeaderMap, String) {
    let mut request = Request::builder().method(method).uri(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = router.clone().oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    (parts.status, parts.headers, String::from_utf8_lossy(&bytes).into_owned())
}

async fn get_path(router: &Router, path: &str) -> (StatusCode, HeaderMap, String) {
    send(router, Method::GET, path, &[]).await
}

#[tokio::test]
async fn every_page_of_the_app_gets_index_html_revalidated_with_a_csp() {
    let build = Build::new("pages");
    let router = router(&build.0);
    for path in ["/", "/sign-in", "/project/p1/observations", "/background-migrations", "/index.html"] {
        let (status, headers, body) = get_path(&router, path).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(body, INDEX, "{path}");
        assert_eq!(headers[CACHE_CONTROL], "no-cache", "{path}");
        assert!(headers[CONTENT_TYPE].to_str().unwrap().starts_with("text/html"), "{path}");
        let csp = headers["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"), "{csp}");
        assert_eq!(headers["x-content-type-options"], "nosniff");
    }
    let (status, _, body) = send(&router, Method::HEAD, "/project/p1/sessions", &[]).await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, ""));
}

#[tokio::test]
async fn hashed_assets_are_immutable_and_sent_gzipped_to_who_accepts_it() {
    let build = Build::new("assets");
    let router = router(&build.0);
    let (status, headers, body) = get_path(&router, "/assets/index-abc123.js").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, SCRIPT);
    assert_eq!(headers[CACHE_CONTROL], IMMUTABLE);
    assert!(!headers.contains_key(CONTENT_ENCODING));
    assert!(!headers.contains_key("content-security-policy"), "only documents carry the policy");

    let gzip = [(ACCEPT_ENCODING.as_str(), "gzip, br")];
    let (status, headers, body) = send(&router, Method::GET, "/assets/index-abc123.js", &gzip).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers[CONTENT_ENCODING], "gzip");
    assert_eq!(body, format!("GZ:{SCRIPT}"));
    assert!(headers[CONTENT_TYPE].to_str().unwrap().contains("javascript"));

    // Unhashed files may change at the next deployment.
    let (status, headers, _) = get_path(&router, "/favicon.svg").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers[CACHE_CONTROL], "no-cache");
}

#[tokio::test]
async fn a_missing_asset_is_a_404_not_the_app() {
    let build = Build::new("missing-asset");
    let (status, headers, body) = get_path(&router(&build.0), "/assets/index-old.js").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_ne!(body, INDEX);
    assert_eq!(headers[CACHE_CONTROL], "no-cache", "a later deployment may have it");
}

#[tokio::test]
async fn api_paths_and_other_methods_keep_the_json_404() {
    let build = Build::new("api");
    let router = router(&build.0);
    let (status, _, body) = get_path(&router, "/api/public/health").await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "ok"), "routes come first");
    for (method, path) in [
        (Method::GET, "/api/public/nothing"),
        (Method::GET, "/api"),
        (Method::GET, "/metrics"),
        (Method::POST, "/project/p1/observations"),
        (Method::DELETE, "/"),
    ] {
        let (status, headers, body) = send(&router, method.clone(), path, &[]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method} {path}");
        assert_eq!(headers[CONTENT_TYPE], "application/json", "{method} {path}");
        let body: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["message"], format!("No such endpoint: {path}"));
    }
}

#[tokio::test]
async fn without_a_build_every_page_says_how_to_build_the_ui() {
    let dir = std::env::temp_dir().join(format!("loupe-ui-never-built-{}", std::process::id()));
    let router = router(&dir);
    let (status, headers, body) = get_path(&router, "/").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(headers[CONTENT_TYPE].to_str().unwrap().starts_with("text/html"));
    assert!(body.contains("The web UI is not built"), "{body}");
    assert!(body.contains("LANGFUSE_UI_DIR") && body.contains("npm run build"), "{body}");
    assert!(body.contains(&dir.display().to_string()), "names where it looked: {body}");
    let (status, _, body) = get_path(&router, "/api/public/nothing").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(body.starts_with('{'), "API paths stay JSON: {body}");
    let (status, _, _) = get_path(&router, "/api/public/health").await;
    assert_eq!(status, StatusCode::OK, "the API is served all the same");
}

#[test]
fn api_paths_are_never_the_uis() {
    for path in ["/api", "/api/", "/api/public/nothing", "/api/ui/me", "/metrics"] {
        assert!(is_api(path), "{path}");
    }
    for path in ["/", "/sign-in", "/project/p/observations", "/apiary", "/background-migrations"] {
        assert!(!is_api(path), "{path}");
    }
}

#[test]
fn a_file_is_not_a_ui_directory_but_a_missing_directory_is_allowed() {
    let build = Build::new("validate");
    let error = validate(&build.0.join("index.html")).unwrap_err().to_string();
    assert!(error.contains(SETTING), "{error}");
    assert!(validate(&build.0).is_ok());
    assert!(validate(&build.0.join("not-there")).is_ok());
}
