//! Per-test isolation on the local stack (`just test` brings it up and exports its addresses).
//!
//! Every test that writes gets its own PostgreSQL database and ClickHouse database, created here
//! and dropped when the handle goes out of scope, so tests run in parallel without seeing each
//! other's rows.

pub mod otlp;

use std::collections::BTreeMap;
use std::time::Duration;

use sqlx::postgres::PgPoolOptions;
use sqlx::{Connection, PgConnection, PgPool};

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
    for name in [
        "LANGFUSE_S3_EVENT_UPLOAD_BUCKET",
        "LANGFUSE_S3_EVENT_UPLOAD_REGION",
        "LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT",
        "LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID",
        "LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY",
        "LANGFUSE_S3_EVENT_UPLOAD_FORCE_PATH_STYLE",
    ] {
        env.insert(name.into(), stack_var(name));
    }
    env
}

fn unique_name() -> String {
    format!("t_{}", uuid::Uuid::new_v4().simple())
}

/// Runs `work` to completion on a fresh runtime in another thread: `Drop` cannot await, and the
/// test's own runtime may be single-threaded.
fn run_detached<F>(work: F)
where
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let handle = std::thread::spawn(move || {
        if let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() {
            runtime.block_on(work);
        }
    });
    let _ = handle.join();
}

/// A PostgreSQL database of its own, dropped with the handle.
pub struct TestPostgres {
    pub url: String,
    name: String,
    server_url: String,
}

impl TestPostgres {
    pub async fn create() -> Self {
        let server_url = stack_var("DATABASE_URL");
        let name = unique_name();
        let mut admin = PgConnection::connect(&server_url).await.expect("connect to the test postgres");
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut admin)
            .await
            .expect("create test database");
        let base = server_url.rsplit_once('/').map(|(base, _)| base).unwrap_or(&server_url);
        Self { url: format!("{base}/{name}"), name, server_url }
    }

    pub async fn pool(&self) -> PgPool {
        PgPoolOptions::new()
            .max_connections(4)
            .acquire_timeout(Duration::from_secs(10))
            .connect(&self.url)
            .await
            .expect("connect to the test database")
    }
}

impl Drop for TestPostgres {
    fn drop(&mut self) {
        let (server_url, name) = (self.server_url.clone(), self.name.clone());
        run_detached(async move {
            if let Ok(mut admin) = PgConnection::connect(&server_url).await {
                let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                let _ = sqlx::query(sqlx::AssertSqlSafe(drop)).execute(&mut admin).await;
            }
        });
    }
}

/// A ClickHouse database of its own, dropped with the handle.
pub struct TestClickHouse {
    pub url: String,
    pub database: String,
}

impl TestClickHouse {
    pub async fn create() -> Self {
        let url = stack_var("CLICKHOUSE_URL");
        let database = unique_name();
        let server = clickhouse::Client::default().with_url(&url);
        server
            .query(&format!("CREATE DATABASE {database}"))
            .execute()
            .await
            .expect("create test clickhouse database");
        Self { url, database }
    }

    /// A plain crate client bound to this database.
    pub fn client(&self) -> clickhouse::Client {
        clickhouse::Client::default().with_url(&self.url).with_database(&self.database)
    }

    pub fn settings(&self) -> domain::config::ClickHouseSettings {
        domain::config::ClickHouseSettings {
            url: self.url.clone(),
            user: "default".into(),
            password: String::new().into(),
            database: self.database.clone(),
            cluster: None,
        }
    }
}

impl Drop for TestClickHouse {
    fn drop(&mut self) {
        let (url, database) = (self.url.clone(), self.database.clone());
        run_detached(async move {
            let server = clickhouse::Client::default().with_url(&url);
            let _ = server.query(&format!("DROP DATABASE IF EXISTS {database} SYNC")).execute().await;
        });
    }
}
