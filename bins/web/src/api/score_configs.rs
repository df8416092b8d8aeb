//! Score configs (`/api/public/score-configs…`): thin handlers over `resources::score_configs`.
//! How scores are checked against their configs at ingestion is in `ingestion::service::scores`.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::Page;
use resources::score_configs::{self, NewScoreConfig, ScoreConfigBody, ScoreConfigPatch};

use super::body::JsonBody;
use super::openapi::ErrorBody;
use super::query::{PageQuery, params};
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list, create)).routes(routes!(fetch, update))
}

#[utoipa::path(
    post, path = "/api/public/score-configs", operation_id = "scoreConfigs_create",
    tag = "score-configs", security(("basicAuth" = [])),
    request_body = NewScoreConfig,
    responses(
        (status = 200, body = ScoreConfigBody), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody)
    )
)]
async fn create(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(new): JsonBody<NewScoreConfig>,
) -> Result<Json<ScoreConfigBody>, ApiError> {
    Ok(Json(score_configs::create(&state.stores.postgres, &auth.project.id, new).await?))
}

#[utoipa::path(
    get, path = "/api/public/score-configs", operation_id = "scoreConfigs_get",
    tag = "score-configs", security(("basicAuth" = [])),
    params(PageQuery),
    responses(
        (status = 200, body = Page<ScoreConfigBody>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody)
    )
)]
async fn list(
    State(state): State<AppState>,
    auth: ProjectAuth,
    RawQuery(query): RawQuery,
) -> Result<Json<Page<ScoreConfigBody>>, ApiError> {
    Ok(Json(score_configs::list(&state.stores.postgres, &auth.project.id, &params(query)).await?))
}

#[utoipa::path(
    get, path = "/api/public/score-configs/{configId}", operation_id = "scoreConfigs_getById",
    tag = "score-configs", security(("basicAuth" = [])),
    params(("configId" = String, Path)),
    responses(
        (status = 200, body = ScoreConfigBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn fetch(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(config_id): Path<String>,
) -> Result<Json<ScoreConfigBody>, ApiError> {
    Ok(Json(score_configs::get(&state.stores.postgres, &auth.project.id, &config_id).await?))
}

#[utoipa::path(
    patch, path = "/api/public/score-configs/{configId}", operation_id = "scoreConfigs_update",
    tag = "score-configs", security(("basicAuth" = [])),
    params(("configId" = String, Path)),
    request_body = ScoreConfigPatch,
    responses(
        (status = 200, body = ScoreConfigBody), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn update(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(config_id): Path<String>,
    JsonBody(patch): JsonBody<ScoreConfigPatch>,
) -> Result<Json<ScoreConfigBody>, ApiError> {
    let pool = &state.stores.postgres;
    Ok(Json(score_configs::update(pool, &auth.project.id, &config_id, patch).await?))
}
