use domain::config::{LogFormat, LogSettings};
use tracing_subscriber::EnvFilter;

/// Structured logs to stdout. An invalid `LANGFUSE_LOG_LEVEL` stops startup like any other bad
/// setting.
pub fn init_tracing(settings: &LogSettings) -> anyhow::Result<()> {
    let filter = EnvFilter::try_new(&settings.filter).map_err(|error| {
        anyhow::anyhow!("LANGFUSE_LOG_LEVEL: invalid log filter {:?}: {error}", settings.filter)
    })?;
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_target(true);
    match settings.format {
        LogFormat::Json => builder.json().flatten_event(true).init(),
        LogFormat::Text => builder.init(),
    }
    Ok(())
}
