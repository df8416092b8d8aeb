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

/// A presigned download is a download: the bucket itself answers `Content-Disposition:
/// attachment`, and a page or SVG as `application/octet-stream`, so no uploaded HTML or SVG is
/// ever rendered from the bucket's origin.
#[tokio::test]
async fn presigned_downloads_are_attachments_and_pages_are_not_served_as_pages() {
    rustls::crypto::ring::default_provider().install_default().ok();
    let prefix = format!("test-{}/", uuid::Uuid::new_v4().simple());
    let store = BlobStore::connect(&s3(&prefix)).unwrap();
    let presigner = store.presigner().expect("static credentials presign");
    let http = reqwest::Client::new();
    for (key, stored_as, announced, served_as) in [
        ("media/p/page.html", "text/html", "text/html", "application/octet-stream"),
        ("media/p/drawing.svg", "image/svg+xml", "image/svg+xml", "application/octet-stream"),
        // Stored under another type than announced: the announced, allow-listed one is served.
        ("media/p/picture.png", "text/html", "image/png", "image/png"),
    ] {
        let body = Bytes::from_static(b"<html><script>alert(1)</script></html>");
        let options = object_store::PutOptions {
            attributes: [(
                object_store::Attribute::ContentType,
                object_store::AttributeValue::from(stored_as),
            )]
            .into_iter()
            .collect(),
            ..Default::default()
        };
        store.store().put_opts(&Path::from(key), PutPayload::from(body.clone()), options).await.unwrap();
        let url =
            presigner.download_url(key, announced, std::time::Duration::from_secs(60), chrono::Utc::now());
        let response = http.get(&url).send().await.unwrap();
        assert_eq!(response.status(), 200, "{key}: {}", response.text().await.unwrap());
        let header = |name: &str| response.headers().get(name).map(|v| v.to_str().unwrap().to_owned());
        assert_eq!(header("content-disposition").as_deref(), Some("attachment"), "{key}");
        assert_eq!(header("content-type").as_deref(), Some(served_as), "{key}");
        assert_eq!(response.bytes().await.unwrap(), body);
        // The overrides are signed: dropping them, or asking for another type, is refused.
        let unsigned = url.replace("response-content-disposition=attachment&", "");
        assert_eq!(http.get(&unsigned).send().await.unwrap().status(), 403, "{key}");
        let inline =
            url.replace("application%2Foctet-stream", "text%2Fhtml").replace("image%2Fpng", "text%2Fhtml");
        assert_eq!(http.get(&inline).send().await.unwrap().status(), 403, "{key}");
        store.store().delete(&Path::from(key)).await.unwrap();
    }
}
