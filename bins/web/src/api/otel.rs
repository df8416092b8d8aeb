//! `POST /api/public/otel/v1/traces`: OTLP over HTTP, protobuf or JSON, gzip or not.

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::http::header::{CONTENT_ENCODING, CONTENT_TYPE};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::ingest::{self, header_text};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(export))
}

/// OTLP/HTTP's `ExportTraceServiceResponse`: empty, or the spans that were refused.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ExportResponse {
    #[serde(skip_serializing_if = "Option::is_none")]
    partial_success: Option<PartialSuccess>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct PartialSuccess {
    /// An int64, written as a string as OTLP/JSON writes it.
    rejected_spans: String,
    error_message: String,
}

#[utoipa::path(
    post, path = "/api/public/otel/v1/traces", tag = "ingestion", security(("basicAuth" = [])),
    request_body(description = "An OTLP ExportTraceServiceRequest, gzip or not", content((Vec<u8> = "application/x-protobuf"), (Object = "application/json"))),
    responses(
        (status = 200, body = ExportResponse),
        (status = 400, body = super::openapi::ErrorBody), (status = 401, body = super::openapi::ErrorBody),
        (status = 413, body = super::openapi::ErrorBody), (status = 415, body = super::openapi::ErrorBody),
        (status = 503, body = super::openapi::ErrorBody, description = "Backlog full or storage unavailable: retry")
    )
)]
async fn export(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<ExportResponse>, ApiError> {
    let sender = ingest::sender(&auth, &headers, false)?;
    let body = ingest::read_body(body, state.config.ingestion.max_body_bytes).await?;
    let content_type = header_text(&headers, CONTENT_TYPE.as_str());
    let content_encoding = header_text(&headers, CONTENT_ENCODING.as_str());
    let accepted = state.ingestion.otlp(&sender, body, content_type, content_encoding).await?;
    // OTLP/HTTP partial success (int64 as a string, as OTLP/JSON writes it).
    let partial_success = accepted.rejected.map(|rejected| PartialSuccess {
        rejected_spans: rejected.count.to_string(),
        error_message: rejected.first,
    });
    Ok(Json(ExportResponse { partial_success }))
}
