//! One typed configuration, read once from the environment at startup.
//!
//! The binaries pass `std::env::vars()` to [`Config::from_env_vars`]; nothing else in Loupe reads
//! the environment. Every problem is collected and reported together, each naming its variable,
//! and the process refuses to start. See `catalog` for the full list of settings.

mod catalog;
mod jobs;
mod migration;
mod names;
mod settings;
mod vars;

#[cfg(test)]
mod tests;

pub use catalog::{ALLOW_PREVIEW_OPT_IN, Group, SETTINGS, Setting};
pub use jobs::{BackfillSettings, MIN_PARTITION_DELAY_MINUTES, PropagationSettings};
pub use migration::{MigrationSettings, OtelBehaviour, WriteMode};
pub use names::UnknownName;
pub use settings::{
    AuthSettings, BlobSettings, BootstrapSettings, ClickHouseSettings, IngestionSettings, LogFormat,
    LogSettings, MediaSettings, PostgresSettings, RedisSettings, S3Settings, ServerSettings,
};
pub use vars::{Problem, Vars};

use vars::Problems;

/// Which binary is starting; only a few defaults differ between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Web,
    Worker,
}

#[derive(Debug, Clone)]
pub struct Config {
    pub role: Role,
    pub server: ServerSettings,
    pub migration: MigrationSettings,
    pub postgres: PostgresSettings,
    pub clickhouse: ClickHouseSettings,
    pub redis: RedisSettings,
    pub blob: BlobSettings,
    pub ingestion: IngestionSettings,
    pub media: MediaSettings,
    pub propagation: PropagationSettings,
    pub backfill: BackfillSettings,
    pub bootstrap: Option<BootstrapSettings>,
    pub auth: AuthSettings,
    pub log: LogSettings,
    /// Variables that were accepted but have no effect; logged once tracing is up.
    pub warnings: Vec<String>,
    vars: Vars,
}

/// Startup must stop: every problem found, each naming its variable(s).
#[derive(Debug, thiserror::Error)]
#[error("invalid configuration:\n{}", self.problems.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
pub struct ConfigError {
    pub problems: Vec<Problem>,
}

impl Config {
    pub fn from_env_vars<K: Into<String>, V: Into<String>>(
        role: Role,
        env: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Self, ConfigError> {
        let vars = Vars::new(env);
        let mut problems = Problems::default();
        let mut warnings = Vec::new();
        for name in vars.names() {
            match names::classify(name) {
                None => {}
                Some(UnknownName::Misspelled { name, suggestion, wrong_case: true }) => problems.push(
                    name,
                    format!("not a known setting (names are case-sensitive); did you mean {suggestion}?"),
                ),
                Some(UnknownName::Misspelled { name, suggestion, wrong_case: false }) => {
                    problems.push(name, format!("not a known setting; did you mean {suggestion}?"))
                }
                Some(UnknownName::UnknownMigrationSetting { name, nearest }) => problems.push(
                    name,
                    format!(
                        "looks like a migration setting but is not one; the closest known name is {nearest}"
                    ),
                ),
                Some(UnknownName::Ignored { name }) => {
                    warnings.push(format!("{name} is not a Loupe setting and has no effect"))
                }
            }
        }

        let server = ServerSettings::read(role, &vars, &mut problems);
        let migration = MigrationSettings::read(&vars, &mut problems);
        let postgres = PostgresSettings::read(&vars, &mut problems);
        let clickhouse = ClickHouseSettings::read(&vars, &mut problems);
        let redis = RedisSettings::read(&vars, &mut problems);
        let blob = BlobSettings::read(&vars, &mut problems);
        let ingestion = IngestionSettings::read(&vars, &mut problems);
        let media = MediaSettings::read(&vars, &mut problems);
        let propagation = PropagationSettings::read(&vars, &mut problems);
        let backfill = BackfillSettings::read(&vars, &mut problems);
        let bootstrap = BootstrapSettings::read(&vars, &mut problems);
        let auth = AuthSettings::read(&vars);
        let log = LogSettings::read(&vars, &mut problems);

        let config = (|| {
            Some(Self {
                role,
                server: server?,
                migration: migration?,
                postgres: postgres?,
                clickhouse: clickhouse?,
                redis: redis?,
                blob: blob?,
                ingestion: ingestion?,
                media: media?,
                propagation: propagation?,
                backfill: backfill?,
                bootstrap: bootstrap?,
                auth,
                log: log?,
                warnings,
                vars,
            })
        })();
        match config {
            Some(config) if problems.is_empty() => Ok(config),
            _ => Err(ConfigError { problems: problems.into_vec() }),
        }
    }

    /// The effective configuration as `(name, value)` pairs for the startup log: every catalogue
    /// entry, with secrets and URL passwords redacted and defaults shown as such.
    pub fn redacted(&self) -> Vec<(&'static str, String)> {
        SETTINGS
            .iter()
            .map(|setting| {
                let value = match self.vars.get(setting.name) {
                    None if setting.default.is_empty() => "(unset)".to_owned(),
                    None => format!("{} (default)", setting.default),
                    Some(_) if setting.secret => "(redacted)".to_owned(),
                    Some(v) => redact_url_password(v),
                };
                (setting.name, value)
            })
            .collect()
    }
}

fn redact_url_password(value: &str) -> String {
    match url::Url::parse(value) {
        Ok(mut url) if url.password().is_some() => {
            let _ = url.set_password(Some("redacted"));
            url.to_string()
        }
        _ => value.to_owned(),
    }
}
