//! `web`: the Langfuse-compatible public API (HTTP and OTLP over gRPC) as a library, so tests can
//! build the same router the binary serves and drive any route in-process.
//!
//! Layers, each using only those below it: `app` (servers) → `server` (connections), `limits`
//! (bounds on every request), `api` (one module per resource: extract, call a service crate, write
//! the response) and `grpc` → `prometheus` (request metrics, `GET /metrics`), `ingest`, `auth`, `session` (the UI's cookie sessions), `ui_assets` (the built web UI at `/`) →
//! `state`, `error`, `key_cache`.

mod api;
mod app;
mod auth;
mod error;
mod grpc;
mod ingest;
mod key_cache;
mod limits;
mod prometheus;
mod server;
mod session;
mod state;
mod ui_assets;

pub use app::{openapi, router, serve};
pub use state::AppState;
