//! Instance-admin endpoints (`Authorization: Bearer <ADMIN_API_KEY>`).

use axum::Json;
use axum::extract::{RawQuery, State};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use ingestion::dead_letters::{DeadLetterError, DeadLetterPage, ReplayRequest, ReplayResult};
use migration::backfill::StepProgress;

use crate::auth::AdminAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(background_migrations))
        .routes(routes!(dead_letters))
        .routes(routes!(replay_dead_letters))
}

#[derive(Serialize, ToSchema)]
pub(super) struct BackgroundMigrations {
    /// Each step of the v3 → v4 backfill, with its progress.
    #[schema(value_type = Vec<Object>)]
    data: Vec<StepProgress>,
}

impl BackgroundMigrations {
    /// Every step as it stands now.
    pub(super) async fn load(state: &AppState) -> Result<Self, ApiError> {
        let now = chrono::Utc::now();
        let steps = storage::background_migrations::list(&state.stores.postgres).await?;
        Ok(Self { data: steps.into_iter().map(|step| StepProgress::of(step, now)).collect() })
    }
}

#[utoipa::path(
    get, path = "/api/admin/background-migrations", tag = "admin", security(("adminBearer" = [])),
    responses((status = 200, body = BackgroundMigrations), (status = 401, body = super::openapi::ErrorBody))
)]
async fn background_migrations(
    _: AdminAuth,
    State(state): State<AppState>,
) -> Result<Json<BackgroundMigrations>, ApiError> {
    Ok(Json(BackgroundMigrations::load(&state).await?))
}

#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // documents the query `Params` reads; never built
struct DeadLetterQuery {
    /// Only this project's dead letters.
    #[param(rename = "projectId")]
    project_id: Option<String>,
    /// Also those already replayed (default `false`).
    #[param(rename = "includeReplayed")]
    include_replayed: Option<bool>,
    /// 1-based; 1 by default.
    page: Option<i64>,
    /// 1 to 100; 50 by default.
    limit: Option<i64>,
}

/// Payloads the worker could not store, newest first (docs/operations.md, "Dead letters").
#[utoipa::path(
    get, path = "/api/admin/ingestion/dead-letters", tag = "admin", security(("adminBearer" = [])),
    params(DeadLetterQuery),
    responses(
        (status = 200, body = DeadLetterPage),
        (status = 400, body = super::openapi::ErrorBody),
        (status = 401, body = super::openapi::ErrorBody)
    )
)]
async fn dead_letters(
    _: AdminAuth,
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> Result<Json<DeadLetterPage>, ApiError> {
    let params = super::query::params(query);
    let page = params.int("page", 1, 1, i64::MAX)?;
    let limit = params.int("limit", 50, 1, ingestion::dead_letters::MAX_PAGE_SIZE)?;
    let include_replayed = params.bool("includeReplayed")?.unwrap_or(false);
    let project_id = params.string("projectId");
    let page =
        ingestion::dead_letters::list(&state.stores.postgres, project_id, include_replayed, page, limit)
            .await
            .map_err(dead_letter_error)?;
    Ok(Json(page))
}

/// Queues dead letters' payloads again — the ones named, or the oldest open ones (of a project).
#[utoipa::path(
    post, path = "/api/admin/ingestion/dead-letters/replay", tag = "admin", security(("adminBearer" = [])),
    request_body = ReplayRequest,
    responses(
        (status = 200, body = ReplayResult),
        (status = 400, body = super::openapi::ErrorBody),
        (status = 401, body = super::openapi::ErrorBody)
    )
)]
async fn replay_dead_letters(
    _: AdminAuth,
    State(state): State<AppState>,
    super::body::JsonBody(request): super::body::JsonBody<ReplayRequest>,
) -> Result<Json<ReplayResult>, ApiError> {
    let queue = state.stores.ingestion_queue();
    let result = ingestion::dead_letters::replay(&state.stores.postgres, &queue, request)
        .await
        .map_err(dead_letter_error)?;
    Ok(Json(result))
}

fn dead_letter_error(error: DeadLetterError) -> ApiError {
    match error {
        DeadLetterError::BadRequest(message) => ApiError::bad_request(message),
        DeadLetterError::Storage(error) => error.into(),
    }
}
