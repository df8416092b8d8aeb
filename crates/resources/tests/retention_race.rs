//! Retention's partition drop against the real engines, with a write racing it: a project that
//! keeps its data writes a row backdated into a month after the job found only expired projects
//! there and before the drop. The hook runs at that point; every statement is the job's own.
//! Also: a partition a stopped pass left in the holding table is settled by the next pass.

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use domain::config::{BlobSettings, RetentionSettings};
use futures::FutureExt;
use resources::retention::{BeforeMove, Retention};
use storage::blob::BlobStore;
use storage::clickhouse::{ClickHouse, retention as ch};
use test_support::{TestClickHouse, TestPostgres};
use tokio_util::sync::CancellationToken;

/// Keeps 7 days.
const SHORT: &str = "short";
/// Keeps everything.
const KEEPER: &str = "keeper";

async fn insert(clickhouse: &ClickHouse, project: &str, id: &str, at: DateTime<Utc>) {
    clickhouse
        .client()
        .query(
            "INSERT INTO traces (id, timestamp, name, project_id, event_ts, is_deleted) \
             VALUES (?, fromUnixTimestamp64Milli(toInt64(?)), 't', ?, now64(3), 0)",
        )
        .bind(id)
        .bind(at.timestamp_millis())
        .bind(project)
        .execute()
        .await
        .unwrap();
}

async fn traces(clickhouse: &ClickHouse) -> Vec<(String, String)> {
    clickhouse.client().query("SELECT project_id, id FROM traces ORDER BY id").fetch_all().await.unwrap()
}

fn partition_of(at: DateTime<Utc>) -> String {
    at.format("%Y%m").to_string()
}

#[tokio::test]
async fn a_row_written_into_a_month_being_dropped_is_kept() {
    let (pg, chdb) = (TestPostgres::create().await, TestClickHouse::create().await);
    let postgres = pg.pool().await;
    let clickhouse = ClickHouse::connect(&chdb.settings());
    storage::schema::migrate(&postgres, &clickhouse).await.unwrap();
    sqlx::query("INSERT INTO organizations (id, name) VALUES ('o', 'o')").execute(&postgres).await.unwrap();
    for (project, days) in [(SHORT, Some(7)), (KEEPER, None)] {
        sqlx::query("INSERT INTO projects (id, org_id, name, retention_days) VALUES ($1, 'o', $1, $2)")
            .bind(project)
            .bind(days)
            .execute(&postgres)
            .await
            .unwrap();
    }
    let dir = std::env::temp_dir().join(format!("loupe-retention-race-{}", uuid::Uuid::new_v4().simple()));
    let old = Utc::now() - chrono::Duration::days(500);
    insert(&clickhouse, SHORT, "a-expired", old).await;

    // The racing write: the keeper's row, backdated into the month, after the check.
    let racer = clickhouse.clone();
    let raced: BeforeMove = Arc::new(move |table: &'static str, partition: String| {
        let racer = racer.clone();
        async move {
            assert_eq!((table, partition), ("traces", partition_of(old)));
            insert(&racer, KEEPER, "b-raced", old).await;
        }
        .boxed()
    });
    let job = Retention {
        postgres: postgres.clone(),
        clickhouse: clickhouse.clone(),
        blobs: BlobStore::connect(&BlobSettings::LocalDir(dir.clone())).unwrap(),
        settings: RetentionSettings { interval: Duration::from_secs(3600), pause: Duration::ZERO },
        holder: "race".into(),
        before_move: Some(raced),
    };
    let report = job.pass(&CancellationToken::new()).await.unwrap().unwrap();
    assert_eq!(report.errors, 0, "{report:?}");
    assert_eq!(report.partitions_dropped, 1, "{report:?}");
    assert_eq!(traces(&clickhouse).await, [(KEEPER.to_owned(), "b-raced".to_owned())], "the raced row stays");
    assert!(ch::held_partitions(&clickhouse, "traces").await.unwrap().is_empty(), "nothing left held");
    let removed: i64 = sqlx::query_scalar(
        "SELECT last_removed FROM retention_progress WHERE project_id = $1 AND target = 'clickhouse:traces'",
    )
    .bind(SHORT)
    .fetch_one(&postgres)
    .await
    .unwrap();
    assert_eq!(removed, 1, "the expired row counted, the copied-back one not");

    // A pass that stopped after moving a month away (a crash): the next one settles it first.
    let older = Utc::now() - chrono::Duration::days(700);
    insert(&clickhouse, SHORT, "c-expired", older).await;
    insert(&clickhouse, KEEPER, "d-kept", older).await;
    ch::create_holding_table(&clickhouse, "traces").await.unwrap();
    ch::move_to_holding(&clickhouse, "traces", &partition_of(older)).await.unwrap();
    assert_eq!(traces(&clickhouse).await.len(), 1, "the month is held, out of sight");
    let job = Retention { before_move: None, ..job };
    let report = job.pass(&CancellationToken::new()).await.unwrap().unwrap();
    assert_eq!(report.errors, 0, "{report:?}");
    assert_eq!(
        traces(&clickhouse).await,
        [(KEEPER.to_owned(), "b-raced".to_owned()), (KEEPER.to_owned(), "d-kept".to_owned())]
    );
    assert!(ch::held_partitions(&clickhouse, "traces").await.unwrap().is_empty());
    std::fs::remove_dir_all(&dir).ok();
}
