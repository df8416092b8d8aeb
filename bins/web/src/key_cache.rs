//! A short-lived cache of API keys by public key: ingestion authenticates every request, and a
//! PostgreSQL round trip per export would be most of the acceptance latency.
//!
//! A deleted key must stop working at once on every replica, so the cache is only trusted while it
//! hears revocations: [`KeyCache::listen`] subscribes to `storage::key_revocations` and evicts each
//! announced key; while it is not subscribed (at startup, after Redis dropped the connection) every
//! lookup goes to PostgreSQL, and the cache is emptied whenever the subscription breaks, since
//! announcements made meanwhile are lost. A found key otherwise lives `FOUND_TTL`, a bound for
//! changes nobody announces. An unknown key is remembered for `UNKNOWN_TTL`, so a flood of made-up
//! keys costs one query per key and interval instead of one per request; a key created meanwhile
//! works once that has passed. The map is bounded (`MAX_ENTRIES`): when full it is emptied.

use std::collections::HashMap;
use std::sync::RwLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures::StreamExt;
use sqlx::PgPool;
use tokio_util::sync::CancellationToken;

use domain::config::RedisSettings;
use storage::projects::{StoredApiKey, find_api_key};

const FOUND_TTL: Duration = Duration::from_secs(30);
const UNKNOWN_TTL: Duration = Duration::from_secs(5);
const MAX_ENTRIES: usize = 10_000;
/// How often a key's `last_used_at` is written at most: a write per request would undo the cache.
const TOUCH_INTERVAL: Duration = Duration::from_secs(60);
/// Wait between attempts to subscribe again.
const RESUBSCRIBE_DELAY: Duration = Duration::from_secs(1);

#[derive(Default)]
pub struct KeyCache {
    entries: RwLock<HashMap<String, (Option<StoredApiKey>, Instant)>>,
    /// Whether revocations are being heard, so cached keys can be trusted.
    live: AtomicBool,
    /// Bumped by every eviction: a lookup that raced one does not cache what it read before it.
    generation: AtomicU64,
    touched: RwLock<HashMap<String, Instant>>,
}

impl KeyCache {
    pub async fn find(&self, pool: &PgPool, public_key: &str) -> storage::Result<Option<StoredApiKey>> {
        if let Some(cached) = self.cached(public_key) {
            return Ok(cached);
        }
        let generation = self.generation.load(Ordering::SeqCst);
        let found = find_api_key(pool, public_key).await?;
        if let Ok(mut entries) = self.entries.write()
            && self.live.load(Ordering::SeqCst)
            && self.generation.load(Ordering::SeqCst) == generation
        {
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
            entries.insert(public_key.to_owned(), (found.clone(), Instant::now()));
        }
        Ok(found)
    }

    fn cached(&self, public_key: &str) -> Option<Option<StoredApiKey>> {
        if !self.live.load(Ordering::SeqCst) {
            return None;
        }
        let entries = self.entries.read().ok()?;
        let (key, fetched) = entries.get(public_key)?;
        let ttl = if key.is_some() { FOUND_TTL } else { UNKNOWN_TTL };
        (fetched.elapsed() < ttl).then(|| key.clone())
    }

