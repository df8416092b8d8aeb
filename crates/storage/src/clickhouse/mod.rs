//! ClickHouse over its HTTP interface, through the `clickhouse` crate.

mod deletion;
mod events;
mod lists;
mod migrations;
mod partitions;
pub mod retention;
mod rowbinary;
mod statements;
pub mod v3;

use std::time::Duration;

use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use secrecy::ExposeSecret;

use domain::config::ClickHouseSettings;

use crate::Result;

pub use deletion::{PROJECT_TABLES, delete_project_rows, delete_traces};
pub use events::{EventRow, EventSegment, insert_event_segments, insert_events};
pub use lists::{PARAM_BYTES, StringList};
pub use migrations::{AppliedMigrations, MIGRATIONS, Migration, migrate, render, split_statements};
pub use statements::{NEWEST_BY_ID, NEWEST_BY_SPAN_ID, Work, newest_by, newest_versions};

#[derive(Clone)]
pub struct ClickHouse {
    client: ::clickhouse::Client,
    /// The same server without a default database, for `CREATE DATABASE`.
    server: ::clickhouse::Client,
    database: String,
    cluster: Option<String>,
}

impl ClickHouse {
    pub fn connect(settings: &ClickHouseSettings) -> Self {
        // The body type of the HTTP client is private to the crate, so the client is built inline
        // and its type inferred.
        let http = hyper_util::client::legacy::Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(2))
            .build(nodelay_connector());
        let server = ::clickhouse::Client::with_http_client(http)
            .with_url(&settings.url)
            .with_user(&settings.user)
            .with_password(settings.password.expose_secret());
        Self {
            // Every statement carries the server-side bound of a request; bulk copies raise it
            // (`Work::Bulk`), and `bounded` adds the client-side one.
            client: server
                .clone()
                .with_database(&settings.database)
                .with_setting("max_execution_time", Work::Read.timeout().as_secs().to_string()),
            server,
            database: settings.database.clone(),
            cluster: settings.cluster.clone(),
        }
    }

    /// The client bound to `CLICKHOUSE_DB`.
    pub fn client(&self) -> &::clickhouse::Client {
        &self.client
    }

    pub fn database(&self) -> &str {
        &self.database
    }

    pub fn cluster(&self) -> Option<&str> {
        self.cluster.as_deref()
    }

    /// Health: a round trip to the server and the configured database.
    pub async fn check(&self) -> Result<()> {
        self.client.query("SELECT 1").fetch_one::<u8>().await?;
        Ok(())
    }

    pub(crate) async fn ensure_database(&self) -> Result<()> {
        let on_cluster = self.cluster.as_deref().map(|c| format!(" ON CLUSTER {c}")).unwrap_or_default();
        let statement = format!("CREATE DATABASE IF NOT EXISTS `{}`{on_cluster}", self.database);
        self.server.query(&statement).execute().await?;
        Ok(())
    }
}

/// The crate's default connector leaves Nagle's algorithm on, which stalls every small insert by a
/// delayed-ACK round (about 40 ms, measured in reference/rust-stack.md §3.5); ours sets TCP_NODELAY.
fn nodelay_connector() -> HttpConnector {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    connector.set_keepalive(Some(Duration::from_secs(60)));
    connector
}
