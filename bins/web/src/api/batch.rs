//! The legacy write endpoints: `POST /api/public/ingestion` (batches), `/scores`, and the
//! single-object `/traces`, `/spans`, `/generations`, `/events`. Adapters over
//! `ingestion::service`: authenticate, read the body, answer.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::{Json, Router};
use bytes::Bytes;
use serde::Serialize;

use ingestion::accept::Sender;
use ingestion::batch::SingleKind;
use ingestion::service::{BatchAnswer, ScoresAnswer};

use crate::auth::{ProjectAuth, authenticate_project_or_scores};
use crate::error::ApiError;
use crate::ingest;
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/public/ingestion", post(batch))
        .route("/api/public/scores", post(scores))
        .route("/api/public/traces", post(|s, a, h, b| single(s, a, h, b, SingleKind::Trace)))
        .route("/api/public/spans", post(|s, a, h, b| single(s, a, h, b, SingleKind::Span)))
        .route("/api/public/generations", post(|s, a, h, b| single(s, a, h, b, SingleKind::Generation)))
        .route("/api/public/events", post(|s, a, h, b| single(s, a, h, b, SingleKind::Event)))
}

/// Authentication (full key, or public key for scores), SDK headers and the bounded body of the
/// endpoints that accept scores from the browser SDK.
async fn scores_or_project_request(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> Result<(Sender, Bytes), ApiError> {
    let (auth, scores_only) = authenticate_project_or_scores(state, headers).await?;
    let sender = ingest::sender(&auth, headers, scores_only)?;
    let body = ingest::read_body(body, state.config.ingestion.max_body_bytes).await?;
    Ok((sender, body))
}

async fn batch(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body,
) -> Result<(StatusCode, Json<BatchAnswer>), ApiError> {
    let (sender, body) = scores_or_project_request(&state, &headers, body).await?;
    Ok((StatusCode::MULTI_STATUS, Json(state.ingestion.batch(&sender, body).await?)))
}

/// The answer to `POST /scores`: the id of one score, or a message for an array.
#[derive(Serialize)]
#[serde(untagged)]
enum ScoresBody {
    One { id: String },
    Many { message: &'static str },
}

async fn scores(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body,
) -> Result<(StatusCode, Json<ScoresBody>), ApiError> {
    let (sender, body) = scores_or_project_request(&state, &headers, body).await?;
    Ok(match state.ingestion.scores(&sender, body).await? {
        ScoresAnswer::One { id } => (StatusCode::OK, Json(ScoresBody::One { id })),
        ScoresAnswer::Many => (StatusCode::ACCEPTED, Json(ScoresBody::Many { message: "Accepted" })),
    })
}

/// The answer to a single-object POST.
#[derive(Serialize)]
struct Created {
    id: String,
}

async fn single(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    body: Body,
    kind: SingleKind,
) -> Result<Json<Created>, ApiError> {
    let sender = ingest::sender(&auth, &headers, false)?;
    let body = ingest::read_body(body, state.config.ingestion.max_body_bytes).await?;
    Ok(Json(Created { id: state.ingestion.single(&sender, kind, body).await? }))
}
