//! The HTTP and gRPC servers around the router.

use std::net::SocketAddr;

use anyhow::Context;
use axum::Router;
use tokio_util::sync::CancellationToken;

use crate::state::AppState;

/// Every route of the public API and the UI, ready to serve; tests drive it in-process. With
/// metrics on, each route is counted and `GET /metrics` is mounted beside them.
pub fn router(state: AppState) -> Router {
    let routes = crate::prometheus::instrument(crate::api::routes().0, state.metrics.as_ref());
    routes.with_state(state)
}

/// The OpenAPI document of every route [`router`] mounts.
pub fn openapi() -> utoipa::openapi::OpenApi {
    crate::api::routes().1
}

/// Serves HTTP and OTLP/gRPC until the shutdown token fires, then drains in-flight requests.
pub async fn serve(state: AppState, shutdown: CancellationToken) -> anyhow::Result<()> {
    let server = &state.config.server;
    let address = SocketAddr::new(server.listen_address, server.port);
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .with_context(|| format!("cannot listen on {address}"))?;
    tracing::info!(%address, "web listening");
    let http = axum::serve(listener, router(state.clone()))
        .with_graceful_shutdown(shutdown.clone().cancelled_owned());
    let grpc = crate::grpc::serve(state, shutdown.clone());
    // If either server fails, stop the other too rather than run half a service.
    let result = tokio::select! {
        result = async { http.await.context("http server") } => result,
        result = grpc => result,
    };
    shutdown.cancel();
    tracing::info!("web stopped");
    result
}
