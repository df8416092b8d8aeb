//! Instance-admin endpoints (`Authorization: Bearer <ADMIN_API_KEY>`).

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use migration::backfill::StepProgress;

use crate::auth::AdminAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(background_migrations))
}

#[derive(Serialize, ToSchema)]
struct BackgroundMigrations {
    /// Each step of the v3 → v4 backfill, with its progress.
    #[schema(value_type = Vec<Object>)]
    data: Vec<StepProgress>,
}

#[utoipa::path(
    get, path = "/api/admin/background-migrations", tag = "admin", security(("adminBearer" = [])),
    responses((status = 200, body = BackgroundMigrations), (status = 401, body = super::openapi::ErrorBody))
)]
async fn background_migrations(
    _: AdminAuth,
    State(state): State<AppState>,
) -> Result<Json<BackgroundMigrations>, ApiError> {
    let now = chrono::Utc::now();
    let steps = storage::background_migrations::list(&state.stores.postgres).await?;
    let data = steps.into_iter().map(|step| StepProgress::of(step, now)).collect();
    Ok(Json(BackgroundMigrations { data }))
}
