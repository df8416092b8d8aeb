//! The evaluation engine's wiring: its own ingestion service (judge traces and `EVAL` scores are
//! accepted like any client's payloads), the LLM client, and the project's LLM connections from
//! `resources::llm_connections`.

use std::sync::Arc;

use futures::future::BoxFuture;
use sqlx::PgPool;

use domain::config::Config;
use domain::secrets::EncryptionKey;
use evaluation::engine::{Connections, Engine, EngineSettings};
use ingestion::accept::Acceptor;
use ingestion::service::IngestionService;
use service::Stores;

pub fn engine(config: &Config, stores: &Stores, holder: String) -> Engine {
    let queue = stores.ingestion_queue();
    let settings = &config.ingestion;
    let acceptor = Acceptor::new(
        stores.blobs.clone(),
        queue.clone(),
        settings.queue_max_depth,
        settings.blob_writers,
        settings.queue_inline,
    );
    let ingestion = IngestionService::new(
        Arc::new(acceptor),
        stores.postgres.clone(),
        config.migration.write_mode,
        config.ingestion.max_body_bytes,
    );
    Engine {
        postgres: stores.postgres.clone(),
        clickhouse: stores.clickhouse.clone(),
        queue,
        ingestion: Arc::new(ingestion),
        llm: llm::LlmClient::new(config.auth.outbound.clone(), config.ingestion.eval_llm_timeout),
        connections: Arc::new(ProjectConnections {
            postgres: stores.postgres.clone(),
            key: config.auth.encryption_key.clone(),
        }),
        write_mode: config.migration.write_mode,
        settings: EngineSettings {
            max_per_project: config.ingestion.eval_max_concurrency_per_project,
            ..EngineSettings::default()
        },
        holder,
    }
}

struct ProjectConnections {
    postgres: PgPool,
    key: Option<EncryptionKey>,
}

impl ProjectConnections {
    fn key(&self) -> Result<&EncryptionKey, String> {
        self.key
            .as_ref()
            .ok_or_else(|| "ENCRYPTION_KEY is not set, so no LLM connection can be read".to_owned())
    }
}

impl Connections for ProjectConnections {
    fn named<'a>(
        &'a self,
        project: &'a str,
        provider: &'a str,
    ) -> BoxFuture<'a, Result<Option<llm::Connection>, String>> {
        Box::pin(async move {
            resources::llm_connections::connection_for(&self.postgres, self.key()?, project, provider)
                .await
                .map_err(|e| e.to_string())
        })
    }

    /// The project's default evaluation model: the first custom model of its oldest LLM connection
    /// that has one (docs/evaluators.md).
    fn default_model<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<Option<(llm::Connection, String)>, String>> {
        Box::pin(async move {
            let found: Option<(String, String)> = sqlx::query_as(
                "SELECT provider, custom_models[1] FROM llm_api_keys
                 WHERE project_id = $1 AND cardinality(custom_models) > 0 ORDER BY created_at, provider LIMIT 1",
            )
            .bind(project)
            .fetch_optional(&self.postgres)
            .await
            .map_err(|e| e.to_string())?;
            let Some((provider, model)) = found else { return Ok(None) };
            Ok(self.named(project, &provider).await?.map(|connection| (connection, model)))
        })
    }
}
