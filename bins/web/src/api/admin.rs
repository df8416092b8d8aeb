//! Instance-admin endpoints (`Authorization: Bearer <ADMIN_API_KEY>`).

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;

use storage::background_migrations::BackgroundMigration;

use crate::app::AppState;
use crate::auth::AdminAuth;
use crate::error::ApiError;

pub fn routes() -> Router<AppState> {
    Router::new().route("/api/admin/background-migrations", get(background_migrations))
}

#[derive(Serialize)]
struct BackgroundMigrations {
    data: Vec<BackgroundMigration>,
}

async fn background_migrations(
    _: AdminAuth,
    State(state): State<AppState>,
) -> Result<Json<BackgroundMigrations>, ApiError> {
    let data = storage::background_migrations::list(&state.stores.postgres).await?;
    Ok(Json(BackgroundMigrations { data }))
}
