//! `worker`: background processing (ingestion, propagation, backfill) and its health endpoint.

use domain::config::Role;

mod health;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = service::load_config_or_exit(Role::Worker);
    service::init_tracing(&config.log)?;
    service::install_crypto_provider();
    service::log_config(&config);
    let shutdown = service::shutdown_token();
    let stores = service::Stores::connect(&config)?;
    stores.prepare(&config).await?;
    health::serve(health::HealthState::new(config, stores), shutdown).await
}
