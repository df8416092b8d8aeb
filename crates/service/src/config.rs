//! The one place Loupe reads its process environment (clippy forbids `std::env::var` elsewhere).

use domain::config::{Config, Role};

use crate::role_name;

/// Reads and validates the configuration, or ends the process with exit code 2 and every
/// problem printed, each naming its variable.
pub fn load_config_or_exit(role: Role) -> Config {
    // The single read of the process environment; everything else receives `Config`.
    #[allow(clippy::disallowed_methods)]
    let env = std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)));
    match Config::from_env_vars(role, env) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("loupe {}: {error}", role_name(role));
            std::process::exit(2);
        }
    }
}
