//! Deleting a project through the organization-key route: its PostgreSQL rows and keys go at once,
//! its ClickHouse rows and blobs by the worker's background job, with progress, idempotently; the
//! other projects' data stays.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use sqlx::PgPool;

use crate::api::{Api, basic};

const ADMIN: &str = "Bearer admin-blackbox-key";

async fn rows(api: &Api, table: &str, project_id: &str) -> u64 {
    let sql = format!("SELECT count() FROM {table} WHERE project_id = ?");
    api.stack.ch.client().query(&sql).bind(project_id).fetch_one().await.unwrap()
}

fn batch(trace_id: &str) -> Value {
    json!({"batch": [
        {"id": format!("e-{trace_id}"), "type": "trace-create", "timestamp": "2026-01-01T00:00:00Z",
         "body": {"id": trace_id, "name": "to-delete", "timestamp": "2026-01-01T00:00:00Z"}},
        {"id": format!("s-{trace_id}"), "type": "score-create", "timestamp": "2026-01-01T00:00:00Z",
         "body": {"id": format!("score-{trace_id}"), "traceId": trace_id, "name": "q", "value": 1}}
    ]})
}

/// status, steps done, steps in all, blobs deleted, attempts, last error
type DeletionRow = (String, Vec<String>, i32, i64, i32, Option<String>);

/// Waits, with a deadline, until the project's deletion is `status`; returns its row.
async fn deletion(pool: &PgPool, project_id: &str, status: &str) -> (Vec<String>, i32, i64, i32) {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let row: Option<DeletionRow> = sqlx::query_as(
            "SELECT status, steps_done, steps_total, blobs_deleted, attempts, last_error \
             FROM project_deletions WHERE project_id = $1",
        )
        .bind(project_id)
        .fetch_optional(pool)
        .await
        .unwrap();
        if let Some((now, steps, total, blobs, attempts, _)) = &row
            && now == status
        {
            return (steps.clone(), *total, *blobs, *attempts);
        }
        assert!(Instant::now() < deadline, "the deletion never became {status}: {row:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_deleted_projects_data_goes_everywhere_and_the_rest_stays() {
    // dual: the legacy batch writes the v3 tables and stages events, so both models hold rows.
    // Every payload is kept as a blob, so the deletion has blobs to remove.
    let api = Api::start(&[
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual"),
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
        ("LANGFUSE_INGESTION_QUEUE_INLINE_MAX_BYTES", "0"),
    ])
    .await;
    let _worker = api.worker().await;
    let (status, key) =
        api.send_as(ADMIN, Method::POST, "/api/admin/organizations/org-blackbox/apiKeys", None).await;
    assert_eq!(status, 201, "{key}");
    let org = basic(key["publicKey"].as_str().unwrap(), key["secretKey"].as_str().unwrap());
    let (status, project) = api
        .send_as(&org, Method::POST, "/api/public/projects", Some(&json!({"name": "doomed", "retention": 0})))
        .await;
    assert_eq!(status, 201, "{project}");
    let doomed = project["id"].as_str().unwrap().to_owned();
    let (status, key) =
        api.send_as(&org, Method::POST, &format!("/api/public/projects/{doomed}/apiKeys"), None).await;
    assert_eq!(status, 201, "{key}");
    let doomed_key = basic(key["publicKey"].as_str().unwrap(), key["secretKey"].as_str().unwrap());

    let (status, answer) =
        api.send_as(&doomed_key, Method::POST, "/api/public/ingestion", Some(&batch("t-doomed"))).await;
    assert_eq!(status, 207, "{answer}");
    api.expect(207, Method::POST, "/api/public/ingestion", Some(&batch("t-kept"))).await;
    let prompt = json!({"name": "p", "type": "text", "prompt": "hi"});
    let (status, answer) =
        api.send_as(&doomed_key, Method::POST, "/api/public/v2/prompts", Some(&prompt)).await;
    assert_eq!(status, 201, "{answer}");
    let deadline = Instant::now() + Duration::from_secs(60);
    while rows(&api, "traces", &doomed).await == 0
        || rows(&api, "scores", &doomed).await == 0
        || rows(&api, "traces", "project-blackbox").await == 0
    {
        assert!(Instant::now() < deadline, "the doomed project's rows were never written");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    let (status, answer) =
        api.send_as(&org, Method::DELETE, &format!("/api/public/projects/{doomed}"), None).await;
    assert_eq!(status, 202, "{answer}");
    let (status, _) = api.send_as(&doomed_key, Method::GET, "/api/public/projects", None).await;
    assert_eq!(status, 401, "its keys stop working at once");
    let pool = api.stack.pg.pool().await;
    let prompts: i64 = sqlx::query_scalar("SELECT count(*) FROM prompts WHERE project_id = $1")
        .bind(&doomed)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(prompts, 0, "PostgreSQL rows go at once");

    let (steps, total, blobs, _) = deletion(&pool, &doomed, "succeeded").await;
    assert_eq!(usize::try_from(total).unwrap(), steps.len(), "every step done: {steps:?}");
    assert!(blobs >= 1, "the accepted batch's blob is deleted");
    for table in
        ["traces", "scores", "events_full", "events_core", "observations", "observations_batch_staging"]
    {
        assert_eq!(rows(&api, table, &doomed).await, 0, "{table} still holds the project's rows");
    }
    assert_eq!(rows(&api, "traces", "project-blackbox").await, 1, "another project's data stays");
    assert_eq!(rows(&api, "scores", "project-blackbox").await, 1, "another project's data stays");

    // Asked again (a retry, an operator), it runs again and finds nothing left to delete.
    sqlx::query("UPDATE project_deletions SET status = 'pending', steps_done = '{}' WHERE project_id = $1")
        .bind(&doomed)
        .execute(&pool)
        .await
        .unwrap();
    let (_, _, blobs_again, attempts) = deletion(&pool, &doomed, "succeeded").await;
    assert_eq!((blobs_again, attempts >= 2), (blobs, true), "nothing more was found to delete");
}
