//! Tunables of monitors (docs/monitors.md): how often the worker looks for due evaluations and
//! pending notifications, how many it takes per look, and where GitHub's API is. Which addresses
//! channels may reach is `LANGFUSE_OUTBOUND_ALLOWED_HOSTS`'s (`domain::outbound`).

use std::time::Duration;

use super::vars::{Problems, Vars};

pub const POLL_INTERVAL_MS: &str = "LANGFUSE_MONITORS_POLL_INTERVAL_MS";
pub const MAX_PER_TICK: &str = "LANGFUSE_MONITORS_MAX_PER_TICK";
pub const GITHUB_API_URL: &str = "LANGFUSE_MONITORS_GITHUB_API_URL";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MonitorSettings {
    /// Pause between two looks for due monitors and pending notifications.
    pub poll_interval: Duration,
    /// Monitors evaluated (and notifications attempted) per look, each.
    pub max_per_tick: u32,
    /// Base URL of GitHub's REST API (`https://api.github.com`, or a GitHub Enterprise `…/api/v3`).
    pub github_api_url: String,
}

impl MonitorSettings {
    pub(super) fn read(vars: &Vars, problems: &mut Problems) -> Option<Self> {
        let poll = vars.positive_integer(POLL_INTERVAL_MS, problems);
        let max = vars.positive_integer(MAX_PER_TICK, problems);
        let github = vars.string(GITHUB_API_URL).trim().trim_end_matches('/').to_owned();
        let github_ok = github.starts_with("https://") || github.starts_with("http://");
        if !github_ok {
            problems.push(GITHUB_API_URL, "must be an http(s) URL, e.g. https://api.github.com");
        }
        let max = max?;
        if max > 1000 {
            problems.push(MAX_PER_TICK, "must be at most 1000");
            return None;
        }
        Some(Self {
            poll_interval: Duration::from_millis(poll?),
            max_per_tick: u32::try_from(max).ok()?,
            github_api_url: github_ok.then_some(github)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Config, Role, tests::base};

    fn load(extra: &[(&str, &str)]) -> Result<Config, String> {
        let mut env = base();
        env.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        Config::from_env_vars(Role::Worker, env).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_and_bad_values_name_their_setting() {
        let monitors = load(&[]).unwrap().monitors;
        assert_eq!(monitors.poll_interval, std::time::Duration::from_secs(1));
        assert_eq!(monitors.max_per_tick, 20);
        assert_eq!(monitors.github_api_url, "https://api.github.com");
        let set = load(&[(super::GITHUB_API_URL, "http://127.0.0.1:9/api/v3/"), (super::MAX_PER_TICK, "5")])
            .unwrap();
        assert_eq!(
            (set.monitors.github_api_url.as_str(), set.monitors.max_per_tick),
            ("http://127.0.0.1:9/api/v3", 5)
        );
        for (name, value) in [
            (super::POLL_INTERVAL_MS, "0"),
            (super::MAX_PER_TICK, "1001"),
            (super::GITHUB_API_URL, "api.github.com"),
        ] {
            let error = load(&[(name, value)]).unwrap_err();
            assert!(error.contains(name), "{name}={value}: {error}");
        }
    }
}
