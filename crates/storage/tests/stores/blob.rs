//! Blob storage against SeaweedFS (S3) and a local directory: the same behaviour from both.

use bytes::Bytes;
use domain::config::{BlobSettings, S3Settings};
use object_store::path::Path;
use object_store::{ObjectStoreExt, PutPayload};
use storage::blob::BlobStore;
use test_support::stack_var;

fn s3(prefix: &str) -> BlobSettings {
    BlobSettings::S3(S3Settings {
        bucket: stack_var("LANGFUSE_S3_EVENT_UPLOAD_BUCKET"),
        region: stack_var("LANGFUSE_S3_EVENT_UPLOAD_REGION"),
        endpoint: Some(stack_var("LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT")),
        access_key_id: Some(stack_var("LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID")),
        secret_access_key: Some(stack_var("LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY").into()),
        force_path_style: true,
        prefix: prefix.to_owned(),
    })
}

async fn round_trip(store: &BlobStore) {
    store.check().await.unwrap();
    let path = Path::from("events/p1/batch.json");
    let body = Bytes::from_static(b"{\"spans\":[1,2,3]}");
    store.store().put(&path, PutPayload::from(body.clone())).await.unwrap();
    let read = store.store().get(&path).await.unwrap().bytes().await.unwrap();
    assert_eq!(read, body);
    store.store().delete(&path).await.unwrap();
    assert!(matches!(store.store().head(&path).await, Err(object_store::Error::NotFound { .. })));
}

#[tokio::test]
async fn s3_round_trip_under_a_prefix() {
    rustls::crypto::ring::default_provider().install_default().ok();
    let prefix = format!("test-{}/", uuid::Uuid::new_v4().simple());
    round_trip(&BlobStore::connect(&s3(&prefix)).unwrap()).await;
}

#[tokio::test]
async fn local_directory_round_trip() {
    let dir = std::env::temp_dir().join(format!("loupe-blob-{}", uuid::Uuid::new_v4().simple()));
    round_trip(&BlobStore::connect(&BlobSettings::LocalDir(dir.clone())).unwrap()).await;
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn wrong_s3_credentials_are_reported_unavailable() {
    rustls::crypto::ring::default_provider().install_default().ok();
    let BlobSettings::S3(mut settings) = s3("") else { unreachable!() };
    settings.secret_access_key = Some("wrong".to_owned().into());
    let error = BlobStore::connect(&BlobSettings::S3(settings)).unwrap().check().await.unwrap_err();
    assert!(error.is_unavailable(), "{error}");
}
