//! Instance-admin endpoints (`Authorization: Bearer <ADMIN_API_KEY>`).

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;

use migration::backfill::StepProgress;

use crate::auth::AdminAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new().route("/api/admin/background-migrations", get(background_migrations))
}

#[derive(Serialize)]
struct BackgroundMigrations {
    data: Vec<StepProgress>,
}

async fn background_migrations(
    _: AdminAuth,
    State(state): State<AppState>,
) -> Result<Json<BackgroundMigrations>, ApiError> {
    let now = chrono::Utc::now();
    let steps = storage::background_migrations::list(&state.stores.postgres).await?;
    let data = steps.into_iter().map(|step| StepProgress::of(step, now)).collect();
    Ok(Json(BackgroundMigrations { data }))
}
