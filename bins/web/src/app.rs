use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use axum::Router;
use tokio_util::sync::CancellationToken;

use domain::config::Config;
use ingestion::accept::Acceptor;
use service::Stores;

/// What every handler can reach: the configuration, the stores and the ingestion front door.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub stores: Stores,
    pub acceptor: Arc<Acceptor>,
    pub keys: Arc<crate::key_cache::KeyCache>,
    /// Signs and checks web's own media URLs; keyed by `SALT`, so built once.
    pub media_tokens: Arc<resources::media::TokenSigner>,
}

impl AppState {
    pub async fn build(config: Config, shutdown: &CancellationToken) -> anyhow::Result<Self> {
        let stores = Stores::connect(&config)?;
        stores.prepare(&config).await?;
        let queue = stores.ingestion_queue();
        queue.ensure_group().await.context("ingestion queue")?;
        let acceptor = Acceptor::new(stores.blobs.clone(), queue, config.ingestion.queue_max_depth);
        acceptor.watch_backlog(shutdown.clone());
        let media_tokens = Arc::new(resources::media::TokenSigner::new(&config.auth.salt));
        Ok(Self {
            config: Arc::new(config),
            stores,
            acceptor: Arc::new(acceptor),
            keys: Arc::default(),
            media_tokens,
        })
    }
}

pub fn router(state: AppState) -> Router {
    crate::api::routes().with_state(state)
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
