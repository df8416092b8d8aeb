//! `worker`: background processing (ingestion, propagation, backfill) and its health endpoint.

use domain::config::Role;

mod health;
mod jobs;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // No subcommands yet (the operator tools come with the migration machinery): refuse
    // arguments rather than silently start a second worker.
    if let Some(argument) = std::env::args().nth(1) {
        eprintln!("loupe worker: unknown argument {argument:?}; the worker takes no arguments yet");
        std::process::exit(2);
    }
    let config = service::load_config_or_exit(Role::Worker);
    service::init_tracing(&config.log)?;
    service::install_crypto_provider();
    service::log_config(&config);
    let shutdown = service::shutdown_token();
    let stores = service::Stores::connect(&config)?;
    stores.prepare(&config).await?;
    let jobs = jobs::spawn(&config, &stores, &shutdown);
    let health = health::HealthState::new(config, stores, jobs.heartbeat.clone());
    let served = health::serve(health, shutdown.clone()).await;
    shutdown.cancel();
    jobs.wait().await;
    served
}
