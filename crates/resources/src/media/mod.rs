//! `/api/public/media` (reference/public-api.md §4.11): announce an upload, record its outcome,
//! read a download URL. The bytes go to the blob store under `media/<project>/`, straight to the
//! bucket through presigned S3 URLs when it can presign, otherwise through web's own token URLs.

mod content;
mod references;
mod tokens;
mod transfer;

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use utoipa::ToSchema;

use storage::presign::Presigner;

pub use content::{CONTENT_TYPES, blob_key, media_id};
pub use references::{
    Found, ITEM_FIELDS, MediaReference, OBSERVATION_FIELDS, ReferencedMedia, attach, find_in, find_in_field,
    references_of,
};
pub use tokens::{Access, TokenSigner};
pub use transfer::{Download, open_download, store_upload};

use crate::timestamp;
use crate::{Error, Message, Result};

/// How URLs to media are made for this deployment.
pub struct Urls<'a> {
    pub presigner: Option<&'a Presigner>,
    pub tokens: &'a TokenSigner,
    /// Where web is reached by the SDK (`http://host:port`), for its own upload/download URLs.
    pub public_base: String,
    pub expiry: Duration,
    pub now: DateTime<Utc>,
}

impl Urls<'_> {
    fn expires_at(&self) -> DateTime<Utc> {
        self.now + chrono::Duration::from_std(self.expiry).unwrap_or_default()
    }

    fn own(&self, access: Access, project: &str, id: &str) -> String {
        let expires = self.expires_at().timestamp();
        let token = self.tokens.sign(access, project, id, expires);
        let project = storage::presign::encode(project, false);
        format!(
            "{}/api/public/media/{id}/content?project={project}&expires={expires}&token={token}",
            self.public_base
        )
    }

    fn upload(&self, stored: &StoredMedia) -> String {
        match self.presigner {
            Some(presigner) => presigner.upload_url(
                &stored.blob_key,
                &stored.content_type,
                &stored.sha256_hash,
                self.expiry,
                self.now,
            ),
            None => self.own(Access::Upload, &stored.project_id, &stored.id),
        }
    }

    fn download(&self, stored: &StoredMedia) -> String {
        match self.presigner {
            Some(presigner) => {
                presigner.download_url(&stored.blob_key, &stored.content_type, self.expiry, self.now)
            }
            None => self.own(Access::Download, &stored.project_id, &stored.id),
        }
    }
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct StoredMedia {
    pub project_id: String,
    pub id: String,
    pub sha256_hash: String,
    pub content_type: String,
    pub content_length: i64,
    pub blob_key: String,
    pub uploaded_at: Option<DateTime<Utc>>,
    pub upload_http_status: Option<i32>,
}

const COLUMNS: &str =
    "project_id, id, sha256_hash, content_type, content_length, blob_key, uploaded_at, upload_http_status";

/// The body of `POST /media` (the SDKs' `GetMediaUploadUrlRequest`): a trace's media (`traceId`,
/// optionally `observationId`) or a dataset item's (`datasetId` and `datasetItemId`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewMedia {
    #[serde(default)]
    pub trace_id: Option<String>,
    #[serde(default)]
    pub observation_id: Option<String>,
    #[serde(default)]
    pub dataset_id: Option<String>,
    #[serde(default)]
    pub dataset_item_id: Option<String>,
    pub content_type: String,
    /// Bytes.
    pub content_length: i64,
    /// Base64 of the content's SHA-256 digest; the media id derives from it.
    pub sha256_hash: String,
    /// `input`, `output` or `metadata` (trace); `input`, `expectedOutput` or `metadata` (item).
    pub field: String,
}

/// The answer to `POST /media` (the SDKs' `GetMediaUploadUrlResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MediaUploadUrl {
    pub media_id: String,
    /// Where to `PUT` the bytes; `null` when identical content is already uploaded.
    pub upload_url: Option<String>,
}

/// The answer to `GET /media/{mediaId}` (the SDKs' `GetMediaResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Media {
    pub media_id: String,
    pub content_type: String,
    pub content_length: i64,
    pub uploaded_at: String,
    /// A download URL, valid until `urlExpiry`.
    pub url: String,
    pub url_expiry: String,
}

