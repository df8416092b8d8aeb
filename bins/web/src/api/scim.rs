//! SCIM 2.0 user provisioning (`/api/public/scim/...`, organization key), shaped as
//! `langfuse.api.scim`. Errors carry the SCIM error schema beside the usual `message`/`error`.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::identity::scim::{self, CreateScimUser, ScimUser, ScimUsersListResponse};

use super::body::JsonBody;
use super::openapi::ErrorBody;
use crate::auth::OrganizationAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(service_provider_config))
        .routes(routes!(resource_types))
        .routes(routes!(schemas))
        .routes(routes!(list_scim_users, create_scim_user))
        .routes(routes!(get_scim_user, delete_scim_user))
}

/// An error as SCIM clients read it (`schemas`, `detail`, `status` as text), with our `message`.
pub struct ScimError(ApiError);

impl From<ApiError> for ScimError {
    fn from(error: ApiError) -> Self {
        Self(error)
    }
}

impl From<reads::ReadError> for ScimError {
    fn from(error: reads::ReadError) -> Self {
        Self(error.into())
    }
}

impl From<resources::Error> for ScimError {
    fn from(error: resources::Error) -> Self {
        Self(error.into())
    }
}

impl IntoResponse for ScimError {
    fn into_response(self) -> Response {
        let ApiError { status, message, error, detail, .. } = self.0;
        let body = json!({
            "schemas": [scim::ERROR_SCHEMA],
            "detail": message,
            "status": status.as_u16().to_string(),
            "message": message,
            "error": detail.or_else(|| error.map(str::to_owned)),
        });
        (status, Json(body)).into_response()
    }
}

#[utoipa::path(
    get, path = "/api/public/scim/ServiceProviderConfig", tag = "scim", security(("basicAuth" = [])),
    responses((status = 200, body = Object), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody))
)]
async fn service_provider_config(_: OrganizationAuth) -> Json<Value> {
    Json(scim::service_provider_config())
}

#[utoipa::path(
    get, path = "/api/public/scim/ResourceTypes", tag = "scim", security(("basicAuth" = [])),
    responses((status = 200, body = Object), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody))
)]
async fn resource_types(_: OrganizationAuth) -> Json<Value> {
    Json(scim::resource_types())
}

#[utoipa::path(
    get, path = "/api/public/scim/Schemas", tag = "scim", security(("basicAuth" = [])),
    responses((status = 200, body = Object), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody))
)]
async fn schemas(_: OrganizationAuth) -> Json<Value> {
    Json(scim::schemas())
}

/// The organization's members as SCIM users; `filter=userName eq "…"`, `startIndex` (1-based),
/// `count` (≤ 100).
#[utoipa::path(
    get, path = "/api/public/scim/Users", tag = "scim", security(("basicAuth" = [])),
    responses(
        (status = 200, body = ScimUsersListResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)
    )
)]
async fn list_scim_users(
    auth: OrganizationAuth,
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> Result<Json<ScimUsersListResponse>, ScimError> {
    let params = super::query::params(query);
    let start_index = params.int("startIndex", 1, 1, i64::MAX)?;
    let count = params.int("count", 100, 0, 100)?;
    let filter = params.string("filter");
    let list =
        scim::list_users(&state.stores.postgres, &auth.acting(), filter.as_deref(), start_index, count)
            .await?;
    Ok(Json(list))
}

/// Provisions a user into the organization (role NONE, no password); 409 when already in it.
#[utoipa::path(
    post, path = "/api/public/scim/Users", tag = "scim", security(("basicAuth" = [])),
    request_body = CreateScimUser,
    responses(
        (status = 201, body = ScimUser), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 409, body = ErrorBody)
    )
)]
async fn create_scim_user(
    auth: OrganizationAuth,
    State(state): State<AppState>,
    JsonBody(request): JsonBody<CreateScimUser>,
) -> Result<(StatusCode, Json<ScimUser>), ScimError> {
    let user = scim::create_user(&state.stores.postgres, &auth.acting(), request).await?;
    Ok((StatusCode::CREATED, Json(user)))
}

#[utoipa::path(
    get, path = "/api/public/scim/Users/{userId}", tag = "scim", security(("basicAuth" = [])),
    params(("userId" = String, Path)),
    responses(
        (status = 200, body = ScimUser), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn get_scim_user(
    auth: OrganizationAuth,
    State(state): State<AppState>,
    Path(user_id): Path<String>,
) -> Result<Json<ScimUser>, ScimError> {
    Ok(Json(scim::get_user(&state.stores.postgres, &auth.acting(), &user_id).await?))
}

/// Removes the user from this organization (not from others). 200 `{}` rather than SCIM's 204: the
/// SDK's generated client parses the body of every 2xx as JSON and fails on an empty one.
#[utoipa::path(
    delete, path = "/api/public/scim/Users/{userId}", tag = "scim", security(("basicAuth" = [])),
    params(("userId" = String, Path)),
    responses(
        (status = 200, body = Object), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn delete_scim_user(
    auth: OrganizationAuth,
    State(state): State<AppState>,
    Path(user_id): Path<String>,
) -> Result<Json<Value>, ScimError> {
    scim::delete_user(&state.stores.postgres, &auth.acting(), &user_id).await?;
    Ok(Json(json!({})))
}
