use anyhow::Context;
use domain::config::Config;
use sqlx::PgPool;
use storage::blob::BlobStore;
use storage::clickhouse::ClickHouse;

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
        storage::schema::migrate(&self.postgres, &self.clickhouse).await.context("schema migrations")?;
        if let Some(bootstrap) = &config.bootstrap {
            storage::projects::bootstrap(&self.postgres, bootstrap, &config.auth.salt)
                .await
                .context("LANGFUSE_INIT_* bootstrap")?;
            tracing::info!(project_id = %bootstrap.project_id, public_key = %bootstrap.public_key, "bootstrapped project");
        }
        Ok(())
    }
}
