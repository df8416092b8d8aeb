//! What every ingestion entry point reads off a request before `ingestion::service` takes over:
//! the SDK headers and a bounded body.

use axum::body::Body;
use axum::http::header::CONTENT_ENCODING;
use axum::http::{HeaderMap, StatusCode};
use bytes::Bytes;

use ingestion::accept::Sender;
use ingestion::service::{IngestionService, SdkHeaders};

use crate::auth::ProjectAuth;
use crate::error::ApiError;

/// A header value by its dashed name or the underscore spelling some SDKs send
/// (`x_langfuse_sdk_name`); header names are case-insensitive already.
pub fn header_text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).or_else(|| headers.get(name.replace('-', "_"))).and_then(|v| v.to_str().ok())
}

/// Who sends the request: the authenticated project, and the client its SDK headers name.
pub fn sender(auth: &ProjectAuth, headers: &HeaderMap, scores_only: bool) -> Result<Sender, ApiError> {
    let sdk = SdkHeaders {
        name: header_text(headers, "x-langfuse-sdk-name"),
        version: header_text(headers, "x-langfuse-sdk-version"),
        ingestion_version: header_text(headers, "x-langfuse-ingestion-version"),
    };
    Ok(IngestionService::sender(&auth.project.id, &auth.public_key, sdk, scores_only)?)
}

/// Reads at most `limit` bytes; a larger body is a 413, whether or not it announced its length.
pub async fn read_body(body: Body, limit: usize) -> Result<Bytes, ApiError> {
    axum::body::to_bytes(body, limit).await.map_err(|e| {
        // axum wraps http-body-util's `LengthLimitError`; its text is the stable signal.
        let mut source: Option<&dyn std::error::Error> = Some(&e);
        let mut too_large = false;
        while let Some(current) = source {
            too_large |= current.to_string().contains("length limit exceeded");
            source = current.source();
        }
        if too_large {
            ApiError::payload_too_large(format!("request body exceeds the {limit} byte limit"))
        } else {
            ApiError::bad_request(format!("failed to read request body: {e}"))
        }
    })
}

/// [`read_body`] for the JSON endpoints, which take no compressed body: one is refused as sent
/// rather than parsed as garbage, or inflated (only the OTLP endpoints decompress, within their cap).
pub async fn read_uncompressed_body(
    headers: &HeaderMap,
    body: Body,
    limit: usize,
) -> Result<Bytes, ApiError> {
    if let Some(encoding) = headers.get(CONTENT_ENCODING) {
        let encoding = String::from_utf8_lossy(encoding.as_bytes());
        if !encoding.trim().eq_ignore_ascii_case("identity") {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "Content-Encoding {encoding:?} is not accepted here: send the JSON body uncompressed \
                     (only /api/public/otel/v1/traces takes gzip)"
                ),
                "UnsupportedMediaTypeError",
            ));
        }
    }
    read_body(body, limit).await
}
