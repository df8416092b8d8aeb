//! The legacy write endpoints: `POST /api/public/ingestion` (batches), `/scores`, and the
//! single-object `/traces`, `/spans`, `/generations`, `/events`. Adapters over
//! `ingestion::service`: authenticate, read the body, answer.

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use bytes::Bytes;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use ingestion::accept::Sender;
use ingestion::batch::SingleKind;
use ingestion::service::{BatchAnswer, ScoresAnswer};

use crate::auth::{ProjectAuth, authenticate_project_or_scores};
use crate::error::ApiError;
use crate::ingest;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(batch))
        .routes(routes!(scores))
        .routes(routes!(create_trace))
        .routes(routes!(create_span))
        .routes(routes!(create_generation))
        .routes(routes!(create_event))
}

use super::openapi::ErrorBody;

/// Authentication (full key, or public key for scores), SDK headers and the bounded body of the
/// endpoints that accept scores from the browser SDK.
async fn scores_or_project_request(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> Result<(Sender, Bytes), ApiError> {
    let (auth, scores_only) = authenticate_project_or_scores(state, headers).await?;
    let sender = ingest::sender(&auth, headers, scores_only)?;
    let body = ingest::read_uncompressed_body(headers, body, state.config.ingestion.max_body_bytes).await?;
    Ok((sender, body))
}

#[utoipa::path(
    post, path = "/api/public/ingestion", tag = "ingestion", security(("basicAuth" = [])),
    request_body(content = Object, description = "`{\"batch\": [ingestion events], \"metadata\"?: {}}`"),
    responses(
        (status = 207, body = BatchAnswer, description = "One entry per event: successes and errors"),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 413, body = ErrorBody),
        (status = 415, body = ErrorBody, description = "A compressed body (Content-Encoding other than identity)"),
        (status = 503, body = ErrorBody)
    )
)]
async fn batch(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body,
) -> Result<(StatusCode, Json<BatchAnswer>), ApiError> {
    let (sender, body) = scores_or_project_request(&state, &headers, body).await?;
    Ok((StatusCode::MULTI_STATUS, Json(state.ingestion.batch(&sender, body).await?)))
}

/// The answer to `POST /scores`: the id of one score, or a message for an array.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
enum ScoresBody {
    One { id: String },
    Many { message: &'static str },
}

#[utoipa::path(
    post, path = "/api/public/scores", tag = "scores", security(("basicAuth" = [])),
    request_body(content = Object, description = "A score, or an array of scores"),
    responses(
        (status = 200, body = ScoresBody, description = "One score: its id"),
        (status = 202, body = ScoresBody, description = "An array: accepted"),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody, description = "A score names a config the project does not have"),
        (status = 503, body = ErrorBody)
    )
)]
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
#[derive(Serialize, ToSchema)]
struct Created {
    id: String,
}

/// One single-object endpoint: `$name` answers with the id of what it stored.
macro_rules! single_object_endpoint {
    ($name:ident, $path:literal, $kind:expr) => {
        #[utoipa::path(
            post, path = $path, tag = "ingestion", security(("basicAuth" = [])),
            request_body(content = Object),
            responses(
                (status = 200, body = Created), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
                (status = 404, body = ErrorBody, description = "Not served in the events_only write mode"),
                (status = 503, body = ErrorBody)
            )
        )]
        async fn $name(
            state: State<AppState>,
            auth: ProjectAuth,
            headers: HeaderMap,
            body: Body,
        ) -> Result<Json<Created>, ApiError> {
            single(state, auth, headers, body, $kind).await
        }
    };
}

single_object_endpoint!(create_trace, "/api/public/traces", SingleKind::Trace);
single_object_endpoint!(create_span, "/api/public/spans", SingleKind::Span);
single_object_endpoint!(create_generation, "/api/public/generations", SingleKind::Generation);
single_object_endpoint!(create_event, "/api/public/events", SingleKind::Event);

async fn single(
    State(state): State<AppState>,
    auth: ProjectAuth,
    headers: HeaderMap,
    body: Body,
    kind: SingleKind,
) -> Result<Json<Created>, ApiError> {
    let sender = ingest::sender(&auth, &headers, false)?;
    let body = ingest::read_uncompressed_body(&headers, body, state.config.ingestion.max_body_bytes).await?;
    Ok(Json(Created { id: state.ingestion.single(&sender, kind, body).await? }))
}
