//! What a benchmark run leaves behind: its ClickHouse database, its blobs and its Redis keys. A run
//! stores gigabytes of payloads, and SeaweedFS stops accepting uploads below 1% free disk, so
//! repeated runs would end by breaking the stack that the tests share this disk with. Its Redis keys
//! hold what was still queued when the run stopped (payloads included, when entries carry them):
//! left, they grow Redis's memory and every AOF rewrite of it, run after run.

use std::collections::BTreeMap;

use futures::{StreamExt, TryStreamExt};

use domain::config::{BlobSettings, Config, Role};
use storage::blob::BlobStore;

/// Drops the run's database and deletes its blobs and Redis keys. Failures are printed, not
/// returned: the figures were already printed, and the run's outcome is what the caller reports.
pub async fn remove(env: &BTreeMap<String, String>, database: &str) {
    let dropped = clickhouse::Client::default()
        .with_url(&env["CLICKHOUSE_URL"])
        .query(&format!("DROP DATABASE IF EXISTS {database}"))
        .execute()
        .await;
    if let Err(e) = dropped {
        eprintln!("cleanup: could not drop database {database}: {e}");
    }
    let config = match Config::from_env_vars(Role::Web, env.clone()) {
        Ok(config) => config,
        Err(e) => {
            return eprintln!(
                "cleanup: blobs and Redis keys left behind: the run's settings: {:?}",
                e.problems
            );
        }
    };
    match delete_blobs(&config).await {
        Ok(0) => {}
        Ok(count) => println!("  cleanup         {count} blobs deleted, database {database} dropped"),
        Err(e) => eprintln!("cleanup: blobs left behind: {e:#}"),
    }
    if let Err(e) = delete_redis_keys(&config).await {
        eprintln!("cleanup: Redis keys left behind: {e:#}");
    }
}

/// Deletes every key under the run's Redis prefix (`LANGFUSE_REDIS_KEY_PREFIX`, its own).
async fn delete_redis_keys(config: &Config) -> anyhow::Result<()> {
    use deadpool_redis::redis::{self, AsyncIter};

    anyhow::ensure!(!config.redis.key_prefix.is_empty(), "the run has no Redis prefix of its own");
    let pool = storage::redis::connect(&config.redis)?;
    let mut scanning = pool.get().await?;
    let pattern = format!("{}*", config.redis.key_prefix);
    let mut keys: Vec<String> = Vec::new();
    {
        let mut iter: AsyncIter<String> = redis::cmd("SCAN")
            .cursor_arg(0)
            .arg("MATCH")
            .arg(&pattern)
            .arg("COUNT")
            .arg(1000)
            .clone()
            .iter_async(&mut *scanning)
            .await?;
        while let Some(key) = iter.next_item().await {
            keys.push(key?);
        }
    }
    let mut connection = pool.get().await?;
    for chunk in keys.chunks(500) {
        redis::cmd("UNLINK").arg(chunk).query_async::<()>(&mut *connection).await?;
    }
    Ok(())
}

async fn delete_blobs(config: &Config) -> anyhow::Result<usize> {
    if let BlobSettings::LocalDir(dir) = &config.blob {
        std::fs::remove_dir_all(dir).or_else(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Ok(()),
            _ => Err(e),
        })?;
        return Ok(0);
    }
    // The run's store is rooted at its own prefix, so everything listed is the run's.
    let blobs = BlobStore::connect(&config.blob)?;
    let store = blobs.store();
    let locations = store.list(None).map_ok(|meta| meta.location).boxed();
    let deleted: Vec<_> = store.delete_stream(locations).try_collect().await?;
    Ok(deleted.len())
}
