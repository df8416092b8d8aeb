//! What the retention job last did for a project, for its settings page
//! (`GET /api/ui/projects/{projectId}/retention`, session cookie): the last pass over every project,
//! and this project's row per target (docs/retention.md, "Progress"). The same facts as
//! `worker retention-status`, limited to one project; anyone with access to the project reads them.

use axum::Json;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::identity::people;
use storage::retention;

use super::openapi::ErrorBody;
use crate::error::ApiError;
use crate::session::UserSession;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(ui_project_retention))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct RetentionPass {
    started_at: DateTime<Utc>,
    /// Absent while the pass runs (or when its worker died during it).
    finished_at: Option<DateTime<Utc>>,
    /// Units that failed in that pass, over every project.
    failed_units: i32,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct RetentionTarget {
    /// `clickhouse:<table>`, `blobs:<folder>` or `postgres:<table>`.
    target: String,
    last_run_at: DateTime<Utc>,
    last_cutoff: DateTime<Utc>,
    last_removed: i64,
    removed_total: i64,
    partitions_dropped: i64,
    last_error: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct RetentionStatus {
    /// `None` before the first pass of any worker.
    last_pass: Option<RetentionPass>,
    targets: Vec<RetentionTarget>,
}

#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/retention", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path)),
    responses((status = 200, body = RetentionStatus), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn ui_project_retention(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
) -> Result<Json<RetentionStatus>, ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?;
    let last_pass = retention::last_pass(pool).await?.map(|pass| RetentionPass {
        started_at: pass.started_at,
        finished_at: pass.finished_at,
        failed_units: pass.errors,
    });
    let targets = retention::progress_of(pool, &project_id)
        .await?
        .into_iter()
        .map(|p| RetentionTarget {
            target: p.target,
            last_run_at: p.last_run_at,
            last_cutoff: p.last_cutoff,
            last_removed: p.last_removed,
            removed_total: p.removed_total,
            partitions_dropped: p.partitions_dropped,
            last_error: p.last_error,
        })
        .collect();
    Ok(Json(RetentionStatus { last_pass, targets }))
}
