//! The bytes of media through web's own content URLs, for stores that cannot presign: an upload
//! is stored only if it is exactly the announced content, and streamed to the blob store so
//! memory stays bounded whatever the size; a download is streamed back from it.

use std::time::Instant;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use object_store::{ObjectStoreExt, WriteMultipart};
use ring::digest;
use sqlx::PgPool;

use storage::blob::BlobStore;

use super::{UploadOutcome, find, record_upload};
use crate::{Error, Result};

/// How many parts may be in flight to the blob store at once.
const PARTS_IN_FLIGHT: usize = 4;

/// Stores the upload of the media `id` and records it as uploaded. Refused (nothing stored) when
/// the body is longer than announced, or its SHA-256 or length differ from the announcement.
pub async fn store_upload<E>(
    pool: &PgPool,
    blobs: &BlobStore,
    project: &str,
    id: &str,
    chunks: impl Stream<Item = std::result::Result<Bytes, E>>,
) -> Result<()> {
    let stored = find(pool, project, id).await?;
    let started = Instant::now();
    let location = object_store::path::Path::from(stored.blob_key.as_str());
    let upload = blobs.store().put_multipart(&location).await.map_err(unavailable)?;
    let mut writer = WriteMultipart::new(upload);
    let mut hasher = digest::Context::new(&digest::SHA256);
    let mut received: i64 = 0;
    let mut chunks = std::pin::pin!(chunks);
    while let Some(chunk) = chunks.next().await {
        let Ok(chunk) = chunk else {
            let _ = writer.abort().await;
            return Err(Error::bad_request("The upload was interrupted"));
        };
        received += i64::try_from(chunk.len()).unwrap_or(i64::MAX);
        if received > stored.content_length {
            let _ = writer.abort().await;
            return Err(Error::TooLarge(format!(
                "The media was announced as {} bytes",
                stored.content_length
            )));
        }
        hasher.update(&chunk);
        writer.wait_for_capacity(PARTS_IN_FLIGHT).await.map_err(unavailable)?;
        writer.write(&chunk);
    }
    if STANDARD.encode(hasher.finish()) != stored.sha256_hash || received != stored.content_length {
        let _ = writer.abort().await;
        return Err(Error::bad_request("The uploaded bytes do not match the announced SHA-256 and length"));
    }
    writer.finish().await.map_err(unavailable)?;
    let outcome = UploadOutcome {
        uploaded_at: chrono::Utc::now(),
        upload_http_status: 200,
        upload_http_error: None,
        upload_time_ms: Some(i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX)),
    };
    record_upload(pool, project, id, &outcome).await?;
    Ok(())
}

/// The content of an uploaded media, ready to stream.
pub struct Download {
    pub content_type: String,
    pub content_length: i64,
    pub bytes: BoxStream<'static, object_store::Result<Bytes>>,
}

/// The content of the media `id`; 404 until it is uploaded.
pub async fn open_download(pool: &PgPool, blobs: &BlobStore, project: &str, id: &str) -> Result<Download> {
    let stored = find(pool, project, id).await?;
    let location = object_store::path::Path::from(stored.blob_key.as_str());
    let object = match blobs.store().get(&location).await {
        Ok(object) => object,
        Err(object_store::Error::NotFound { .. }) => return Err(Error::not_found("Media not yet uploaded")),
        Err(error) => return Err(unavailable(error)),
    };
    Ok(Download {
        content_type: stored.content_type,
        content_length: stored.content_length,
        bytes: object.into_stream(),
    })
}

fn unavailable(error: object_store::Error) -> Error {
    Error::Storage(storage::Error::new(
        storage::ErrorKind::Unavailable,
        format!("media blob storage: {error}"),
    ))
}
