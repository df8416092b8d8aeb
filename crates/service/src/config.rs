//! The one place Loupe reads its process environment (clippy forbids `std::env::var` elsewhere),
//! and the optional configuration file that the environment names.

use domain::config::{Config, ConfigError, Role};

use crate::role_name;

/// Reads and validates the configuration, or ends the process with exit code 2 and every
/// problem printed, each naming its variable (and the file, for a value that came from one).
pub fn load_config_or_exit(role: Role) -> Config {
    // The single read of the process environment; everything else receives `Config`.
    #[allow(clippy::disallowed_methods)]
    let env = std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)));
    match read_config(role, env) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("loupe {}: {error}", role_name(role));
            std::process::exit(2);
        }
    }
}

/// The configuration from `env` and the file its `LANGFUSE_CONFIG_FILE` names. The file is read
/// here, not by figment's own file provider, which would quietly take a missing file for an empty
/// one and look for a relative path in every parent directory.
fn read_config(role: Role, env: impl IntoIterator<Item = (String, String)>) -> Result<Config, ConfigError> {
    Config::from_env_and_file(role, env, |path| std::fs::read_to_string(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(file: &std::path::Path) -> Vec<(String, String)> {
        [
            ("LANGFUSE_CONFIG_FILE", file.to_str().unwrap()),
            ("CLICKHOUSE_URL", "http://ch:8123"),
            ("REDIS_CONNECTION_STRING", "redis://redis:6379"),
            ("LANGFUSE_S3_EVENT_UPLOAD_BUCKET", "events"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
    }

    #[test]
    fn the_file_named_by_the_environment_is_read_from_disk() {
        let path = std::env::temp_dir().join(format!("loupe-config-{}.toml", std::process::id()));
        std::fs::write(&path, "DATABASE_URL = \"postgres://u:p@db:5432/loupe\"\nPORT = 4000\n").unwrap();
        let config = read_config(Role::Worker, env(&path));
        std::fs::write(&path, "DATABASE_URL = \"mysql://db\"\n").unwrap();
        let refused = read_config(Role::Worker, env(&path));
        std::fs::remove_file(&path).unwrap();

        assert_eq!(config.unwrap().server.port, 4000);
        let problems = refused.unwrap_err().problems;
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].variables, ["DATABASE_URL"]);
        assert_eq!(problems[0].files, [path.to_str().map(str::to_owned)]);
    }

    #[test]
    fn a_missing_file_is_refused_naming_the_variable() {
        let path = std::env::temp_dir().join("loupe-config-that-does-not-exist.toml");
        let problems = read_config(Role::Web, env(&path)).unwrap_err().problems;
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].variables, ["LANGFUSE_CONFIG_FILE"]);
        assert!(problems[0].message.contains("No such file"), "{}", problems[0]);
    }
}
