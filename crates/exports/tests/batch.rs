//! Batch exports against the real stack: a filtered Observations view written by the worker's job
//! into the stack's bucket, its progress, and the presigned link that downloads it.

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

mod support;

use std::time::Duration;

use domain::config::{BlobSettings, S3Settings, WriteMode};
use exports::batch::{self, BatchExports};
use exports::model::FileType;
use serde_json::json;
use storage::blob::BlobStore;
use support::{Env, ids, parse};
use test_support::stack_var;

fn blobs() -> BlobStore {
    let var = |name: &str| stack_var(&format!("LANGFUSE_S3_EVENT_UPLOAD_{name}"));
    BlobStore::connect(&BlobSettings::S3(S3Settings {
        bucket: var("BUCKET"),
        region: var("REGION"),
        endpoint: Some(var("ENDPOINT")),
        access_key_id: Some(var("ACCESS_KEY_ID")),
        secret_access_key: Some(var("SECRET_ACCESS_KEY").into()),
        force_path_style: true,
        prefix: String::new(),
    }))
    .unwrap()
}

#[tokio::test]
async fn a_filtered_view_is_exported_with_progress_and_a_download_link() {
    let env = Env::new().await;
    let blobs = blobs();
    let request = |body: serde_json::Value| serde_json::from_value(body).unwrap();
    let filter = json!([{"type": "stringOptions", "column": "name", "operator": "any of", "value": ["event 2", "event 4"]}]);
    let body = json!({"name": "two events", "fileType": "CSV", "compressed": false, "filter": filter, "fields": ["core", "basic"]});

    let refused = batch::create(&env.pool, &env.ch, WriteMode::Legacy, &env.project, request(body.clone()))
        .await
        .unwrap_err();
    assert!(matches!(refused, exports::Error::BadRequest(_)), "{refused}");
    let bad = json!({"fileType": "CSV", "filter": [{"column": "nope", "operator": "=", "value": 1, "type": "number"}]});
    let refused =
        batch::create(&env.pool, &env.ch, WriteMode::Dual, &env.project, request(bad)).await.unwrap_err();
    assert!(matches!(refused, exports::Error::BadRequest(_) | exports::Error::Read(_)), "{refused}");

    let created =
        batch::create(&env.pool, &env.ch, WriteMode::Dual, &env.project, request(body)).await.unwrap();
    assert_eq!((created.status.as_str(), created.url.as_deref()), ("QUEUED", None));
    let job = BatchExports {
        postgres: env.pool.clone(),
        clickhouse: env.ch.clone(),
        blobs: blobs.clone(),
        holder: "w".into(),
        poll: Duration::from_secs(1),
    };
    assert!(job.run_once().await.unwrap());
    assert!(!job.run_once().await.unwrap(), "nothing else queued");
    let done = batch::get(&env.pool, &blobs, &env.project, &created.id).await.unwrap();
    assert_eq!(done.status, "COMPLETED", "{done:?}");
    assert_eq!(done.rows_exported, 2);
    let url = done.url.unwrap();
    let response = reqwest::get(&url).await.unwrap();
    assert_eq!(response.status(), 200, "{url}");
    let rows = parse(FileType::Csv, false, &response.bytes().await.unwrap());
    assert_eq!(ids(&rows, "id"), ["e2", "e4"]);
    assert_eq!(ids(&rows, "name"), ["event 2", "event 4"]);
    assert!(rows[0].contains_key("environment") && !rows[0].contains_key("input"), "core and basic only");

    let other = batch::get(&env.pool, &blobs, "another-project", &created.id).await.unwrap_err();
    assert!(matches!(other, exports::Error::NotFound(_)), "{other}");
    let listed = batch::list(&env.pool, &blobs, &env.project).await.unwrap();
    assert_eq!(listed.data.len(), 1);
}
