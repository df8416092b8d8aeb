//! `/api/public/media`: thin handlers over `resources::media`, plus web's own upload and download
//! endpoints for stores that cannot presign (`/api/public/media/{mediaId}/content`, authorised by
//! the signed token in the URL instead of an API key, as a presigned S3 URL would be).

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::Message;
use resources::media::{self, Access, Media, MediaUploadUrl, NewMedia, UploadOutcome, Urls};

use super::body::JsonBody;
use super::openapi::ErrorBody;
use super::query::params;
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::ingest::header_text;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create))
        .routes(routes!(fetch, record_upload))
        .routes(routes!(download, upload))
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

/// How media URLs are made for the caller of this request.
pub(super) fn urls<'a>(state: &'a AppState, headers: &HeaderMap) -> Urls<'a> {
    Urls {
        presigner: state.stores.blobs.presigner(),
        tokens: &state.media_tokens,
        public_base: public_base(headers),
        expiry: state.config.media.url_expiry,
        now: chrono::Utc::now(),
    }
}

#[utoipa::path(
    post, path = "/api/public/media", operation_id = "media_getUploadUrl",
    tag = "media", security(("basicAuth" = [])), request_body = NewMedia,
    responses(
        (status = 201, body = MediaUploadUrl), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody)
    )
)]
async fn create(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    JsonBody(new): JsonBody<NewMedia>,
) -> Result<(StatusCode, Json<MediaUploadUrl>), ApiError> {
    let urls = urls(&state, &headers);
    let max = state.config.media.max_content_length;
    let created = media::create(&state.stores.postgres, &auth.project.id, new, &urls, max).await?;
    Ok((StatusCode::CREATED, Json(created)))
}

#[utoipa::path(
    get, path = "/api/public/media/{mediaId}", operation_id = "media_get",
    tag = "media", security(("basicAuth" = [])),
    params(("mediaId" = String, Path)),
    responses(
        (status = 200, body = Media), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "Unknown, not yet uploaded, or the upload failed")
    )
)]
async fn fetch(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<Media>, ApiError> {
    let urls = urls(&state, &headers);
    Ok(Json(media::get(&state.stores.postgres, &auth.project.id, &id, &urls).await?))
}

#[utoipa::path(
    patch, path = "/api/public/media/{mediaId}", operation_id = "media_patch",
    tag = "media", security(("basicAuth" = [])),
    params(("mediaId" = String, Path)), request_body = UploadOutcome,
    responses(
        (status = 200, body = Message), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn record_upload(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
    JsonBody(outcome): JsonBody<UploadOutcome>,
) -> Result<Json<Message>, ApiError> {
    Ok(Json(media::record_upload(&state.stores.postgres, &auth.project.id, &id, &outcome).await?))
}

/// The upload URL `POST /media` hands out when the blob store cannot presign; the URL is the
/// credential.
#[utoipa::path(
    put, path = "/api/public/media/{mediaId}/content", operation_id = "media_uploadContent",
    tag = "media",
    params(
        ("mediaId" = String, Path), ("project" = String, Query), ("expires" = i64, Query),
        ("token" = String, Query, description = "Signed by the server for this media, project and expiry"),
    ),
    request_body(content = Vec<u8>, content_type = "application/octet-stream"),
    responses(
        (status = 200, description = "Stored"),
        (status = 400, body = ErrorBody, description = "Not the announced SHA-256 and length"),
        (status = 403, body = ErrorBody), (status = 413, body = ErrorBody), (status = 503, body = ErrorBody)
    )
)]
async fn upload(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
    body: Body,
) -> Result<StatusCode, ApiError> {
    let now = chrono::Utc::now().timestamp();
    let project = state.media_tokens.authorise(Access::Upload, &id, &params(query), now)?;
    let (pool, blobs) = (&state.stores.postgres, &state.stores.blobs);
    media::store_upload(pool, blobs, &project, &id, body.into_data_stream()).await?;
    Ok(StatusCode::OK)
}

/// The download URL media answers carry when the blob store cannot presign.
#[utoipa::path(
    get, path = "/api/public/media/{mediaId}/content", operation_id = "media_downloadContent",
    tag = "media",
    params(
        ("mediaId" = String, Path), ("project" = String, Query), ("expires" = i64, Query),
        ("token" = String, Query)
    ),
    responses(
        (status = 200, description = "The content, with its content type"), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 503, body = ErrorBody)
    )
)]
async fn download(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let now = chrono::Utc::now().timestamp();
    let project = state.media_tokens.authorise(Access::Download, &id, &params(query), now)?;
    let content = media::open_download(&state.stores.postgres, &state.stores.blobs, &project, &id).await?;
    // Media is whatever a client uploaded: always a download, never a page rendered in Loupe's
    // origin (an uploaded HTML or SVG file would otherwise run as script there).
    let headers = [
        (header::CONTENT_TYPE, content.content_type),
        (header::CONTENT_LENGTH, content.content_length.to_string()),
        (header::CONTENT_DISPOSITION, "attachment".to_owned()),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
        (header::CONTENT_SECURITY_POLICY, "sandbox".to_owned()),
    ];
    Ok((headers, Body::from_stream(content.bytes)).into_response())
}
