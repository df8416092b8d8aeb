//! Revoked API keys, announced to every web replica over Redis pub/sub so each evicts them from its
//! key cache at once instead of waiting out the cache's TTL.
//!
//! Pub/sub delivers only to subscribers connected at the time, so a subscriber must not trust its
//! cache while it is not subscribed (web's key cache bypasses itself until [`subscribe`] succeeds,
//! and empties itself whenever the subscription breaks).

use futures::{Stream, StreamExt};
use secrecy::ExposeSecret;

use domain::config::RedisSettings;

use crate::{Error, ErrorKind, Result};

/// What the process that revokes a key does at once with it (web: evict it from its key cache).
type LocalEviction = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

/// Where revocations are published: one channel per key prefix (per deployment).
#[derive(Clone)]
pub struct Revocations {
    pool: deadpool_redis::Pool,
    channel: String,
    local: Option<LocalEviction>,
}

impl Revocations {
    pub fn new(pool: deadpool_redis::Pool, key_prefix: &str) -> Self {
        Self { pool, channel: channel(key_prefix), local: None }
    }

    /// Also hands every key this process revokes to `evict` before announcing it, so the replica
    /// that deleted a key refuses it from its very next request, not only once its own message
    /// comes back through Redis.
    pub fn evicting_locally(mut self, evict: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.local = Some(std::sync::Arc::new(evict));
        self
    }

    /// Announces that these public keys no longer open anything. Called after the deletion is
    /// committed, so a replica that reloads a key on the message reads it gone.
    pub async fn publish(&self, public_keys: &[String]) -> Result<()> {
        if public_keys.is_empty() {
            return Ok(());
        }
        if let Some(evict) = &self.local {
            public_keys.iter().for_each(|key| evict(key));
        }
        let mut connection =
            self.pool.get().await.map_err(|e| Error::with_source(ErrorKind::Unavailable, "redis", e))?;
        let _receivers: i64 = deadpool_redis::redis::cmd("PUBLISH")
            .arg(&self.channel)
            .arg(public_keys.join("\n"))
            .query_async(&mut connection)
            .await
            .map_err(|e| Error::with_source(ErrorKind::Unavailable, "redis", e))?;
        Ok(())
    }
}

fn channel(key_prefix: &str) -> String {
    format!("{key_prefix}api-keys:revoked")
}

/// Subscribes to the revocations; returns once the subscription is confirmed, with the stream of
/// revoked public keys. The stream ends when the connection is lost.
pub async fn subscribe(settings: &RedisSettings) -> Result<impl Stream<Item = String> + Send + 'static> {
    let unavailable = |e| Error::with_source(ErrorKind::Unavailable, "redis subscription", e);
    let client = deadpool_redis::redis::Client::open(settings.url.expose_secret()).map_err(unavailable)?;
    let mut pubsub = client.get_async_pubsub().await.map_err(unavailable)?;
    pubsub.subscribe(channel(&settings.key_prefix)).await.map_err(unavailable)?;
    Ok(pubsub.into_on_message().flat_map(|message| {
        let keys: Vec<String> = message
            .get_payload::<String>()
            .map(|text| text.lines().map(str::to_owned).collect())
            .unwrap_or_default();
        futures::stream::iter(keys)
    }))
}
