//! Per-test isolation on the local stack (`just test` brings it up and exports its addresses).
//!
//! Every test that writes gets its own PostgreSQL database and ClickHouse database, created here
//! and dropped when the handle goes out of scope, so tests run in parallel without seeing each
//! other's rows.

mod config;
pub mod langfuse_v3;
pub mod llm_stub;
pub mod otlp;
pub mod prometheus;
pub mod receiver;

pub use config::{S3_SETTINGS, run_option, stack_env, stack_var};

use std::time::Duration;

use sqlx::postgres::PgPoolOptions;
use sqlx::{Connection, PgConnection, PgPool};

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
