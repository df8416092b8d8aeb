//! `web`: the Langfuse-compatible public API.

use domain::config::Role;

mod api;
mod app;
mod auth;
mod error;
mod grpc;
mod ingest;
mod key_cache;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = service::load_config_or_exit(Role::Web);
    service::init_tracing(&config.log)?;
    service::install_crypto_provider();
    service::log_config(&config);
    let shutdown = service::shutdown_token();
    let state = app::AppState::build(config, &shutdown).await?;
    app::serve(state, shutdown).await
}