/// `POST /media`: the media id, and an upload URL unless identical content is already uploaded.
pub async fn create(
    pool: &PgPool,
    project: &str,
    new: NewMedia,
    urls: &Urls<'_>,
    max_length: u64,
) -> Result<MediaUploadUrl> {
    content::check_content_type(&new.content_type)?;
    if new.content_length <= 0 || u64::try_from(new.content_length).unwrap_or(u64::MAX) > max_length {
        return Err(Error::bad_request(format!(
            "`contentLength` must be between 1 and {max_length} bytes (LANGFUSE_S3_MEDIA_MAX_CONTENT_LENGTH), got {}",
            new.content_length
        )));
    }
    if new.trace_id.is_none() && new.dataset_item_id.is_none() {
        return Err(Error::bad_request("Either `traceId` or `datasetItemId` must be given"));
    }
    if new.field.trim().is_empty() {
        return Err(Error::bad_request("`field` must not be empty"));
    }
    let id = media_id(&new.sha256_hash)?;
    let mut tx = pool.begin().await?;
    // Until the content is uploaded, a new announcement may correct the type and length.
    let sql = format!(
        "INSERT INTO media (project_id, id, sha256_hash, content_type, content_length, blob_key) \
         VALUES ($1, $2, $3, $4, $5, $6) \
         ON CONFLICT (project_id, id) DO UPDATE SET content_type = EXCLUDED.content_type, \
         content_length = EXCLUDED.content_length, blob_key = EXCLUDED.blob_key, updated_at = now() \
         WHERE media.upload_http_status IS DISTINCT FROM 200 \
         RETURNING {COLUMNS}"
    );
    let upserted: Option<StoredMedia> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(&id)
        .bind(&new.sha256_hash)
        .bind(&new.content_type)
        .bind(new.content_length)
        .bind(blob_key(project, &id, &new.content_type))
        .fetch_optional(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO media_links (project_id, media_id, trace_id, observation_id, dataset_id, dataset_item_id, field) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
    )
    .bind(project)
    .bind(&id)
    .bind(new.trace_id.unwrap_or_default())
    .bind(new.observation_id.unwrap_or_default())
    .bind(new.dataset_id.unwrap_or_default())
    .bind(new.dataset_item_id.unwrap_or_default())
    .bind(&new.field)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    // No row back: the conflict row was uploaded already, so there is nothing to upload.
    let upload_url = upserted.map(|stored| urls.upload(&stored));
    Ok(MediaUploadUrl { media_id: id, upload_url })
}

pub async fn find(pool: &PgPool, project: &str, id: &str) -> Result<StoredMedia> {
    let sql = format!("SELECT {COLUMNS} FROM media WHERE project_id = $1 AND id = $2");
    let stored: Option<StoredMedia> =
        sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(id).fetch_optional(pool).await?;
    stored.ok_or_else(|| Error::not_found("Media asset not found"))
}

/// The body of `PATCH /media/{mediaId}` (the SDKs' `PatchMediaBody`): what the upload got back.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UploadOutcome {
    pub uploaded_at: DateTime<Utc>,
    pub upload_http_status: i32,
    #[serde(default)]
    pub upload_http_error: Option<String>,
    #[serde(default)]
    pub upload_time_ms: Option<i64>,
}

/// `PATCH /media/{mediaId}`: records the outcome of an upload.
pub async fn record_upload(
    pool: &PgPool,
    project: &str,
    id: &str,
    outcome: &UploadOutcome,
) -> Result<Message> {
    let updated = sqlx::query(
        "UPDATE media SET uploaded_at = $3, upload_http_status = $4, upload_http_error = $5, upload_time_ms = $6, \
         updated_at = now() WHERE project_id = $1 AND id = $2",
    )
    .bind(project)
    .bind(id)
    .bind(outcome.uploaded_at)
    .bind(outcome.upload_http_status)
    .bind(outcome.upload_http_error.as_deref().filter(|e| !e.is_empty()))
    .bind(outcome.upload_time_ms)
    .execute(pool)
    .await?
    .rows_affected();
    if updated == 0 {
        return Err(Error::not_found("Media asset not found"));
    }
    Ok(Message { message: "OK" })
}

/// `GET /media/{id}`: a download URL, once the upload succeeded.
pub async fn get(pool: &PgPool, project: &str, id: &str, urls: &Urls<'_>) -> Result<Media> {
    let stored = find(pool, project, id).await?;
    match (stored.upload_http_status, stored.uploaded_at) {
        (Some(200), Some(uploaded_at)) => Ok(Media {
            url: urls.download(&stored),
            url_expiry: timestamp(&urls.expires_at()),
            uploaded_at: timestamp(&uploaded_at),
            media_id: stored.id,
            content_type: stored.content_type,
            content_length: stored.content_length,
        }),
        (None, _) | (_, None) => Err(Error::not_found("Media not yet uploaded")),
        (Some(status), _) => Err(Error::not_found(format!("Media upload failed with status {status}"))),
    }
}
