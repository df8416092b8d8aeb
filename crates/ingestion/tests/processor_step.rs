//! The worker's consumer loop, driven one step at a time on the real stack: a payload accepted the
//! way web accepts it is read, converted, inserted and acknowledged by `Processor::step`.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::future::BoxFuture;
use prost::Message;
use tokio_util::sync::CancellationToken;

use domain::config::{Config, Role, WriteMode};
use domain::experiment::{ExperimentLink, Linked};
use domain::sdk::SdkInfo;
use ingestion::accept::{Acceptor, Sender};
use ingestion::process::{ExperimentRecorder, Heartbeat, Prices, Processor, Turn};
use test_support::{TestClickHouse, TestPostgres, stack_env};

/// This test's export carries no experiment spans, so nothing reaches the datasets.
struct NoExperiments;

impl ExperimentRecorder for NoExperiments {
    fn record<'a>(&'a self, links: &'a [ExperimentLink]) -> BoxFuture<'a, storage::Result<Linked>> {
        assert!(links.is_empty(), "the export has no experiment spans");
        Box::pin(async { Ok(Linked::default()) })
    }
}

#[tokio::test]
async fn a_step_inserts_and_acknowledges_what_was_accepted() {
    service::install_crypto_provider();
    let (pg, ch) = (TestPostgres::create().await, TestClickHouse::create().await);
    let mut env = stack_env(&pg, &ch);
    env.insert("LANGFUSE_MIGRATION_V4_WRITE_MODE".into(), "events_only".into());
    let config = Config::from_env_vars(Role::Worker, env).unwrap_or_else(|e| panic!("{:?}", e.problems));
    assert_eq!(config.migration.write_mode, WriteMode::EventsOnly);
    let stores = service::Stores::connect(&config).unwrap();
    stores.prepare(&config).await.unwrap();
    let queue = stores.ingestion_queue();
    queue.ensure_group().await.unwrap();

    let acceptor = Acceptor::new(stores.blobs.clone(), queue.clone(), 1_000);
    let sender = Sender {
        project_id: "project-step".into(),
        public_key: "pk-lf-step".into(),
        sdk: SdkInfo::default(),
        scores_only: false,
    };
    let export = test_support::otlp::export(7, 0, 3, 4);
    acceptor.accept_otlp(&sender, Bytes::from(export.encode_to_vec())).await.unwrap();
    assert_eq!(queue.depth().await.unwrap(), 1, "accepted means queued");

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
    let (shutdown, mut turn) = (CancellationToken::new(), Turn::new(config.ingestion.claim_idle));
    let (mut read, mut flushed) = (0, 0);
    let deadline = Instant::now() + Duration::from_secs(30);
    while flushed == 0 {
        assert!(
            Instant::now() < deadline,
            "not flushed in 30 s: read {read}, pending {}",
            turn.pending_entries()
        );
        let stepped = processor.step(&mut turn, &shutdown).await;
        (read, flushed) = (read + stepped.read, flushed + stepped.flushed);
    }
    assert_eq!((read, flushed, turn.pending_entries()), (1, 1, 0));
    assert_eq!(queue.depth().await.unwrap(), 0, "a flushed entry is acknowledged and removed");

    let rows: u64 = ch
        .client()
        .query("SELECT count() FROM events_full WHERE project_id = ?")
        .bind("project-step")
        .fetch_one()
        .await
        .unwrap();
    assert_eq!(rows, 12, "3 traces of 4 spans");
}
