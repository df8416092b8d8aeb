//! The worker's consumer loop, driven one step at a time on the real stack: a payload accepted the
//! way web accepts it is read, converted, inserted and acknowledged by `Processor::step`.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::future::BoxFuture;
use prost::Message;
use tokio_util::sync::CancellationToken;

use domain::config::{Config, Role};
use domain::experiment::{ExperimentLink, Linked};
use domain::sdk::SdkInfo;
use ingestion::accept::{Acceptor, Sender};
use ingestion::process::{ExperimentRecorder, Heartbeat, Prices, Processor, Turn};
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
struct Harness {
    _pg: TestPostgres,
    ch: TestClickHouse,
    queue: storage::queue::IngestionQueue,
    acceptor: Arc<Acceptor>,
    processor: Arc<Processor>,
    service: IngestionService,
    claim_idle: Duration,
}

async fn harness() -> Harness {
    harness_in("events_only").await
}

async fn harness_in(write_mode: &str) -> Harness {
    service::install_crypto_provider();
    let (pg, ch) = (TestPostgres::create().await, TestClickHouse::create().await);
    let mut env = stack_env(&pg, &ch);
    env.insert("LANGFUSE_MIGRATION_V4_WRITE_MODE".into(), write_mode.into());
    let config = Config::from_env_vars(Role::Worker, env).unwrap_or_else(|e| panic!("{:?}", e.problems));
    assert_eq!(config.migration.write_mode.as_str(), write_mode);
    let stores = service::Stores::connect(&config).unwrap();
    stores.prepare(&config).await.unwrap();
    let queue = stores.ingestion_queue();
    queue.ensure_group().await.unwrap();
    let acceptor = Arc::new(Acceptor::new(stores.blobs.clone(), queue.clone(), 1_000));
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
    Harness { _pg: pg, ch, queue, acceptor, processor, service, claim_idle: config.ingestion.claim_idle }
}

impl Harness {
    /// Steps the loop until `entries` queue entries are flushed; returns the entries read.
    async fn step_until_flushed(&self, entries: usize) -> usize {
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

    async fn count(&self, sql: &str) -> u64 {
        self.ch.client().query(sql).bind(PROJECT).fetch_one().await.unwrap()
    }
}

const PROJECT: &str = "project-step";

fn sender() -> Sender {
    Sender {
        project_id: PROJECT.into(),
        public_key: "pk-lf-step".into(),
        sdk: SdkInfo::default(),
        scores_only: false,
    }
}

#[tokio::test]
async fn a_step_inserts_and_acknowledges_what_was_accepted() {
    let h = harness().await;
    let export = test_support::otlp::export(7, 0, 3, 4);
    h.acceptor.accept_otlp(&sender(), Bytes::from(export.encode_to_vec())).await.unwrap();
    assert_eq!(h.queue.depth().await.unwrap(), 1, "accepted means queued");
    assert_eq!(h.step_until_flushed(1).await, 1);
    assert_eq!(h.queue.depth().await.unwrap(), 0, "a flushed entry is acknowledged and removed");
    assert_eq!(
        h.count("SELECT count() FROM events_full WHERE project_id = ?").await,
        12,
        "3 traces of 4 spans"
    );
}

/// ClickHouse refuses an insert block that touches more than 100 month partitions; a client decides
/// its spans' and scores' times, so one payload over 101 months must still land whole.
#[tokio::test]
async fn spans_and_scores_over_a_hundred_and_one_months_land_whole() {
    let h = harness().await;
    let mut export = test_support::otlp::export(8, 0, 101, 2);
    let month_ns: u64 = 31 * 24 * 3600 * 1_000_000_000;
    let spans = export.resource_spans.iter_mut().flat_map(|r| &mut r.scope_spans).flat_map(|s| &mut s.spans);
    for (index, span) in spans.enumerate() {
        let start = 1_000_000_000_000_000_000 + (index as u64 / 2) * month_ns;
        (span.start_time_unix_nano, span.end_time_unix_nano) = (start, start + 1_000_000);
    }
    h.acceptor.accept_otlp(&sender(), Bytes::from(export.encode_to_vec())).await.unwrap();
    let scores: Vec<serde_json::Value> = (0..101)
        .map(|month| {
            let at = chrono::DateTime::from_timestamp(1_000_000_000 + month * 31 * 24 * 3600, 0).unwrap();
            serde_json::json!({"id": format!("e{month}"), "type": "score-create", "timestamp": at.to_rfc3339(),
                "body": {"id": format!("s{month}"), "traceId": "t", "name": "q", "value": month, "timestamp": at.to_rfc3339()}})
        })
        .collect();
    let body = serde_json::to_vec(&serde_json::json!({ "batch": scores })).unwrap();
    let answer = h.service.batch(&sender(), Bytes::from(body)).await.unwrap();
    assert_eq!((answer.successes.len(), answer.errors.len()), (101, 0), "{:?}", answer.errors);
    h.step_until_flushed(2).await;
    assert_eq!(h.count("SELECT count() FROM events_full WHERE project_id = ?").await, 202);
    assert_eq!(
        h.count("SELECT uniqExact(toYYYYMM(start_time)) FROM events_full WHERE project_id = ?").await,
        101
    );
    assert_eq!(h.count("SELECT count() FROM scores WHERE project_id = ?").await, 101);
}

/// Updates of one trace sent one after another, in separate requests, are merged in the order they
/// were sent, however the worker's concurrent conversions finish.
#[tokio::test]
async fn updates_are_applied_in_the_order_they_were_received() {
    let h = harness_in("legacy").await;
    let at = "2026-11-25T12:00:00.000Z";
    for version in 0..=50 {
        let event = serde_json::json!({"id": format!("e{version}"), "type": "trace-create", "timestamp": at,
            "body": {"id": "t-ordered", "name": format!("v{version}"), "timestamp": at}});
        let body = serde_json::to_vec(&serde_json::json!({ "batch": [event] })).unwrap();
        let answer = h.service.batch(&sender(), Bytes::from(body)).await.unwrap();
        assert_eq!(answer.errors.len(), 0, "{:?}", answer.errors);
    }
    let entries = h.queue.depth().await.unwrap() as usize;
    h.step_until_flushed(entries).await;
    let name: String = h
        .ch
        .client()
        .query("SELECT name FROM traces WHERE project_id = ? AND id = 't-ordered' ORDER BY event_ts DESC LIMIT 1")
        .bind(PROJECT)
        .fetch_one()
        .await
        .unwrap();
    assert_eq!(name, "v50", "the last update sent wins");
}
