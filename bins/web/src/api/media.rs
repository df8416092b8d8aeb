//! `/api/public/media`: thin handlers over `resources::media`, plus web's own upload and download
//! endpoints for stores that cannot presign (`/api/public/media/{id}/content`, authorised by the
//! signed token in the URL instead of an API key, as a presigned S3 URL would be).

use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use futures::StreamExt;
use object_store::{ObjectStoreExt, WriteMultipart};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use resources::media::{self, Access, NewMedia, UploadOutcome, Urls};

use super::body::JsonBody;
use super::query::params;
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::ingest::header_text;
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/public/media", axum::routing::post(create))
        .route("/api/public/media/{id}", get(fetch).patch(record_upload))
        .route("/api/public/media/{id}/content", get(download).put(upload))
}

/// Where the SDK reached this web, for URLs that point back at it.
fn public_base(headers: &HeaderMap) -> String {
    let scheme = header_text(headers, "x-forwarded-proto").unwrap_or("http");
    let host = header_text(headers, "x-forwarded-host")
        .or_else(|| header_text(headers, "host"))
        .unwrap_or("localhost");
    format!("{scheme}://{host}")
}

/// Sets `mediaReferences` on each object (see `resources::media::attach`), with download URLs for
/// the caller of this request.
pub(super) async fn attach_references<T: reads::render::MediaFields + ?Sized>(
    state: &AppState,
    headers: &HeaderMap,
    project: &str,
    objects: Vec<&mut T>,
    fields: &[&'static str],
) -> Result<(), ApiError> {
    let urls = urls(state, headers);
    media::attach(&state.stores.postgres, project, objects, fields, &urls).await?;
    Ok(())
}

pub(super) fn urls<'a>(state: &'a AppState, headers: &HeaderMap) -> Urls<'a> {
    Urls {
        presigner: state.stores.blobs.presigner(),
        tokens: &state.media_tokens,
        public_base: public_base(headers),
        expiry: state.config.media.url_expiry,
        now: chrono::Utc::now(),
    }
}

async fn create(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    JsonBody(new): JsonBody<NewMedia>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let urls = urls(&state, &headers);
    let max = state.config.media.max_content_length;
    let created = media::create(&state.stores.postgres, &auth.project.id, new, &urls, max).await?;
    Ok((StatusCode::CREATED, Json(created)))
}

async fn fetch(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let urls = urls(&state, &headers);
    Ok(Json(media::get(&state.stores.postgres, &auth.project.id, &id, &urls).await?))
}

async fn record_upload(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
    JsonBody(outcome): JsonBody<UploadOutcome>,
) -> Result<Json<Value>, ApiError> {
    media::record_upload(&state.stores.postgres, &auth.project.id, &id, &outcome).await?;
    Ok(Json(json!({ "message": "OK" })))
}

/// The project a content URL's token opens, after checking the token.
fn authorised(state: &AppState, access: Access, id: &str, query: Option<String>) -> Result<String, ApiError> {
    let params = params(query);
    let project = params.string("project").unwrap_or_default();
    let expires = params.int("expires", 0, 0, i64::MAX)?;
    let token = params.string("token").unwrap_or_default();
    if state.media_tokens.verify(access, &project, id, expires, &token, chrono::Utc::now().timestamp()) {
        Ok(project)
    } else {
        Err(ApiError::forbidden("This media URL is invalid or has expired; ask the API for a new one"))
    }
}

/// Stores the body if it is exactly the announced content, streaming it to the blob store so
/// memory stays bounded whatever the size.
async fn upload(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
    body: Body,
) -> Result<StatusCode, ApiError> {
    let project = authorised(&state, Access::Upload, &id, query)?;
    let stored = media::find(&state.stores.postgres, &project, &id).await?;
    let started = std::time::Instant::now();
    let store = state.stores.blobs.store();
    let location = object_store::path::Path::from(stored.blob_key.as_str());
    let upload = store.put_multipart(&location).await.map_err(blob_error)?;
    let mut writer = WriteMultipart::new(upload);
    let mut hasher = Sha256::new();
    let mut received: i64 = 0;
    let mut chunks = body.into_data_stream();
    while let Some(chunk) = chunks.next().await {
        let Ok(chunk) = chunk else {
            let _ = writer.abort().await;
            return Err(ApiError::bad_request("The upload was interrupted"));
        };
        received += i64::try_from(chunk.len()).unwrap_or(i64::MAX);
        if received > stored.content_length {
            let _ = writer.abort().await;
            return Err(ApiError::payload_too_large(format!(
                "The media was announced as {} bytes",
                stored.content_length
            )));
        }
        hasher.update(&chunk);
        writer.wait_for_capacity(4).await.map_err(blob_error)?;
        writer.write(&chunk);
    }
    if STANDARD.encode(hasher.finalize()) != stored.sha256_hash || received != stored.content_length {
        let _ = writer.abort().await;
        return Err(ApiError::bad_request(
            "The uploaded bytes do not match the announced SHA-256 and length",
        ));
    }
    writer.finish().await.map_err(blob_error)?;
    let outcome = UploadOutcome {
        uploaded_at: chrono::Utc::now(),
        upload_http_status: 200,
        upload_http_error: None,
        upload_time_ms: Some(i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX)),
    };
    media::record_upload(&state.stores.postgres, &project, &id, &outcome).await?;
    Ok(StatusCode::OK)
}

async fn download(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let project = authorised(&state, Access::Download, &id, query)?;
    let stored = media::find(&state.stores.postgres, &project, &id).await?;
    let location = object_store::path::Path::from(stored.blob_key.as_str());
    let object = match state.stores.blobs.store().get(&location).await {
        Ok(object) => object,
        Err(object_store::Error::NotFound { .. }) => {
            return Err(ApiError::not_found("Media not yet uploaded"));
        }
        Err(error) => return Err(blob_error(error)),
    };
    let headers = [
        (header::CONTENT_TYPE, stored.content_type),
        (header::CONTENT_LENGTH, stored.content_length.to_string()),
    ];
    Ok((headers, Body::from_stream(object.into_stream())).into_response())
}

fn blob_error(error: object_store::Error) -> ApiError {
    tracing::warn!(%error, "media blob storage failed");
    ApiError::unavailable()
}
