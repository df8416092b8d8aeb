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

/// Retention's walk: objects written before the cutoff go; folders dated after the cutoff's day are
/// not even listed (an old file put there stays); folders not named by date are walked whole.
#[tokio::test]
async fn objects_older_than_a_cutoff_go_and_later_days_are_not_walked() {
    let dir = std::env::temp_dir().join(format!("loupe-blob-age-{}", uuid::Uuid::new_v4().simple()));
    let store = BlobStore::connect(&BlobSettings::LocalDir(dir.clone())).unwrap();
    let keys = [
        "ingestion/p/2026/10/17/07/30/old.json",
        "ingestion/p/2026/11/19/00/10/cutoff-day-old.json",
        "ingestion/p/2026/11/19/23/10/cutoff-day-new.json",
        "ingestion/p/2026/11/25/12/00/later-day.json",
        "ingestion/p/2027/01/01/00/00/later-year.json",
        "ingestion/p/misc/undated.json",
        "ingestion/q/2026/10/17/07/30/other-project.json",
    ];
    for key in keys {
        store.store().put(&Path::from(key), PutPayload::from_static(b"{}")).await.unwrap();
    }
    let days_ago = |days: u64| std::time::SystemTime::now() - std::time::Duration::from_secs(days * 86_400);
    // Every file but the cutoff day's newer one looks old on disk, even those in later folders.
    for key in keys {
        let age = if key.contains("cutoff-day-new") { 0 } else { 40 };
        std::fs::File::options()
            .write(true)
            .open(dir.join(key))
            .unwrap()
            .set_modified(days_ago(age))
            .unwrap();
    }
    let cutoff = chrono::DateTime::parse_from_rfc3339("2026-11-19T12:00:00Z").unwrap().to_utc();
    assert_eq!(store.delete_older_than("ingestion/p", cutoff).await.unwrap(), 3);
    let left: Vec<&str> = keys.into_iter().filter(|key| dir.join(key).exists()).collect();
    assert_eq!(
        left,
        [
            "ingestion/p/2026/11/19/23/10/cutoff-day-new.json",
            "ingestion/p/2026/11/25/12/00/later-day.json",
            "ingestion/p/2027/01/01/00/00/later-year.json",
            "ingestion/q/2026/10/17/07/30/other-project.json",
        ]
    );
    assert_eq!(store.delete_older_than("ingestion/p", cutoff).await.unwrap(), 0, "a repeat finds nothing");
    std::fs::remove_dir_all(&dir).ok();
}
