//! `GET /api/public/health` and `/api/public/ready`: unauthenticated, for load balancers.

use axum::Json;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(health)).routes(routes!(ready))
}

const VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
struct HealthParams {
    /// Answer 503 when PostgreSQL cannot be reached.
    #[serde(default)]
    fail_if_database_unavailable: bool,
}

#[derive(Serialize, ToSchema)]
struct Health {
    /// `OK`, or what is unavailable.
    status: &'static str,
    version: &'static str,
}

#[utoipa::path(
    get, path = "/api/public/health", tag = "health", params(HealthParams),
    responses((status = 200, body = Health), (status = 503, body = Health, description = "The database is unavailable"))
)]
async fn health(
    State(state): State<AppState>,
    Query(params): Query<HealthParams>,
) -> (StatusCode, Json<Health>) {
    if params.fail_if_database_unavailable
        && let Err(error) = storage::postgres::check(&state.stores.postgres).await
    {
        tracing::warn!(%error, "health check: database unavailable");
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(Health { status: "Database not available", version: VERSION }),
        );
    }
    (StatusCode::OK, Json(Health { status: "OK", version: VERSION }))
}

#[utoipa::path(get, path = "/api/public/ready", tag = "health", responses((status = 200, body = Health)))]
async fn ready() -> Json<Health> {
    Json(Health { status: "OK", version: VERSION })
}
