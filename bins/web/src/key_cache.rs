//! A short-lived cache of API keys by public key: ingestion authenticates every request, and a
//! PostgreSQL round trip per export would be most of the acceptance latency.
//!
//! Entries live `TTL`; a rotated or deleted key therefore stops working within that time. Misses
//! are not cached, so a newly created key works at once.

use std::collections::HashMap;
use std::sync::RwLock;
use std::time::{Duration, Instant};

use sqlx::PgPool;
use storage::projects::{StoredApiKey, find_api_key};

const TTL: Duration = Duration::from_secs(30);
/// Bounds memory whatever keys clients try: the cache is simply emptied when full.
const MAX_ENTRIES: usize = 10_000;

#[derive(Default)]
pub struct KeyCache {
    entries: RwLock<HashMap<String, (StoredApiKey, Instant)>>,
}

impl KeyCache {
    pub async fn find(&self, pool: &PgPool, public_key: &str) -> storage::Result<Option<StoredApiKey>> {
        if let Ok(entries) = self.entries.read()
            && let Some((key, fetched)) = entries.get(public_key)
            && fetched.elapsed() < TTL
        {
            return Ok(Some(key.clone()));
        }
        let found = find_api_key(pool, public_key).await?;
        if let (Some(key), Ok(mut entries)) = (&found, self.entries.write()) {
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
            entries.insert(public_key.to_owned(), (key.clone(), Instant::now()));
        }
        Ok(found)
    }
}
