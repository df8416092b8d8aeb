use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use axum::Router;
use tokio_util::sync::CancellationToken;

use domain::config::Config;
use service::Stores;

/// What every handler can reach: the configuration and the stores.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub stores: Stores,
}

impl AppState {
    pub async fn build(config: Config) -> anyhow::Result<Self> {
        let stores = Stores::connect(&config)?;
        stores.prepare(&config).await?;
        Ok(Self {
            config: Arc::new(config),
            stores,
        })
    }
}

pub fn router(state: AppState) -> Router {
    crate::api::routes().with_state(state)
}

/// Serves the public API until the shutdown token fires, then drains in-flight requests.
pub async fn serve(state: AppState, shutdown: CancellationToken) -> anyhow::Result<()> {
    let server = &state.config.server;
    let address = SocketAddr::new(server.listen_address, server.port);
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .with_context(|| format!("cannot listen on {address}"))?;
    tracing::info!(%address, "web listening");
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown.cancelled_owned())
        .await
        .context("http server")?;
    tracing::info!("web stopped");
    Ok(())
}
