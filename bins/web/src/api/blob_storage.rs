//! `/api/public/integrations/blob-storage` (scheduled exports to a customer's bucket) exactly as
//! the Python SDK 5 client calls it, and `/api/public/batch-exports` (one-off exports of a filtered
//! Observations view, with a download link): thin handlers over `exports` (docs/exports.md).
//!
//! The integration routes take an organization API key, as Langfuse's do; a signed-in person
//! reaches the project named by `X-Loupe-Project` with OWNER or ADMIN (`IntegrationsManage`, as
//! Langfuse's `integrations:CRUD`).

use axum::Json;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::StatusCode;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use domain::identity::Action;
use exports::api::{self, Deployment, Scope};
use exports::batch::{self, BatchExportBody, BatchExportsBody, CreateBatchExport};
use exports::model::{DeletionBody, IntegrationBody, IntegrationsBody, StatusBody, UpsertRequest};
use resources::identity::people;

use super::body::JsonBody;
use super::openapi::ErrorBody;
use crate::auth::{OrganizationAuth, PROJECT_HEADER, ProjectAuth};
use crate::error::ApiError;
use crate::session::UserSession;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, upsert))
        .routes(routes!(status, delete))
        .routes(routes!(list_batch, create_batch))
        .routes(routes!(get_batch))
}

impl From<exports::Error> for ApiError {
    fn from(error: exports::Error) -> Self {
        match error {
            exports::Error::BadRequest(message) => ApiError::bad_request(message),
            exports::Error::NotFound(message) => ApiError::not_found(message),
            exports::Error::Read(error) => error.into(),
            exports::Error::Postgres(error) => storage::Error::from(error).into(),
            exports::Error::Target(message) => ApiError::bad_request(message),
            exports::Error::Internal(message) => ApiError::internal(message),
        }
    }
}

/// Who calls an integration route, as the integrations it reaches.
struct Caller(Scope);

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if parts.headers.contains_key(AUTHORIZATION) || !parts.headers.contains_key(PROJECT_HEADER) {
            let auth = OrganizationAuth::from_request_parts(parts, state).await?;
            return Ok(Caller(Scope { org_id: auth.org_id, project_id: None }));
        }
        let session = UserSession::from_request_parts(parts, state).await?;
        let project_id = parts.headers.get(PROJECT_HEADER).and_then(|v| v.to_str().ok()).unwrap_or_default();
        let (acting, project) =
            people::with_project(&state.stores.postgres, &session.user.id, project_id).await?;
        acting.require(Action::IntegrationsManage)?;
        Ok(Caller(Scope { org_id: project.org_id, project_id: Some(project.id) }))
    }
}

#[utoipa::path(
    get, path = "/api/public/integrations/blob-storage", operation_id = "blobStorageIntegrations_getBlobStorageIntegrations",
    tag = "blob-storage-integrations", security(("basicAuth" = [])),
    responses(
        (status = 200, body = IntegrationsBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)
    )
)]
async fn list(
    State(state): State<AppState>,
    Caller(scope): Caller,
) -> Result<Json<IntegrationsBody>, ApiError> {
    Ok(Json(api::list(&state.stores.postgres, &scope).await?))
}

/// Creates or replaces a project's integration. The bucket is checked by writing a small object
/// under the prefix; a source the write mode cannot serve is refused.
#[utoipa::path(
    put, path = "/api/public/integrations/blob-storage", operation_id = "blobStorageIntegrations_upsertBlobStorageIntegration",
    tag = "blob-storage-integrations", security(("basicAuth" = [])),
    request_body = UpsertRequest,
    responses(
        (status = 200, body = IntegrationBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn upsert(
    State(state): State<AppState>,
    Caller(scope): Caller,
    JsonBody(request): JsonBody<UpsertRequest>,
) -> Result<Json<IntegrationBody>, ApiError> {
    let deployment = Deployment {
        encryption_key: state.config.auth.encryption_key.as_ref(),
        write_mode: state.config.migration.write_mode,
        policy: &state.config.auth.outbound,
    };
    Ok(Json(api::upsert(&state.stores.postgres, &deployment, &scope, request).await?))
}

/// The sync status; `id` is the project's id.
#[utoipa::path(
    get, path = "/api/public/integrations/blob-storage/{id}", operation_id = "blobStorageIntegrations_getBlobStorageIntegrationStatus",
    tag = "blob-storage-integrations", security(("basicAuth" = [])),
    params(("id" = String, Path)),
    responses(
        (status = 200, body = StatusBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn status(
    State(state): State<AppState>,
    Caller(scope): Caller,
    Path(id): Path<String>,
) -> Result<Json<StatusBody>, ApiError> {
    Ok(Json(api::status(&state.stores.postgres, &scope, &id).await?))
}

#[utoipa::path(
    delete, path = "/api/public/integrations/blob-storage/{id}", operation_id = "blobStorageIntegrations_deleteBlobStorageIntegration",
    tag = "blob-storage-integrations", security(("basicAuth" = [])),
    params(("id" = String, Path)),
    responses(
        (status = 200, body = DeletionBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn delete(
    State(state): State<AppState>,
    Caller(scope): Caller,
    Path(id): Path<String>,
) -> Result<Json<DeletionBody>, ApiError> {
    Ok(Json(api::delete(&state.stores.postgres, &scope, &id).await?))
}

/// Queues a one-off export of the project's observations matching an Observations view (its
/// `filter` JSON, search, field groups and time range). The worker writes it; poll
/// `GET /api/public/batch-exports/{id}` for `rowsExported` and, once `COMPLETED`, the `url`.
#[utoipa::path(
    post, path = "/api/public/batch-exports", operation_id = "batchExports_create",
    tag = "batch-exports", security(("basicAuth" = [])),
    request_body = CreateBatchExport,
    responses(
        (status = 201, body = BatchExportBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)
    )
)]
async fn create_batch(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(request): JsonBody<CreateBatchExport>,
) -> Result<(StatusCode, Json<BatchExportBody>), ApiError> {
    let mode = state.config.migration.write_mode;
    let created =
        batch::create(&state.stores.postgres, &state.stores.clickhouse, mode, &auth.project.id, request)
            .await?;
    Ok((StatusCode::CREATED, Json(created)))
}

#[utoipa::path(
    get, path = "/api/public/batch-exports", operation_id = "batchExports_list",
    tag = "batch-exports", security(("basicAuth" = [])),
    responses((status = 200, body = BatchExportsBody), (status = 401, body = ErrorBody))
)]
async fn list_batch(
    State(state): State<AppState>,
    auth: ProjectAuth,
) -> Result<Json<BatchExportsBody>, ApiError> {
    Ok(Json(batch::list(&state.stores.postgres, &state.stores.blobs, &auth.project.id).await?))
}

#[utoipa::path(
    get, path = "/api/public/batch-exports/{id}", operation_id = "batchExports_get",
    tag = "batch-exports", security(("basicAuth" = [])),
    params(("id" = String, Path)),
    responses(
        (status = 200, body = BatchExportBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn get_batch(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
) -> Result<Json<BatchExportBody>, ApiError> {
    Ok(Json(batch::get(&state.stores.postgres, &state.stores.blobs, &auth.project.id, &id).await?))
}
