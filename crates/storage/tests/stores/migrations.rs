//! Schema migrations on an empty database, on a second run, concurrently, and on a database that
//! already holds an older Langfuse v3 schema with data.

use storage::clickhouse::{ClickHouse, MIGRATIONS, split_statements};
use test_support::{TestClickHouse, TestPostgres};

const V3_OLDER: &str = include_str!("../../../../tests/fixtures/clickhouse/langfuse_v3_older.sql");
const ALL_TABLES: [&str; 8] = [
    "traces",
    "observations",
    "scores",
    "dataset_run_items_rmt",
    "events_full",
    "events_core",
    "events_core_mv",
    "observations_batch_staging",
];

async fn tables(ch: &ClickHouse) -> Vec<String> {
    ch.client()
        .query("SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name")
        .fetch_all()
        .await
        .unwrap()
}

async fn record_count(ch: &ClickHouse) -> u64 {
    // Without FINAL: a migration recorded twice would show up here.
    ch.client().query("SELECT count() FROM loupe_schema_migrations").fetch_one().await.unwrap()
}

#[tokio::test]
async fn empty_database_then_second_run() {
    let (pg, chdb) = (TestPostgres::create().await, TestClickHouse::create().await);
    let (pool, ch) = (pg.pool().await, ClickHouse::connect(&chdb.settings()));

    let first = storage::schema::migrate(&pool, &ch).await.unwrap();
    assert_eq!(first.applied.len(), MIGRATIONS.len());
    assert!(first.pre_existing_tables.is_empty());
    let present = tables(&ch).await;
    for table in ALL_TABLES {
        assert!(present.iter().any(|t| t == table), "{table} missing from {present:?}");
    }
    let pg_tables: Vec<String> = sqlx::query_scalar(
        "SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    for table in ["api_keys", "background_migrations", "organizations", "projects"] {
        assert!(pg_tables.iter().any(|t| t == table), "{table} missing from {pg_tables:?}");
    }

    let second = storage::schema::migrate(&pool, &ch).await.unwrap();
    assert!(second.applied.is_empty());
    assert_eq!(second.already_applied.len(), MIGRATIONS.len());
    assert_eq!(record_count(&ch).await, MIGRATIONS.len() as u64);
}

#[tokio::test]
async fn concurrent_instances_migrate_once() {
    let (pg, chdb) = (TestPostgres::create().await, TestClickHouse::create().await);
    let (pool, ch) = (pg.pool().await, ClickHouse::connect(&chdb.settings()));
    let (a, b) = tokio::join!(storage::schema::migrate(&pool, &ch), storage::schema::migrate(&pool, &ch));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.applied.len() + b.applied.len(), MIGRATIONS.len(), "{a:?} {b:?}");
    assert_eq!(record_count(&ch).await, MIGRATIONS.len() as u64);
}

#[tokio::test]
async fn an_edited_migration_is_refused() {
    let (pg, chdb) = (TestPostgres::create().await, TestClickHouse::create().await);
    let (pool, ch) = (pg.pool().await, ClickHouse::connect(&chdb.settings()));
    storage::schema::migrate(&pool, &ch).await.unwrap();
    // Pretend migration 3 was applied from a different text.
    ch.client()
        .query("INSERT INTO loupe_schema_migrations (version, name, checksum, applied_at) VALUES (3, 'x', 'other', now64(3) + 1)")
        .execute()
        .await
        .unwrap();
    let error = storage::schema::migrate(&pool, &ch).await.unwrap_err();
    assert!(error.to_string().contains("0003_scores"), "{error}");
}

/// Column names of `table` in order, as they stand now.
async fn columns(ch: &ClickHouse, table: &str) -> Vec<String> {
    ch.client()
        .query("SELECT name FROM system.columns WHERE database = currentDatabase() AND table = ? ORDER BY position")
        .bind(table)
        .fetch_all()
        .await
        .unwrap()
}

/// Row count and a hash over the given columns of every row.
async fn fingerprint(ch: &ClickHouse, table: &str, columns: &[String]) -> (u64, u64) {
    let list = columns.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
    ch.client()
        .query(&format!(
            "SELECT count(), sum(cityHash64(formatRow('TabSeparated', {list}))) FROM {table} FINAL"
        ))
        .fetch_one()
        .await
        .unwrap()
}

#[tokio::test]
async fn older_v3_database_keeps_its_data_and_gains_current_columns() {
    let (pg, chdb) = (TestPostgres::create().await, TestClickHouse::create().await);
    let (pool, ch) = (pg.pool().await, ClickHouse::connect(&chdb.settings()));
    for statement in split_statements(V3_OLDER) {
        ch.client().query(&statement).execute().await.unwrap();
    }
    for insert in [
        "INSERT INTO traces (id, timestamp, name, project_id, metadata, tags, event_ts, is_deleted) \
         VALUES ('t1', '2025-01-02 03:04:05.678', 'chat', 'p1', map('tenant','acme'), ['a','b'], now64(3), 0), \
                ('t2', '2025-02-02 00:00:00', 'other', 'p1', map(), [], now64(3), 0)",
        "INSERT INTO observations (id, trace_id, project_id, type, start_time, name, level, usage_details, event_ts, is_deleted) \
         VALUES ('o1', 't1', 'p1', 'GENERATION', '2025-01-02 03:04:05.700', 'llm', 'DEFAULT', map('input', 42), now64(3), 0)",
        "INSERT INTO scores (id, timestamp, project_id, trace_id, name, value, source, data_type, event_ts, is_deleted) \
         VALUES ('s1', '2025-01-02 03:04:06', 'p1', 't1', 'quality', 0.9, 'API', 'NUMERIC', now64(3), 0)",
        "INSERT INTO dataset_run_items_rmt (id, project_id, dataset_run_id, dataset_item_id, dataset_id, trace_id, \
         dataset_run_name, dataset_run_created_at, event_ts, is_deleted) \
         VALUES ('r1', 'p1', 'run1', 'item1', 'ds1', 't1', 'run', '2025-01-02 00:00:00', now64(3), 0)",
    ] {
        ch.client().query(insert).execute().await.unwrap();
    }
    let v3_tables = ["traces", "observations", "scores", "dataset_run_items_rmt"];
    let mut before = Vec::new();
    for table in v3_tables {
        let cols = columns(&ch, table).await;
        before.push((table, fingerprint(&ch, table, &cols).await, cols));
    }

    let report = storage::schema::migrate(&pool, &ch).await.unwrap();
    assert_eq!(report.applied.len(), MIGRATIONS.len());
    for table in v3_tables {
        assert!(report.pre_existing_tables.iter().any(|t| t == table), "{table} not detected as existing");
    }

    for (table, fingerprint_before, old_columns) in &before {
        assert_eq!(fingerprint(&ch, table, old_columns).await, *fingerprint_before, "{table} data changed");
        let now = columns(&ch, table).await;
        assert!(old_columns.iter().all(|c| now.contains(c)), "{table} lost a column");
    }
    for (table, column) in [
        ("observations", "tool_calls"),
        ("observations", "usage_pricing_tier_id"),
        ("scores", "ingestion_sdk_name"),
        ("scores", "evaluator_id"),
        ("dataset_run_items_rmt", "dataset_item_version"),
    ] {
        assert!(columns(&ch, table).await.iter().any(|c| c == column), "{table}.{column} not added");
    }
    let sdk: String = ch
        .client()
        .query("SELECT ingestion_sdk_name FROM scores FINAL WHERE id = 's1'")
        .fetch_one()
        .await
        .unwrap();
    assert_eq!(sdk, "unknown");
}
