//! `web`: the Langfuse-compatible public API.

use domain::config::Role;

/// mimalloc instead of the system allocator: ingestion allocates and frees many short-lived
/// strings per span, and glibc's malloc spent about 40 % of the worker's CPU on them. Built
/// without transparent huge pages (the workspace's `no_thp`; see the root `Cargo.toml`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
