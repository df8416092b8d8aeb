//! `POST /api/public/otel/v1/traces`: OTLP over HTTP, protobuf or JSON, gzip or not.

use axum::Json;
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::http::header::{CONTENT_ENCODING, CONTENT_TYPE};
use axum::routing::post;
use serde_json::{Value, json};

use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::ingest::{self, header_text};
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new().route("/api/public/otel/v1/traces", post(export))
}

async fn export(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    let sender = ingest::sender(&auth, &headers, false)?;
    let body = ingest::read_body(body, state.config.ingestion.max_body_bytes).await?;
    let content_type = header_text(&headers, CONTENT_TYPE.as_str());
    let content_encoding = header_text(&headers, CONTENT_ENCODING.as_str());
    let accepted = state.ingestion.otlp(&sender, body, content_type, content_encoding).await?;
    // OTLP/HTTP partial success (int64 as a string, as OTLP/JSON writes it).
    Ok(Json(match accepted.rejected {
        None => json!({}),
        Some(rejected) => json!({
            "partialSuccess": { "rejectedSpans": rejected.count.to_string(), "errorMessage": rejected.first }
        }),
    }))
}
