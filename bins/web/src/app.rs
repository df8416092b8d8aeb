//! The HTTP and gRPC servers around the router.

use std::net::SocketAddr;

use anyhow::Context;
use axum::Router;
use axum::middleware::from_fn_with_state;
use tokio_util::sync::CancellationToken;

use crate::limits::{self, Limits};
use crate::server::{self, Protocols};
use crate::state::AppState;

/// Every route of the public API and the UI, ready to serve; tests drive it in-process. With
/// metrics on, each route is counted and `GET /metrics` is mounted beside them. The web UI's files
/// (`LANGFUSE_UI_DIR`) answer whatever no route matched outside `/api/`.
pub fn router(state: AppState) -> Router {
    let api = crate::ui_assets::mount(crate::api::routes().0, &state.config.server.ui_dir);
    let routes = crate::prometheus::instrument(api, state.metrics.as_ref());
    routes.with_state(state)
}

/// The OpenAPI document of every route [`router`] mounts.
pub fn openapi() -> utoipa::openapi::OpenApi {
    crate::api::routes().1
}

/// Serves HTTP and OTLP/gRPC until the shutdown token fires, then drains in-flight requests. Both
/// servers share one concurrency limit and the other bounds of docs/limits.md.
pub async fn serve(state: AppState, shutdown: CancellationToken) -> anyhow::Result<()> {
    let server = &state.config.server;
    let http_address = SocketAddr::new(server.listen_address, server.port);
    let grpc_address = SocketAddr::new(server.listen_address, server.otel_grpc_port);
    let bounds = server.limits;
    crate::ui_assets::validate(&server.ui_dir)?;
    let http_listener = bind(http_address).await?;
    let grpc_listener = bind(grpc_address).await?;
    tracing::info!(%http_address, "web listening");
    tracing::info!(address = %grpc_address, "otlp grpc listening");
    let limits = Limits::new(bounds);
    let http = router(state.clone()).layer(from_fn_with_state(limits.clone(), limits::http));
    let grpc = crate::grpc::router(state).layer(from_fn_with_state(limits, limits::grpc));
    let timeout = bounds.header_read_timeout;
    tokio::join!(
        server::run(http_listener, http, Protocols::Http, timeout, shutdown.clone()),
        server::run(grpc_listener, grpc, Protocols::Grpc, timeout, shutdown),
    );
    tracing::info!("web stopped");
    Ok(())
}

async fn bind(address: SocketAddr) -> anyhow::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(address).await.with_context(|| format!("cannot listen on {address}"))
}
