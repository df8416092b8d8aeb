//! The local ClickHouse front (chdb behind deploy/local/chfront) driven by the real `clickhouse`
//! crate through Loupe's own client: what works here is what ships.

use clickhouse::Row;
use serde::{Deserialize, Serialize};
use storage::clickhouse::ClickHouse;
use test_support::TestClickHouse;

#[derive(Debug, Clone, PartialEq, Row, Serialize, Deserialize)]
struct Span {
    id: String,
    name: String,
    tokens: u64,
    attributes: Vec<(String, String)>,
    #[serde(with = "clickhouse::serde::chrono::datetime64::millis")]
    start_time: chrono::DateTime<chrono::Utc>,
    version: u32,
}

const CREATE_SPANS: &str = "CREATE TABLE spans (id String, name LowCardinality(String), tokens UInt64, \
    attributes Map(LowCardinality(String), String), start_time DateTime64(3), version UInt32) \
    ENGINE = ReplacingMergeTree(version) ORDER BY id";

fn span(i: u64, version: u32) -> Span {
    Span {
        id: format!("span-{i:06}"),
        name: format!("name-{}", i % 7),
        tokens: i * version as u64,
        attributes: vec![("k".into(), format!("v{i}"))],
        start_time: chrono::DateTime::from_timestamp_millis(1_700_000_000_000 + i as i64).unwrap(),
        version,
    }
}

async fn insert(ch: &ClickHouse, rows: impl IntoIterator<Item = Span>) {
    let mut insert = ch.client().insert::<Span>("spans").await.unwrap();
    for row in rows {
        insert.write(&row).await.unwrap();
    }
    insert.end().await.unwrap();
}

#[tokio::test]
async fn ddl_insert_100k_and_final_select() {
    let db = TestClickHouse::create().await;
    let ch = ClickHouse::connect(&db.settings());
    ch.client().query(CREATE_SPANS).execute().await.unwrap();

    insert(&ch, (0..100_000).map(|i| span(i, 1))).await;
    insert(&ch, (0..10_000).map(|i| span(i, 2))).await;

    let raw: u64 = ch.client().query("SELECT count() FROM spans").fetch_one().await.unwrap();
    assert_eq!(raw, 110_000);
    let deduplicated: u64 = ch.client().query("SELECT count() FROM spans FINAL").fetch_one().await.unwrap();
    assert_eq!(deduplicated, 100_000);

    let newest: Vec<Span> = ch
        .client()
        .query("SELECT ?fields FROM spans FINAL WHERE id IN (?, ?) ORDER BY id")
        .bind("span-000005")
        .bind("span-050000")
        .fetch_all()
        .await
        .unwrap();
    assert_eq!(newest, vec![span(5, 2), span(50_000, 1)]);
}

#[tokio::test]
async fn server_side_parameters_and_per_query_settings() {
    let db = TestClickHouse::create().await;
    let ch = ClickHouse::connect(&db.settings());
    let greeting: String = ch
        .client()
        .query("SELECT concat('hello ', {who:String})")
        .param("who", "loupe")
        .fetch_one()
        .await
        .unwrap();
    assert_eq!(greeting, "hello loupe");
    let block: String = ch
        .client()
        .query("SELECT getSetting('max_block_size')::String")
        .with_setting("max_block_size", "1234")
        .fetch_one()
        .await
        .unwrap();
    assert_eq!(block, "1234");
    // A per-query setting does not leak into the next request on the shared engine session.
    let after: String =
        ch.client().query("SELECT getSetting('max_block_size')::String").fetch_one().await.unwrap();
    assert_ne!(after, "1234");
}

#[tokio::test]
async fn errors_come_back_as_clickhouse_exceptions() {
    let db = TestClickHouse::create().await;
    let ch = ClickHouse::connect(&db.settings());
    let missing =
        ch.client().query("SELECT count() FROM no_such_table").fetch_one::<u64>().await.unwrap_err();
    assert!(missing.to_string().contains("Code: 60"), "{missing}");
    let syntax = ch.client().query("SELEC 1").execute().await.unwrap_err();
    assert!(syntax.to_string().contains("Code: 62"), "{syntax}");
    // A row type that does not match the table is caught by the crate's validation.
    ch.client()
        .query("CREATE TABLE narrow (id UInt8) ENGINE = MergeTree ORDER BY id")
        .execute()
        .await
        .unwrap();
    let mismatch = ch.client().query("SELECT ?fields FROM narrow").fetch_all::<Span>().await.unwrap_err();
    assert!(!mismatch.to_string().is_empty());
}

#[tokio::test]
async fn failed_insert_with_a_large_body_reports_the_server_error() {
    let db = TestClickHouse::create().await;
    let ch = ClickHouse::connect(&db.settings());
    // Without validation the crate skips DESCRIBE and streams straight into the missing table, so
    // the front must drain the ~20 MB body and still answer with the ClickHouse exception.
    let client = ch.client().clone().with_validation(false);
    let mut insert = client.insert::<Span>("no_such_table").await.unwrap();
    let mut failure = None;
    for i in 0..200_000 {
        if let Err(e) = insert.write(&span(i, 1)).await {
            failure = Some(e);
            break;
        }
    }
    let error = match failure {
        Some(e) => e,
        None => insert.end().await.unwrap_err(),
    };
    assert!(error.to_string().contains("Code: 60"), "expected UNKNOWN_TABLE, got {error}");
    // The connection pool is still usable afterwards.
    ch.check().await.unwrap();
}

/// Both time bounds end a statement as "unavailable" (the caller retries): the server's
/// `max_execution_time`, set on every statement, and the client's, for a server that stops answering.
#[tokio::test]
async fn a_statement_past_its_bound_is_unavailable() {
    let db = TestClickHouse::create().await;
    let ch = ClickHouse::connect(&db.settings());
    let endless = ch
        .client()
        .query("SELECT count() FROM numbers(100000000000)")
        .with_setting("max_execution_time", "1");
    let started = std::time::Instant::now();
    let error =
        ch.bounded(storage::clickhouse::Work::Read, "numbers", endless.fetch_one::<u64>()).await.unwrap_err();
    assert!(error.is_unavailable(), "server-side timeout: {error}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "the server stopped it: {:?}",
        started.elapsed()
    );

    let slow = ch.client().query("SELECT sleep(3)").with_setting("max_execution_time", "10");
    let limit = std::time::Duration::from_millis(500);
    let error = ch.bounded_by(limit, "read", "sleep", slow.fetch_one::<u8>()).await.unwrap_err();
    assert!(error.is_unavailable(), "client-side timeout: {error}");
    assert!(error.to_string().contains("timed out after 500 ms"), "{error}");
}
