//! A short-lived cache of API keys by public key: ingestion authenticates every request, and a
//! PostgreSQL round trip per export would be most of the acceptance latency.
//!
//! A found key lives `FOUND_TTL`, so a rotated or deleted key stops working within that time. An
//! unknown key is remembered for `UNKNOWN_TTL`, so a flood of made-up keys costs one query per key
//! and interval instead of one per request; a key created meanwhile works once that has passed.
//! The map is bounded (`MAX_ENTRIES`): when full it is emptied, whatever keys clients try.

use std::collections::HashMap;
use std::sync::RwLock;
use std::time::{Duration, Instant};

use sqlx::PgPool;
use storage::projects::{StoredApiKey, find_api_key};

const FOUND_TTL: Duration = Duration::from_secs(30);
const UNKNOWN_TTL: Duration = Duration::from_secs(5);
const MAX_ENTRIES: usize = 10_000;

#[derive(Default)]
pub struct KeyCache {
    entries: RwLock<HashMap<String, (Option<StoredApiKey>, Instant)>>,
}

impl KeyCache {
    pub async fn find(&self, pool: &PgPool, public_key: &str) -> storage::Result<Option<StoredApiKey>> {
        if let Some(cached) = self.cached(public_key) {
            return Ok(cached);
        }
        let found = find_api_key(pool, public_key).await?;
        if let Ok(mut entries) = self.entries.write() {
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
            entries.insert(public_key.to_owned(), (found.clone(), Instant::now()));
        }
        Ok(found)
    }

    fn cached(&self, public_key: &str) -> Option<Option<StoredApiKey>> {
        let entries = self.entries.read().ok()?;
        let (key, fetched) = entries.get(public_key)?;
        let ttl = if key.is_some() { FOUND_TTL } else { UNKNOWN_TTL };
        (fetched.elapsed() < ttl).then(|| key.clone())
    }
}

#[cfg(test)]
mod tests {
    use domain::config::BootstrapSettings;
    use secrecy::SecretString;

    use super::*;

    /// An unknown key is looked up once per `UNKNOWN_TTL`, however often it is tried: a key created
    /// right after the miss is not found until the miss expires, which shows the miss was cached.
    #[tokio::test]
    async fn unknown_keys_are_remembered_briefly() {
        let db = test_support::TestPostgres::create().await;
        let pool = db.pool().await;
        storage::postgres::MIGRATOR.run(&pool).await.unwrap();
        let cache = KeyCache::default();
        assert!(cache.find(&pool, "pk-lf-late").await.unwrap().is_none());
        let salt = SecretString::from("salt");
        let settings = BootstrapSettings {
            org_id: "org".into(),
            org_name: "Org".into(),
            project_id: "project".into(),
            project_name: "Project".into(),
            public_key: "pk-lf-late".into(),
            secret_key: SecretString::from("sk-lf-late"),
        };
        storage::projects::bootstrap(&pool, &settings, &salt).await.unwrap();
        assert!(cache.find(&pool, "pk-lf-late").await.unwrap().is_none(), "the miss is cached");
        assert!(KeyCache::default().find(&pool, "pk-lf-late").await.unwrap().is_some(), "the key exists");
    }
}
