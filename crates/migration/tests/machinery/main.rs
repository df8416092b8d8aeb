//! The migration machinery against the real engines of the local test stack (`just test`): each
//! test gets its own PostgreSQL and ClickHouse databases with the full schema.

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

mod backfill;
mod experiments;
mod propagation;

use std::time::Duration;

use domain::config::{BackfillSettings, MigrationSettings, OtelBehaviour, PropagationSettings, WriteMode};
use sqlx::PgPool;
use storage::clickhouse::ClickHouse;
use test_support::{TestClickHouse, TestPostgres};

pub struct Env {
    pub pool: PgPool,
    pub ch: ClickHouse,
    _pg: TestPostgres,
    _ch: TestClickHouse,
}

pub async fn env() -> Env {
    let pg = TestPostgres::create().await;
    let test_ch = TestClickHouse::create().await;
    let pool = pg.pool().await;
    let ch = ClickHouse::connect(&test_ch.settings());
    storage::schema::migrate(&pool, &ch).await.unwrap();
    Env { pool, ch, _pg: pg, _ch: test_ch }
}

impl Env {
    pub async fn exec(&self, sql: &str) {
        self.ch.client().query(sql).execute().await.unwrap_or_else(|e| panic!("{e}: {sql}"));
    }

    pub async fn count(&self, sql: &str) -> u64 {
        self.ch.client().query(sql).fetch_one::<u64>().await.unwrap_or_else(|e| panic!("{e}: {sql}"))
    }

    /// An order-independent fingerprint of a table's deduplicated content.
    pub async fn checksum(&self, table: &str) -> (u64, u64) {
        self.ch
            .client()
            .query(&format!("SELECT count(), groupBitXor(cityHash64(toString(tuple(*)))) FROM {table} FINAL"))
            .fetch_one()
            .await
            .unwrap()
    }
}

pub fn migration(mode: WriteMode) -> MigrationSettings {
    MigrationSettings {
        write_mode: mode,
        otel_behaviour: OtelBehaviour::Direct,
        allow_preview_opt_in: true,
        enable_historic_backfill: mode != WriteMode::Legacy,
        drop_pid_tid_sorting_tables: false,
        propagation_stuck_threshold: Duration::from_secs(15 * 60),
    }
}

pub fn backfill_settings(chunk_rows: u64) -> BackfillSettings {
    BackfillSettings {
        enabled: true,
        chunk_rows,
        max_memory_bytes: 512 * 1024 * 1024,
        pause: Duration::ZERO,
        experiment_batch_traces: 2,
    }
}

pub fn propagation_settings() -> PropagationSettings {
    PropagationSettings {
        partition_delay: Duration::from_secs(10 * 60),
        interval: Duration::from_secs(60),
        exclude_project_ids: Vec::new(),
        max_insert_threads: 2,
    }
}
