//! What a benchmark run leaves behind: its ClickHouse database and its blobs. A run stores gigabytes
//! of payloads, and SeaweedFS stops accepting uploads below 1% free disk, so repeated runs would
//! end by breaking the stack that the tests share this disk with.

use std::collections::BTreeMap;

use futures::{StreamExt, TryStreamExt};

use domain::config::{BlobSettings, Config, Role};
use storage::blob::BlobStore;

/// Drops the run's database and deletes its blobs. Failures are printed, not returned: the
/// figures were already printed, and the run's outcome is what the caller reports.
pub async fn remove(env: &BTreeMap<String, String>, database: &str) {
    let dropped = clickhouse::Client::default()
        .with_url(&env["CLICKHOUSE_URL"])
        .query(&format!("DROP DATABASE IF EXISTS {database}"))
        .execute()
        .await;
    if let Err(e) = dropped {
        eprintln!("cleanup: could not drop database {database}: {e}");
    }
    match delete_blobs(env).await {
        Ok(0) => {}
        Ok(count) => println!("  cleanup         {count} blobs deleted, database {database} dropped"),
        Err(e) => eprintln!("cleanup: blobs left behind: {e:#}"),
    }
}

async fn delete_blobs(env: &BTreeMap<String, String>) -> anyhow::Result<usize> {
    let config = Config::from_env_vars(Role::Web, env.clone())
        .map_err(|e| anyhow::anyhow!("the run's settings: {:?}", e.problems))?;
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
