//! What both binaries do around their real work: read the configuration (the one place that reads
//! the process environment), set up logging, connect to the stores and migrate their schemas,
//! report health and metrics, and stop cleanly on SIGTERM.

mod config;
mod health;
pub mod prometheus;
mod stores;
mod telemetry;

pub use config::load_config_or_exit;
pub use health::{DependencyReport, check_dependencies};
pub use stores::Stores;
pub use telemetry::init_tracing;

use domain::config::{Config, Role};
use tokio_util::sync::CancellationToken;

pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::Web => "web",
        Role::Worker => "worker",
    }
}

/// Logs the effective configuration (secrets redacted, each value with its source: default, file or
/// environment) and the warnings found while reading it.
pub fn log_config(config: &Config) {
    let settings: Vec<String> =
        config.redacted().into_iter().map(|(name, value)| format!("{name}={value}")).collect();
    tracing::info!(role = role_name(config.role), settings = %settings.join(" "), "effective configuration");
    let migration = &config.migration;
    tracing::info!(
        write_mode = %migration.write_mode,
        native_otel_behaviour = %migration.otel_behaviour,
        allow_preview_opt_in = migration.allow_preview_opt_in,
        historic_backfill = migration.enable_historic_backfill,
        drop_pid_tid_sorting_tables = migration.drop_pid_tid_sorting_tables,
        propagation_stuck_threshold_minutes = migration.propagation_stuck_threshold.as_secs() / 60,
        "resolved migration settings"
    );
    for warning in &config.warnings {
        tracing::warn!(%warning, "ignored setting");
    }
}

/// A token cancelled on SIGTERM or Ctrl-C; every long-running task watches it.
pub fn shutdown_token() -> CancellationToken {
    let token = CancellationToken::new();
    let trigger = token.clone();
    tokio::spawn(async move {
        let ctrl_c = tokio::signal::ctrl_c();
        #[cfg(unix)]
        let terminate = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut signal) => {
                    signal.recv().await;
                }
                Err(error) => {
                    tracing::error!(%error, "cannot listen for SIGTERM");
                    std::future::pending::<()>().await
                }
            }
        };
        #[cfg(not(unix))]
        let terminate = std::future::pending::<()>();
        tokio::select! {
            _ = ctrl_c => tracing::info!("interrupt received, shutting down"),
            _ = terminate => tracing::info!("SIGTERM received, shutting down"),
        }
        trigger.cancel();
    });
    token
}

/// object_store and reqwest use rustls without a built-in crypto provider (ring is chosen at build
/// time to avoid aws-lc); it must be installed before any client is built.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}
