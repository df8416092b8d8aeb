use std::time::Duration;

use serde::Serialize;

use crate::Stores;

/// Reachability of each store, as the health endpoints report it.
#[derive(Debug, Serialize)]
pub struct DependencyReport {
    pub postgres: String,
    pub clickhouse: String,
    pub redis: String,
    pub blob_storage: String,
}

impl DependencyReport {
    pub fn all_ok(&self) -> bool {
        [&self.postgres, &self.clickhouse, &self.redis, &self.blob_storage].iter().all(|s| *s == "ok")
    }
}

/// Checks the four stores concurrently, each bounded so a hung store cannot hang the probe.
pub async fn check_dependencies(stores: &Stores) -> DependencyReport {
    const LIMIT: Duration = Duration::from_secs(3);
    async fn status<F: Future<Output = storage::Result<()>>>(check: F) -> String {
        match tokio::time::timeout(LIMIT, check).await {
            Ok(Ok(())) => "ok".to_owned(),
            Ok(Err(error)) => format!("unavailable: {error}"),
            Err(_) => format!("unavailable: no answer within {}s", LIMIT.as_secs()),
        }
    }
    let (postgres, clickhouse, redis, blob_storage) = tokio::join!(
        status(storage::postgres::check(&stores.postgres)),
        status(stores.clickhouse.check()),
        status(storage::redis::check(&stores.redis)),
        status(stores.blobs.check()),
    );
    DependencyReport { postgres, clickhouse, redis, blob_storage }
}