    /// Forgets a key at once (it was deleted, maybe on another replica).
    pub fn evict(&self, public_key: &str) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut entries) = self.entries.write() {
            entries.remove(public_key);
        }
    }

    fn set_live(&self, live: bool) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut entries) = self.entries.write() {
            entries.clear();
        }
        self.live.store(live, Ordering::SeqCst);
    }

    /// Records that a key opened a request, at most once per `TOUCH_INTERVAL` per key, off the
    /// request's path.
    pub fn note_use(&self, pool: &PgPool, public_key: &str) {
        let due = self
            .touched
            .read()
            .map(|touched| touched.get(public_key).is_none_or(|at| at.elapsed() >= TOUCH_INTERVAL))
            .unwrap_or(false);
        if !due {
            return;
        }
        if let Ok(mut touched) = self.touched.write() {
            if touched.len() >= MAX_ENTRIES {
                touched.clear();
            }
            touched.insert(public_key.to_owned(), Instant::now());
        }
        let (pool, public_key) = (pool.clone(), public_key.to_owned());
        tokio::spawn(async move {
            if let Err(error) = storage::api_keys::touch(&pool, &public_key).await {
                tracing::warn!(%error, "could not record an API key's last use");
            }
        });
    }

    /// Hears revocations until shutdown, subscribing again whenever the subscription breaks.
    pub async fn listen(self: std::sync::Arc<Self>, redis: RedisSettings, shutdown: CancellationToken) {
        while !shutdown.is_cancelled() {
            match storage::key_revocations::subscribe(&redis).await {
                Ok(revoked) => {
                    self.set_live(true);
                    tracing::debug!("listening for revoked API keys");
                    let mut revoked = std::pin::pin!(revoked);
                    loop {
                        tokio::select! {
                            () = shutdown.cancelled() => break,
                            key = revoked.next() => match key {
                                Some(key) => self.evict(&key),
                                None => break,
                            },
                        }
                    }
                    self.set_live(false);
                    if !shutdown.is_cancelled() {
                        tracing::warn!(
                            "lost the subscription to revoked API keys; not caching keys until it is back"
                        );
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot subscribe to revoked API keys; not caching keys")
                }
            }
            tokio::select! {
                () = shutdown.cancelled() => {}
                () = tokio::time::sleep(RESUBSCRIBE_DELAY) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use domain::config::BootstrapSettings;
    use secrecy::SecretString;

    use super::*;

    async fn bootstrapped(pool: &PgPool, public_key: &str) {
        let settings = BootstrapSettings {
            org_id: "org".into(),
            org_name: "Org".into(),
            project_id: "project".into(),
            project_name: "Project".into(),
            public_key: public_key.into(),
            secret_key: SecretString::from("sk-lf-late"),
        };
        storage::projects::bootstrap(pool, &settings, &SecretString::from("salt")).await.unwrap();
    }

    fn live() -> KeyCache {
        let cache = KeyCache::default();
        cache.set_live(true);
        cache
    }

    /// An unknown key is looked up once per `UNKNOWN_TTL`, however often it is tried: a key created
    /// right after the miss is not found until the miss expires, which shows the miss was cached.
    #[tokio::test]
    async fn unknown_keys_are_remembered_briefly() {
        let db = test_support::TestPostgres::create().await;
        let pool = db.pool().await;
        storage::postgres::MIGRATOR.run(&pool).await.unwrap();
        let cache = live();
        assert!(cache.find(&pool, "pk-lf-late").await.unwrap().is_none());
        bootstrapped(&pool, "pk-lf-late").await;
        assert!(cache.find(&pool, "pk-lf-late").await.unwrap().is_none(), "the miss is cached");
        assert!(live().find(&pool, "pk-lf-late").await.unwrap().is_some(), "the key exists");
        cache.evict("pk-lf-late");
        assert!(cache.find(&pool, "pk-lf-late").await.unwrap().is_some(), "an eviction forgets the miss");
    }

    /// Without a subscription nothing is cached: every lookup reads PostgreSQL.
    #[tokio::test]
    async fn nothing_is_cached_while_revocations_are_not_heard() {
        let db = test_support::TestPostgres::create().await;
        let pool = db.pool().await;
        storage::postgres::MIGRATOR.run(&pool).await.unwrap();
        let cache = KeyCache::default();
        assert!(cache.find(&pool, "pk-lf-late").await.unwrap().is_none());
        bootstrapped(&pool, "pk-lf-late").await;
        assert!(cache.find(&pool, "pk-lf-late").await.unwrap().is_some(), "the miss was not cached");
    }
}
