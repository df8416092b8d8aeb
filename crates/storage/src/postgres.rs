//! PostgreSQL: the relational store (organizations, projects, API keys, background-migration state).

use std::str::FromStr;
use std::time::Duration;

use domain::config::PostgresSettings;
use secrecy::ExposeSecret;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use crate::{Error, ErrorKind, Result};

/// The schema, embedded at compile time from `migrations/postgres`.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations/postgres");

/// A lazily connecting pool: startup does not fail on a database that is still booting; the first
/// query (the migrations) waits up to the acquire timeout instead.
pub fn connect(settings: &PostgresSettings) -> Result<PgPool> {
    let options = PgConnectOptions::from_str(settings.url.expose_secret())
        .map_err(|e| Error::with_source(ErrorKind::Internal, "DATABASE_URL is not a valid postgres URL", e))?
        .application_name("loupe");
    Ok(PgPoolOptions::new()
        .max_connections(16)
        .acquire_timeout(Duration::from_secs(10))
        .connect_lazy_with(options))
}

/// Health: a round trip to the server.
pub async fn check(pool: &PgPool) -> Result<()> {
    sqlx::query("SELECT 1").execute(pool).await.map(|_| ()).map_err(Error::from)
}
