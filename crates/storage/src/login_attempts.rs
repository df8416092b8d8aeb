//! Failed sign-ins counted in Redis per account and per client address, in fixed windows, so
//! password guessing is slowed whichever of the two an attacker varies. Counters expire with their
//! window; every web replica shares them.

use deadpool_redis::redis;

use crate::{Error, ErrorKind, Result};

#[derive(Clone)]
pub struct LoginAttempts {
    pool: deadpool_redis::Pool,
    prefix: String,
}

/// How many failures each key may have in one window.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub per_account: u64,
    pub per_address: u64,
    pub window_seconds: u64,
}

impl LoginAttempts {
    pub fn new(pool: deadpool_redis::Pool, key_prefix: &str) -> Self {
        Self { pool, prefix: format!("{key_prefix}login-failures:") }
    }

    fn keys(&self, account: &str, address: &str) -> (String, String) {
        (
            format!("{}account:{}", self.prefix, account.to_lowercase()),
            format!("{}address:{address}", self.prefix),
        )
    }

    /// Whether either counter is at its limit; the seconds until the longer block ends, if so.
    pub async fn blocked(&self, account: &str, address: &str, limits: Limits) -> Result<Option<u64>> {
        let (account_key, address_key) = self.keys(account, address);
        let mut connection = self.connection().await?;
        let (account_count, address_count, account_ttl, address_ttl): (Option<u64>, Option<u64>, i64, i64) =
            redis::pipe()
                .get(&account_key)
                .get(&address_key)
                .ttl(&account_key)
                .ttl(&address_key)
                .query_async(&mut connection)
                .await
                .map_err(unavailable)?;
        let mut wait = None;
        if account_count.unwrap_or(0) >= limits.per_account {
            wait = Some(account_ttl.max(1).unsigned_abs());
        }
        if address_count.unwrap_or(0) >= limits.per_address {
            wait = Some(wait.unwrap_or(0).max(address_ttl.max(1).unsigned_abs()));
        }
        Ok(wait)
    }

    /// Counts a failure against both keys; the first failure of a window starts its clock.
    pub async fn record_failure(&self, account: &str, address: &str, limits: Limits) -> Result<()> {
        let (account_key, address_key) = self.keys(account, address);
        let mut connection = self.connection().await?;
        let window = i64::try_from(limits.window_seconds).unwrap_or(i64::MAX);
        let _: () = redis::pipe()
            .incr(&account_key, 1)
            .ignore()
            .cmd("EXPIRE")
            .arg(&account_key)
            .arg(window)
            .arg("NX")
            .ignore()
            .incr(&address_key, 1)
            .ignore()
            .cmd("EXPIRE")
            .arg(&address_key)
            .arg(window)
            .arg("NX")
            .ignore()
            .query_async(&mut connection)
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    /// A successful sign-in clears the account's count (not the address's).
    pub async fn clear_account(&self, account: &str) -> Result<()> {
        let (account_key, _) = self.keys(account, "");
        let mut connection = self.connection().await?;
        let _: () =
            redis::cmd("DEL").arg(&account_key).query_async(&mut connection).await.map_err(unavailable)?;
        Ok(())
    }

    async fn connection(&self) -> Result<deadpool_redis::Connection> {
        self.pool.get().await.map_err(|e| Error::with_source(ErrorKind::Unavailable, "redis", e))
    }
}

fn unavailable(error: redis::RedisError) -> Error {
    Error::with_source(ErrorKind::Unavailable, "redis", error)
}
