//! One typed configuration, read once at startup from layered sources: built-in defaults, an
//! optional TOML file (`LANGFUSE_CONFIG_FILE`), the environment (see `layers`).
//!
//! The binaries pass the process environment and a file reader to [`Config::from_env_and_file`];
//! nothing else in Loupe reads the environment. Every problem is collected and reported together,
//! each naming its variable (and the file, for a value that came from one), and the process
//! refuses to start. See `catalog` for the full list of settings.

mod accounts;
mod catalog;
mod jobs;
mod layers;
mod migration;
mod monitors;
mod names;
mod settings;
mod vars;

#[cfg(test)]
mod file_tests;
#[cfg(test)]
mod tests;

pub use accounts::{AccountSettings, InitUser};
pub use catalog::{ALLOW_PREVIEW_OPT_IN, CONFIG_FILE, Group, SETTINGS, Setting, WRITE_MODE};
pub use jobs::{BackfillSettings, MIN_PARTITION_DELAY_MINUTES, PropagationSettings, RetentionSettings};
pub use migration::{MigrationSettings, OtelBehaviour, WriteMode};
pub use monitors::MonitorSettings;
pub use names::UnknownName;
pub use settings::{
    AuthSettings, BlobSettings, BootstrapSettings, ClickHouseSettings, HttpLimits, IngestionSettings,
    LogFormat, LogSettings, MediaSettings, PostgresSettings, QueueInline, RedisSettings, S3Settings,
    ServerSettings,
};
pub use vars::{Origin, Problem, Vars};

use std::collections::BTreeMap;
use std::io;

use layers::Layered;
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
    pub retention: RetentionSettings,
    pub bootstrap: Option<BootstrapSettings>,
    pub auth: AuthSettings,
    pub accounts: AccountSettings,
    pub monitors: MonitorSettings,
    pub log: LogSettings,
    /// Variables that were accepted but have no effect; logged once tracing is up.
    pub warnings: Vec<String>,
    vars: Vars,
}

/// Startup must stop: every problem found, each naming its variable(s).
#[derive(Debug, thiserror::Error)]
// A problem's continuation lines (a TOML parser's excerpt of the file) are indented under it.
#[error("invalid configuration:\n{}", self.problems.iter().map(|p| format!("  - {p}").replace('\n', "\n    ")).collect::<Vec<_>>().join("\n"))]
pub struct ConfigError {
    pub problems: Vec<Problem>,
}

impl Config {
    /// The environment alone, with the built-in defaults under it: for callers that hold every
    /// setting in a map (tests, deployment checks, tools). A `LANGFUSE_CONFIG_FILE` in the map is
    /// refused rather than ignored, since this entry point reads no file.
    pub fn from_env_vars<K: Into<String>, V: Into<String>>(
        role: Role,
        env: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Self, ConfigError> {
        Self::from_env_and_file(role, env, |_| {
            Err(io::Error::other("Config::from_env_vars reads the environment only"))
        })
    }

    /// Built-in defaults, under the TOML file named by `LANGFUSE_CONFIG_FILE` (if set), under the
    /// environment. `read_file` is called with that path only when it is set, so `domain` itself
    /// does no I/O: the binaries pass `std::fs::read_to_string`, tests a string.
    pub fn from_env_and_file<K: Into<String>, V: Into<String>>(
        role: Role,
        env: impl IntoIterator<Item = (K, V)>,
        read_file: impl FnOnce(&str) -> io::Result<String>,
    ) -> Result<Self, ConfigError> {
        let env: BTreeMap<String, String> = env.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        let Layered { vars, problems: found_in_sources, warnings, complete } = layers::layer(env, read_file);
        let mut problems = Problems::attributed_to(&vars);
        problems.extend(found_in_sources);
        if !complete {
            return Err(ConfigError { problems: problems.into_vec() });
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
        let retention = RetentionSettings::read(&vars, &mut problems);
        let bootstrap = BootstrapSettings::read(&vars, &mut problems);
        let auth = AuthSettings::read(&vars, &mut problems);
        let accounts = AccountSettings::read(&vars, &mut problems);
        let monitors = MonitorSettings::read(&vars, &mut problems);
        let mut warnings = warnings;
        warnings.extend(auth.salt_warning());
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
                retention: retention?,
                bootstrap: bootstrap?,
                auth,
                accounts: accounts?,
                monitors: monitors?,
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
    /// entry, with secrets and URL passwords redacted and each value's source named: `(default)`,
    /// `(env)` or `(from <file>)`.
    pub fn redacted(&self) -> Vec<(&'static str, String)> {
        SETTINGS
            .iter()
            .map(|setting| {
                let Some(value) = self.vars.get(setting.name) else {
                    return match setting.default {
                        "" => (setting.name, "(unset)".to_owned()),
                        described => (setting.name, format!("{described} (default)")),
                    };
                };
                let shown = if setting.secret { "(redacted)".to_owned() } else { redact_url_password(value) };
                let value = match self.vars.origin(setting.name) {
                    Some(Origin::File(path)) => format!("{shown} (from {path})"),
                    Some(Origin::Environment) => format!("{shown} (env)"),
                    Some(Origin::Default) | None => format!("{shown} (default)"),
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
