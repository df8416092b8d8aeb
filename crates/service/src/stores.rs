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
        // Before anything reads a stored secret: without the key (or with another one) they are
        // unreadable, and that must stop startup rather than fail every call that needs one.
        storage::stored_secrets::check(&self.postgres, config.auth.encryption_key.as_ref()).await?;
        if let Some(bootstrap) = &config.bootstrap {
            storage::projects::bootstrap(&self.postgres, bootstrap, &config.auth.salt)
                .await
                .context("LANGFUSE_INIT_* bootstrap")?;
            tracing::info!(project_id = %bootstrap.project_id, public_key = %bootstrap.public_key, "bootstrapped project");
            if let Some(user) = &config.accounts.init_user {
                self.bootstrap_user(&bootstrap.org_id, user)
                    .await
                    .context("LANGFUSE_INIT_USER_* bootstrap")?;
                tracing::info!(email = %user.email, org_id = %bootstrap.org_id, "bootstrapped the first user");
            }
        }
        Ok(())
    }

    /// The first user, owner of the init organization. The password is hashed again only when the
    /// stored hash does not match it, so a restart neither rewrites it nor ends sessions.
    async fn bootstrap_user(&self, org_id: &str, user: &domain::config::InitUser) -> anyhow::Result<()> {
        use secrecy::ExposeSecret;
        let password = user.password.expose_secret().to_owned();
        let stored = storage::accounts::credentials_by_email(&self.postgres, &user.email).await?;
        let stored_hash = stored.and_then(|c| c.password_hash);
        let salt = *uuid::Uuid::new_v4().as_bytes();
        let new_hash = tokio::task::spawn_blocking(move || match stored_hash {
            Some(hash) if domain::password::verify_password(&password, &hash) => Ok(None),
            _ => domain::password::hash_password(&password, &salt).map(Some),
        })
        .await?
        .map_err(anyhow::Error::msg)?;
        let mut tx = self.postgres.begin().await?;
        storage::accounts::bootstrap_user(
            &mut tx,
            org_id,
            &user.email,
            user.name.as_deref(),
            new_hash.as_deref(),
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }
}
