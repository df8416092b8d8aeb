//! `/api/public/projects`: `GET` answers the project of the presented project key, as the SDKs'
//! `auth_check()` reads it; creating, changing and deleting projects takes an organization key
//! (docs/identity.md).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::identity::bodies::{
    CreateProjectRequest, ProjectBody, ProjectDeletionResponse, Projects, UpdateProjectRequest,
};
use resources::identity::projects;

use super::body::JsonBody;
use super::openapi::ErrorBody;
use crate::auth::{OrganizationAuth, ProjectAuth};
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list, create_project)).routes(routes!(update_project, delete_project))
}

#[utoipa::path(
    get, path = "/api/public/projects", tag = "projects", security(("basicAuth" = [])),
    responses((status = 200, body = Projects), (status = 401, body = ErrorBody))
)]
async fn list(ProjectAuth { project, .. }: ProjectAuth) -> Json<Projects> {
    Json(Projects { data: vec![ProjectBody::from(project)] })
}

/// Creates a project in the key's organization.
#[utoipa::path(
    post, path = "/api/public/projects", tag = "projects", security(("basicAuth" = [])),
    request_body = CreateProjectRequest,
    responses(
        (status = 201, body = ProjectBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 409, body = ErrorBody)
    )
)]
async fn create_project(
    auth: OrganizationAuth,
    State(state): State<AppState>,
    JsonBody(request): JsonBody<CreateProjectRequest>,
) -> Result<(StatusCode, Json<ProjectBody>), ApiError> {
    let project = projects::create(&state.stores.postgres, &auth.acting(), request).await?;
    Ok((StatusCode::CREATED, Json(project)))
}

#[utoipa::path(
    put, path = "/api/public/projects/{projectId}", tag = "projects", security(("basicAuth" = [])),
    params(("projectId" = String, Path)), request_body = UpdateProjectRequest,
    responses(
        (status = 200, body = ProjectBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)
    )
)]
async fn update_project(
    auth: OrganizationAuth,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    JsonBody(request): JsonBody<UpdateProjectRequest>,
) -> Result<Json<ProjectBody>, ApiError> {
    Ok(Json(projects::update(&state.stores.postgres, &auth.acting(), &project_id, request).await?))
}

/// Deletes the project: its keys stop working at once, its data is removed in the background
/// (202, as Langfuse answers).
#[utoipa::path(
    delete, path = "/api/public/projects/{projectId}", tag = "projects", security(("basicAuth" = [])),
    params(("projectId" = String, Path)),
    responses(
        (status = 202, body = ProjectDeletionResponse), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn delete_project(
    auth: OrganizationAuth,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
) -> Result<(StatusCode, Json<ProjectDeletionResponse>), ApiError> {
    let deleted =
        projects::delete(&state.stores.postgres, &state.revocations, &auth.acting(), &project_id).await?;
    Ok((StatusCode::ACCEPTED, Json(deleted)))
}
