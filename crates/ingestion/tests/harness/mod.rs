//! A worker over a test's own databases and Redis keys, driven one `Processor::step` at a time,
//! with the acceptor web would use in front of it.

#![allow(dead_code)] // each test file uses part of it

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use domain::config::{Config, Role};
use domain::experiment::{ExperimentLink, Linked};
use domain::sdk::SdkInfo;
use ingestion::accept::{Acceptor, Sender};
use ingestion::process::{ExperimentRecorder, Heartbeat, Prices, Processor, Stepped, Turn};
use ingestion::service::IngestionService;
use test_support::{TestClickHouse, TestPostgres, stack_env};

/// This test's export carries no experiment spans, so nothing reaches the datasets.
struct NoExperiments;

impl ExperimentRecorder for NoExperiments {
    fn record<'a>(&'a self, links: &'a [ExperimentLink]) -> BoxFuture<'a, storage::Result<Linked>> {
        assert!(links.is_empty(), "the export has no experiment spans");
        Box::pin(async { Ok(Linked::default()) })
    }
}

/// A worker over this test's own databases, in a write mode, and the acceptor web would use.
pub struct Harness {
    pub pg: TestPostgres,
    pub ch: TestClickHouse,
    pub queue: storage::queue::IngestionQueue,
    pub acceptor: Arc<Acceptor>,
    pub processor: Arc<Processor>,
    pub service: IngestionService,
    pub claim_idle: Duration,
    pub postgres: sqlx::PgPool,
}

pub async fn harness() -> Harness {
    harness_in("events_only").await
}

pub async fn harness_in(write_mode: &str) -> Harness {
    harness_with(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", write_mode)]).await
}

/// A harness with these settings on top of the test stack's.
pub async fn harness_with(settings: &[(&str, &str)]) -> Harness {
    service::install_crypto_provider();
    let (pg, ch) = (TestPostgres::create().await, TestClickHouse::create().await);
    let mut env = stack_env(&pg, &ch);
    for (name, value) in settings {
        env.insert((*name).into(), (*value).into());
    }
    let write_mode =
        env.get("LANGFUSE_MIGRATION_V4_WRITE_MODE").cloned().unwrap_or_else(|| "events_only".into());
    env.insert("LANGFUSE_MIGRATION_V4_WRITE_MODE".into(), write_mode.clone());
    let config = Config::from_env_vars(Role::Worker, env).unwrap_or_else(|e| panic!("{:?}", e.problems));
    assert_eq!(config.migration.write_mode.as_str(), write_mode);
    let stores = service::Stores::connect(&config).unwrap();
    stores.prepare(&config).await.unwrap();
    let queue = stores.ingestion_queue();
    queue.ensure_group().await.unwrap();
    let (writers, inline) = (config.ingestion.blob_writers, config.ingestion.queue_inline);
    let acceptor = Arc::new(Acceptor::new(stores.blobs.clone(), queue.clone(), 1_000, writers, inline));
    let service = IngestionService::new(
        acceptor.clone(),
        stores.postgres.clone(),
        config.migration.write_mode,
        config.ingestion.max_body_bytes,
    );
    let processor = Arc::new(Processor {
        blobs: stores.blobs.clone(),
        queue: queue.clone(),
        clickhouse: stores.clickhouse.clone(),
        postgres: stores.postgres.clone(),
        migration: config.migration.clone(),
        settings: config.ingestion.clone(),
        prices: Prices::new(stores.postgres.clone()),
        heartbeat: Heartbeat::default(),
        experiments: Arc::new(NoExperiments),
        consumer: "step-test".into(),
    });
    let postgres = stores.postgres.clone();
    Harness { pg, ch, queue, acceptor, processor, service, claim_idle: config.ingestion.claim_idle, postgres }
}

impl Harness {
    /// Steps the loop until nothing is queued any more, within 60 s; returns what the steps did.
    pub async fn step_until_drained(&self) -> Stepped {
        let (shutdown, mut turn) = (CancellationToken::new(), Turn::new(self.claim_idle));
        let mut total = Stepped::default();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let step = tokio::time::timeout(left, self.processor.step(&mut turn, &shutdown)).await;
            let Ok(stepped) = step else { panic!("not drained in 60 s: {total:?}") };
            total.read += stepped.read;
            total.flushed += stepped.flushed;
            total.dead_lettered += stepped.dead_lettered;
            if turn.pending_entries() == 0 && self.queue.depth().await.unwrap() == 0 {
                return total;
            }
        }
    }

    /// Steps the loop until `entries` queue entries are flushed; returns the entries read.
    pub async fn step_until_flushed(&self, entries: usize) -> usize {
        let (shutdown, mut turn) = (CancellationToken::new(), Turn::new(self.claim_idle));
        let (mut read, mut flushed) = (0, 0);
        let deadline = Instant::now() + Duration::from_secs(30);
        while flushed < entries {
            // A step whose insert keeps failing retries inside the step; the deadline covers that too.
            let left = deadline.saturating_duration_since(Instant::now());
            let step = tokio::time::timeout(left, self.processor.step(&mut turn, &shutdown)).await;
            let Ok(stepped) = step else { panic!("not flushed in 30 s: read {read}, flushed {flushed}") };
            (read, flushed) = (read + stepped.read, flushed + stepped.flushed);
        }
        assert_eq!(turn.pending_entries(), 0);
        read
    }

    pub async fn count(&self, sql: &str) -> u64 {
        self.ch.client().query(sql).bind(PROJECT).fetch_one().await.unwrap()
    }
}

pub const PROJECT: &str = "project-step";

pub fn sender() -> Sender {
    sender_of(PROJECT)
}

pub fn sender_of(project: &str) -> Sender {
    Sender {
        project_id: project.into(),
        public_key: "pk-lf-step".into(),
        sdk: SdkInfo::default(),
        scores_only: false,
    }
}
