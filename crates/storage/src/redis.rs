//! Redis: queues, leases and caches. Only the pool and its health check live here so far.

use deadpool_redis::{Config, Pool, Runtime};
use secrecy::ExposeSecret;

use domain::config::RedisSettings;

use crate::{Error, ErrorKind, Result};

pub fn connect(settings: &RedisSettings) -> Result<Pool> {
    Config::from_url(settings.url.expose_secret())
        .create_pool(Some(Runtime::Tokio1))
        .map_err(|e| Error::with_source(ErrorKind::Internal, "cannot build the redis pool", e))
}

/// Health: PING answered with PONG.
pub async fn check(pool: &Pool) -> Result<()> {
    let mut connection =
        pool.get().await.map_err(|e| Error::with_source(ErrorKind::Unavailable, "redis", e))?;
    let reply: String = deadpool_redis::redis::cmd("PING")
        .query_async(&mut connection)
        .await
        .map_err(|e| Error::with_source(ErrorKind::Unavailable, "redis", e))?;
    if reply == "PONG" {
        Ok(())
    } else {
        Err(Error::new(ErrorKind::Unavailable, format!("redis answered {reply:?} to PING")))
    }
}
