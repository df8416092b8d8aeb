//! What every ingestion entry point shares: reading SDK headers, bounded body reads, decoding off
//! the async threads, and turning acceptance failures into the right status.

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode};
use bytes::Bytes;
use prost::Message;

use domain::sdk::SdkInfo;
use ingestion::accept::{AcceptError, Sender};
use ingestion::otel::{DecodeError, ExportTraceServiceRequest, RejectedSpans};

use crate::app::AppState;
use crate::auth::ProjectAuth;
use crate::error::ApiError;

/// A header value by its dashed name or the underscore spelling some SDKs send
/// (`x_langfuse_sdk_name`); header names are case-insensitive already.
pub fn header_text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).or_else(|| headers.get(name.replace('-', "_"))).and_then(|v| v.to_str().ok())
}

pub fn sender(auth: &ProjectAuth, headers: &HeaderMap) -> Result<Sender, ApiError> {
    scoped_sender(auth, headers, false)
}

pub fn scoped_sender(auth: &ProjectAuth, headers: &HeaderMap, scores_only: bool) -> Result<Sender, ApiError> {
    let sdk = SdkInfo::from_headers(
        header_text(headers, "x-langfuse-sdk-name"),
        header_text(headers, "x-langfuse-sdk-version"),
        header_text(headers, "x-langfuse-ingestion-version"),
    )
    .map_err(|e| ApiError::bad_request(e.to_string()))?;
    Ok(Sender { project_id: auth.project.id.clone(), public_key: auth.public_key.clone(), sdk, scores_only })
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

/// What became of an export's spans.
pub struct Accepted {
    pub spans: usize,
    /// Spans dropped for invalid ids, answered as OTLP partial success.
    pub rejected: Option<RejectedSpans>,
}

/// Decodes an OTLP export, drops spans with invalid ids, stores and queues the rest. An export
/// whose every span is invalid is refused with 400.
pub async fn accept_otlp(
    state: &AppState,
    sender: &Sender,
    body: Bytes,
    content_type: Option<&str>,
    content_encoding: Option<&str>,
) -> Result<Accepted, ApiError> {
    let limit = state.config.ingestion.max_body_bytes;
    let (content_type, content_encoding) =
        (content_type.map(str::to_owned), content_encoding.map(str::to_owned));
    // Decoding a large export is CPU work; keep it off the threads that serve other requests.
    let decoded = tokio::task::spawn_blocking(move || {
        ingestion::otel::parse_owned(body, content_type.as_deref(), content_encoding.as_deref(), limit)
    })
    .await
    .map_err(|e| ApiError::internal(format!("decoder task failed: {e}")))?;
    let (request, protobuf) = decoded.map_err(decode_error)?;
    accept_decoded(state, sender, request, protobuf).await
}

/// The part HTTP and gRPC share once the export is decoded.
pub async fn accept_export(
    state: &AppState,
    sender: &Sender,
    request: ExportTraceServiceRequest,
) -> Result<Accepted, ApiError> {
    accept_decoded(state, sender, request, None).await
}

/// Stores and queues a decoded export. `protobuf` is its encoding as the client sent it, when it
/// sent protobuf; it is stored as is unless spans had to be dropped from the export.
async fn accept_decoded(
    state: &AppState,
    sender: &Sender,
    mut request: ExportTraceServiceRequest,
    protobuf: Option<Bytes>,
) -> Result<Accepted, ApiError> {
    let rejected = ingestion::otel::reject_invalid_spans(&mut request);
    let spans =
        request.resource_spans.iter().flat_map(|r| &r.scope_spans).map(|s| s.spans.len()).sum::<usize>();
    if spans == 0 {
        return match rejected {
            Some(rejected) => Err(ApiError::bad_request(format!(
                "Invalid OTLP trace export: all {} spans rejected; first: {}",
                rejected.count, rejected.first
            ))),
            None => Ok(Accepted { spans, rejected }),
        };
    }
    let protobuf = match (protobuf, &rejected) {
        (Some(as_sent), None) => as_sent,
        _ => Bytes::from(request.encode_to_vec()),
    };
    state.acceptor.accept_otlp(sender, protobuf).await.map_err(accept_error)?;
    Ok(Accepted { spans, rejected })
}

fn decode_error(error: DecodeError) -> ApiError {
    match error {
        DecodeError::UnsupportedContentType(_) | DecodeError::UnsupportedContentEncoding(_) => {
            ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, error.to_string(), "UnsupportedMediaTypeError")
        }
        DecodeError::TooLarge { .. } => ApiError::payload_too_large(error.to_string()),
        _ => ApiError::bad_request(error.to_string()),
    }
}

pub fn accept_error(error: AcceptError) -> ApiError {
    match error {
        AcceptError::Overloaded { .. } => ApiError::overloaded(error.to_string()),
        AcceptError::Storage(e) => {
            tracing::error!(error = %e, "cannot accept payload");
            ApiError::unavailable()
        }
    }
}
