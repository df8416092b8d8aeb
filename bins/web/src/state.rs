//! What every handler can reach, built once at startup.

use std::sync::Arc;

use anyhow::Context;
use tokio_util::sync::CancellationToken;

use domain::config::Config;
use ingestion::accept::Acceptor;
use ingestion::service::IngestionService;
use service::Stores;
use service::prometheus::PrometheusHandle;

/// What every handler can reach: the configuration, the stores, the ingestion front door, and the
/// metrics.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub stores: Stores,
    /// The front door of ingestion, for every entry point.
    pub ingestion: Arc<IngestionService>,
    pub keys: Arc<crate::key_cache::KeyCache>,
    /// Announces deleted API keys to every web replica's key cache.
    pub revocations: storage::key_revocations::Revocations,
    /// Signs and checks web's own media URLs; keyed by `SALT` and the deployment's generated media
    /// URL key (read from PostgreSQL once), so built once.
    pub media_tokens: Arc<resources::media::TokenSigner>,
    /// Renders the process's metrics for `GET /metrics`; `None` with `LANGFUSE_METRICS_ENABLED=false`.
    pub metrics: Option<PrometheusHandle>,
}

impl AppState {
    pub async fn build(config: Config, shutdown: &CancellationToken) -> anyhow::Result<Self> {
        // Before anything records: metrics recorded while no recorder is installed are lost.
        let metrics = config.server.metrics_enabled.then(service::prometheus::install).transpose()?;
        let stores = Stores::connect(&config)?;
        stores.prepare(&config).await?;
        let queue = stores.ingestion_queue();
        queue.ensure_group().await.context("ingestion queue")?;
        let ingestion = &config.ingestion;
        let acceptor = Acceptor::new(
            stores.blobs.clone(),
            queue,
            ingestion.queue_max_depth,
            ingestion.blob_writers,
            ingestion.queue_inline,
        );
        acceptor.watch_backlog(shutdown.clone());
        let media_key = storage::instance_secrets::get_or_create(
            &stores.postgres,
            storage::instance_secrets::MEDIA_URL_KEY,
        )
        .await
        .context("the media URL key")?;
        let media_tokens = Arc::new(resources::media::TokenSigner::new(&config.auth.salt, &media_key));
        let ingestion = IngestionService::new(
            Arc::new(acceptor),
            stores.postgres.clone(),
            config.migration.write_mode,
            config.ingestion.max_body_bytes,
        )
        .with_max_resource_copied_bytes(config.ingestion.otel_resource_attributes_max_copied_bytes);
        let keys = Arc::new(crate::key_cache::KeyCache::default());
        tokio::spawn(keys.clone().listen(config.redis.clone(), shutdown.clone()));
        let evicted = keys.clone();
        let revocations =
            storage::key_revocations::Revocations::new(stores.redis.clone(), &stores.redis_key_prefix)
                .evicting_locally(move |public_key| evicted.evict(public_key));
        Ok(Self {
            config: Arc::new(config),
            stores,
            ingestion: Arc::new(ingestion),
            keys,
            revocations,
            media_tokens,
            metrics,
        })
    }
}
