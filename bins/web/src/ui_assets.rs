//! The web UI's files (`ui/`, built by Vite into `LANGFUSE_UI_DIR`), served at `/` as the router's
//! fallback, so every API route keeps precedence.
//!
//! - `/api/…` and `/metrics` are never the UI's: an unknown one stays the JSON 404 API clients get.
//! - A file of the build is served as it is, or its `.gz` sibling when the client accepts gzip (the
//!   build writes them, `ui/scripts/compress.mjs`), so nothing is compressed per request.
//! - Any other path is a page of the single-page app (`/project/p1/observations`): it gets
//!   `index.html` and the app's router takes it from there. A missing `/assets/…` file is a 404,
//!   not `index.html`: a browser would otherwise run HTML as a script after a deployment.
//! - Vite names everything under `/assets/` by its content hash, so those are cached for a year;
//!   `index.html` (and the other unhashed files) is revalidated every time, so a deployment shows at
//!   the next load.
//! - Without the directory web still serves the API (an API-only deployment is legitimate), and
//!   `GET /` says how to build the UI.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderName};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use tower::ServiceExt;
use tower_http::services::{ServeDir, ServeFile};

use crate::error::ApiError;

const SETTING: &str = "LANGFUSE_UI_DIR";
const HASHED_ASSETS: &str = "/assets/";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The app loads only its own scripts, styles and fonts and talks only to this origin; nothing may
/// frame it. React sets inline styles through the DOM, which `style-src 'self'` allows.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; \
                   font-src 'self'; connect-src 'self'; worker-src 'self' blob:; object-src 'none'; \
                   base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/// Refuses a `LANGFUSE_UI_DIR` that names something other than a directory: that is a mistake
/// (a file, a typo'd mount), unlike a directory that was simply not built.
pub fn validate(dir: &Path) -> anyhow::Result<()> {
    match std::fs::metadata(dir) {
        Ok(meta) if !meta.is_dir() => {
            anyhow::bail!(
                "{SETTING}: {} is not a directory (the built UI, `npm run build` in ui/)",
                dir.display()
            )
        }
        _ => Ok(()),
    }
}

/// The fallback of `router`: the UI where it is built, the "not built" page where it is not, and
/// the API's JSON 404 for API paths either way.
pub fn mount<S: Clone + Send + Sync + 'static>(router: Router<S>, dir: &Path) -> Router<S> {
    let ui = Arc::new(UiFiles::open(dir));
    router.fallback(move |request: Request| {
        let ui = ui.clone();
        async move { ui.answer(request).await }
    })
}

enum UiFiles {
    Built(Box<Built>),
    Missing(PathBuf),
}

struct Built {
    /// The build's files as they are: `/assets/…`, where a missing file is a 404.
    files: ServeDir,
    /// The same, with `index.html` for any other path: the app's pages.
    pages: ServeDir<ServeFile>,
}

impl UiFiles {
    fn open(dir: &Path) -> Self {
        let index = dir.join("index.html");
        if !index.is_file() {
            tracing::warn!(
                dir = %dir.display(),
                "{SETTING} has no index.html: the web UI is not served (build it with `npm ci && npm run build` in ui/, or point {SETTING} at a build)"
            );
            return Self::Missing(dir.to_owned());
        }
        tracing::info!(dir = %dir.display(), "serving the web UI at /");
        let files = ServeDir::new(dir).precompressed_gzip();
        let pages =
            ServeDir::new(dir).precompressed_gzip().fallback(ServeFile::new(index).precompressed_gzip());
        Self::Built(Box::new(Built { files, pages }))
    }

    async fn answer(&self, request: Request) -> Response {
        let path = request.uri().path().to_owned();
        let readable = matches!(*request.method(), Method::GET | Method::HEAD);
        if !readable || is_api(&path) {
            return ApiError::not_found(format!("No such endpoint: {path}")).into_response();
        }
        match self {
            Self::Missing(dir) => not_built(dir),
            Self::Built(built) => {
                let response = if path.starts_with(HASHED_ASSETS) {
                    built.files.clone().oneshot(request).await.map(|r| r.map(Body::new))
                } else {
                    built.pages.clone().oneshot(request).await.map(|r| r.map(Body::new))
                };
                match response {
                    Ok(response) => with_headers(&path, response),
                    Err(never) => match never {},
                }
            }
        }
    }
}

/// Paths the UI never answers, so an unknown one keeps the API's JSON 404.
fn is_api(path: &str) -> bool {
    path == "/api" || path.starts_with("/api/") || path == crate::prometheus::PATH
}

fn with_headers(path: &str, mut response: Response) -> Response {
    let cache = if path.starts_with(HASHED_ASSETS) && response.status() == StatusCode::OK {
        IMMUTABLE
    } else {
        "no-cache"
    };
    let headers = response.headers_mut();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static(cache));
    let html =
        headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("text/html"));
    if html {
        headers.insert(HeaderName::from_static("content-security-policy"), HeaderValue::from_static(CSP));
    }
    security_headers(headers);
    response
}

fn security_headers(headers: &mut axum::http::HeaderMap) {
    headers.insert(HeaderName::from_static("x-content-type-options"), HeaderValue::from_static("nosniff"));
    headers.insert(HeaderName::from_static("x-frame-options"), HeaderValue::from_static("DENY"));
    headers.insert(HeaderName::from_static("referrer-policy"), HeaderValue::from_static("same-origin"));
}

/// What `GET /` (and every page) answers when the UI is not built: where web looked and how to build it.
fn not_built(dir: &Path) -> Response {
    let dir = escape(&dir.display().to_string());
    let body = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Loupe: the UI is not built</title></head>\
         <body style=\"font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;line-height:1.5\">\
         <h1>The web UI is not built</h1>\
         <p>This Loupe server answers its API under <code>/api/</code>, but found no UI in <code>{dir}</code> \
         (<code>{SETTING}</code>).</p>\
         <p>Build it from the repository root with <code>cd ui &amp;&amp; npm ci &amp;&amp; npm run build</code> \
         (<code>just run</code> does this), or set <code>{SETTING}</code> to a built UI, then restart web.</p>\
         </body></html>"
    );
    let mut response =
        (StatusCode::NOT_FOUND, [(CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response();
    let headers = response.headers_mut();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        HeaderName::from_static("content-security-policy"),
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"),
    );
    security_headers(headers);
    response
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests;
