//! `web`: the Langfuse-compatible public API.

use domain::config::Role;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = service::load_config_or_exit(Role::Web);
    service::init_tracing(&config.log)?;
    service::install_crypto_provider();
    service::log_config(&config);
    let shutdown = service::shutdown_token();
    let state = web::AppState::build(config, &shutdown).await?;
    web::serve(state, shutdown).await
}
