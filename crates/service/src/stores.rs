use anyhow::Context;
use domain::config::Config;
use sqlx::PgPool;
use storage::blob::BlobStore;
use storage::clickhouse::ClickHouse;

/// How long startup waits for PostgreSQL and ClickHouse to become reachable.
const STORES_WAIT: std::time::Duration = std::time::Duration::from_secs(120);

/// Connections to the four stores, built from the configuration.
#[derive(Clone)]
pub struct Stores {
    pub postgres: PgPool,
    pub clickhouse: ClickHouse,
    pub redis: deadpool_redis::Pool,
    pub blobs: BlobStore,
    pub redis_key_prefix: String,
}

impl Stores {
    /// Connects lazily: nothing here waits for a store to be up.
    pub fn connect(config: &Config) -> anyhow::Result<Self> {
        Ok(Self {
            postgres: storage::postgres::connect(&config.postgres).context("postgres")?,
            clickhouse: ClickHouse::connect(&config.clickhouse),
            redis: storage::redis::connect(&config.redis).context("redis")?,
            blobs: BlobStore::connect(&config.blob).context("blob storage")?,
            redis_key_prefix: config.redis.key_prefix.clone(),
        })
    }

    /// The Redis stream web appends accepted payloads to and workers consume.
    pub fn ingestion_queue(&self) -> storage::queue::IngestionQueue {
        storage::queue::IngestionQueue::new(self.redis.clone(), format!("{}ingestion", self.redis_key_prefix))
    }

    /// Applies both schemas (serialised across instances) and, when configured, the headless
    /// bootstrap of the default project.
    pub async fn prepare(&self, config: &Config) -> anyhow::Result<()> {
        // Stores that are still starting (a fresh compose stack, a rolling restart) are waited
        // for instead of crash-looping; anything else stops startup at once.
        let started = std::time::Instant::now();
        loop {
            match storage::schema::migrate(&self.postgres, &self.clickhouse).await {
                Ok(_) => break,
                Err(error) if error.is_unavailable() && started.elapsed() < STORES_WAIT => {
                    tracing::warn!(%error, "a store is not reachable yet; retrying schema migrations");
                    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
                }
                Err(error) => return Err(error).context("schema migrations"),
            }
        }
        if let Some(bootstrap) = &config.bootstrap {
            storage::projects::bootstrap(&self.postgres, bootstrap, &config.auth.salt)
                .await
                .context("LANGFUSE_INIT_* bootstrap")?;
            tracing::info!(project_id = %bootstrap.project_id, public_key = %bootstrap.public_key, "bootstrapped project");
        }
        Ok(())
    }
}
