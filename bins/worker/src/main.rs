//! `worker`: background processing (ingestion, propagation, backfill) and its health endpoint,
//! plus the operator subcommands (`migration-status`, `verify-migration`, `backfill-retry`,
//! `import-langfuse`).

use domain::config::Role;

mod commands;
mod evaluations;
mod health;
mod jobs;
mod prometheus;

/// mimalloc instead of the system allocator: ingestion allocates and frees many short-lived
/// strings per span, and glibc's malloc spent about 40 % of the worker's CPU on them. Built
/// without transparent huge pages (the workspace's `no_thp`; see the root `Cargo.toml`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = commands::parse(&args).unwrap_or_else(|message| {
        eprintln!("loupe worker: {message}");
        std::process::exit(2);
    });
    let config = service::load_config_or_exit(Role::Worker);
    if !matches!(command, commands::Command::Serve) {
        // Reports go to stdout; logs stay quiet unless something is wrong.
        service::init_tracing(&domain::config::LogSettings { filter: "warn".into(), ..config.log.clone() })?;
        service::install_crypto_provider();
        let code = commands::run(command, &config).await?;
        std::process::exit(code);
    }
    service::init_tracing(&config.log)?;
    service::install_crypto_provider();
    service::log_config(&config);
    // Before the jobs start, so the ingestion loop's first flushes are recorded.
    let metrics = config.server.metrics_enabled.then(service::prometheus::install).transpose()?;
    let shutdown = service::shutdown_token();
    let stores = service::Stores::connect(&config)?;
    stores.prepare(&config).await?;
    storage::write_modes::record(&stores.postgres, config.migration.write_mode.as_str()).await?;
    let jobs = jobs::spawn(&config, &stores, &shutdown);
    let health = health::HealthState::new(config, stores, jobs.heartbeat.clone(), metrics);
    let served = health::serve(health, shutdown.clone()).await;
    shutdown.cancel();
    jobs.wait().await;
    served
}
