//! How the tests find the local test stack: `just test` exports the addresses from
//! `.local/stack-test.env`, and this is the only reader of them.

use std::collections::BTreeMap;

use crate::{TestClickHouse, TestPostgres};

/// The settings that point Loupe's blob store at the test stack's S3 server; a test that wants a
/// local blob directory removes them.
pub const S3_SETTINGS: [&str; 6] = [
    "LANGFUSE_S3_EVENT_UPLOAD_BUCKET",
    "LANGFUSE_S3_EVENT_UPLOAD_REGION",
    "LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT",
    "LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID",
    "LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY",
    "LANGFUSE_S3_EVENT_UPLOAD_FORCE_PATH_STYLE",
];

/// A variable of the test stack's environment file (`.local/stack-test.env`).
// The test harness is the one place outside the config module that reads the environment: it is
// how `just test` hands the stack's addresses to the tests.
#[allow(clippy::disallowed_methods)]
pub fn stack_var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is not set: run the tests with `just test`, which starts the local stack and exports it"
        )
    })
}

/// A knob of the test run itself (not of Loupe, not of the stack), when it is set; e.g.
/// `LOUPE_UI_SPECS`, which browser specs to run.
#[allow(clippy::disallowed_methods)] // the harness's one reader of the environment, as above
pub fn run_option(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.trim().is_empty())
}

/// The infrastructure part of a Loupe environment pointing at the test stack, with this test's
/// own databases: hand it to a binary or to `domain::config::Config::from_env_vars`.
pub fn stack_env(pg: &TestPostgres, ch: &TestClickHouse) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    env.insert("DATABASE_URL".into(), pg.url.clone());
    env.insert("CLICKHOUSE_URL".into(), stack_var("CLICKHOUSE_URL"));
    env.insert("CLICKHOUSE_DB".into(), ch.database.clone());
    env.insert("REDIS_CONNECTION_STRING".into(), stack_var("REDIS_CONNECTION_STRING"));
    // Tests share one Redis: each gets its own key space (queues, leases).
    env.insert("LANGFUSE_REDIS_KEY_PREFIX".into(), format!("{}:", ch.database));
    for name in S3_SETTINGS {
        env.insert(name.into(), stack_var(name));
    }
    // The doubles of outside services (LLM providers, webhook receivers) listen on loopback, which
    // a deployment refuses unless allowed.
    env.insert(domain::outbound::ALLOWED_HOSTS.into(), "127.0.0.1,::1,localhost".into());
    env
}
