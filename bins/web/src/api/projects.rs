//! `GET /api/public/projects`: the project of the presented key, as the SDKs' `auth_check()` reads it.

use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::ProjectAuth;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list))
}

#[derive(Serialize, ToSchema)]
struct Projects {
    data: Vec<ProjectDto>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ProjectDto {
    id: String,
    name: String,
    organization: OrganizationDto,
    #[schema(value_type = Object)]
    metadata: serde_json::Value,
    /// Omitted when unset, as upstream does.
    #[serde(skip_serializing_if = "Option::is_none")]
    retention_days: Option<i32>,
}

#[derive(Serialize, ToSchema)]
struct OrganizationDto {
    id: String,
    name: String,
}

#[utoipa::path(
    get, path = "/api/public/projects", tag = "projects", security(("basicAuth" = [])),
    responses((status = 200, body = Projects), (status = 401, body = super::openapi::ErrorBody))
)]
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
