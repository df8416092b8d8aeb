//! `GET /api/public/projects`: the project of the presented key, as the SDKs' `auth_check()` reads it.

use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;

use crate::auth::ProjectAuth;
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new().route("/api/public/projects", get(list))
}

#[derive(Serialize)]
struct Projects {
    data: Vec<ProjectDto>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProjectDto {
    id: String,
    name: String,
    organization: OrganizationDto,
    metadata: serde_json::Value,
    /// Omitted when unset, as upstream does.
    #[serde(skip_serializing_if = "Option::is_none")]
    retention_days: Option<i32>,
}

#[derive(Serialize)]
struct OrganizationDto {
    id: String,
    name: String,
}

async fn list(ProjectAuth { project, .. }: ProjectAuth) -> Json<Projects> {
    Json(Projects {
        data: vec![ProjectDto {
            id: project.id,
            name: project.name,
            organization: OrganizationDto { id: project.org_id, name: project.org_name },
            metadata: project.metadata.0,
            retention_days: project.retention_days,
        }],
    })
}
