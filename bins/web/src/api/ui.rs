//! The JSON API of the UI, under `/api/ui/`: signing up, in and out, the signed-in person, and the
//! organization, project, key and audit-log actions they may take (docs/identity.md, "The UI's JSON
//! API"). Authenticated by the session cookie; every state change also needs `X-CSRF-Token`.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::header::{RETRY_AFTER, SET_COOKIE};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::identity::accounts::{
    self, NewSession, PasswordChange, SignInError, SignInRequest, SignUpRequest, UserBody,
};
use resources::identity::bodies::{
    ApiKeyList, ApiKeyResponse, CreateApiKeyRequest, CreateProjectRequest, OrganizationBody,
    OrganizationRequest, ProjectBody, ProjectDeletionResponse, SuccessResponse,
};
use resources::identity::people::{self, AuditEntry, OrganizationAccess};
use resources::identity::{keys, organizations, projects};
use storage::login_attempts::LoginAttempts;

use super::body::{JsonBody, OptionalJsonBody};
use super::openapi::ErrorBody;
use super::ui_app::{InstanceBody, Preferences, instance, views};
use crate::error::ApiError;
use crate::session::{ClientAddress, UserSession, clear_cookie, cookie_token, set_cookie};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(sign_up))
        .routes(routes!(sign_in))
        .routes(routes!(sign_out))
        .routes(routes!(me))
        .routes(routes!(change_password))
        .routes(routes!(ui_create_organization))
        .routes(routes!(ui_create_project))
        .routes(routes!(ui_delete_project))
        .routes(routes!(ui_list_keys, ui_create_key))
        .routes(routes!(ui_delete_key))
        .routes(routes!(ui_audit_log))
}

/// A session as the UI receives it: who is signed in and the CSRF token to echo.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SessionBody {
    user: UserBody,
    csrf_token: String,
}

/// Sign-up and sign-in take `application/json` only: a cross-site form can post `text/plain` that
/// parses as JSON, which would sign a victim's browser in to the attacker's account (login CSRF);
/// JSON needs a CORS preflight a foreign page does not get.
fn require_json(headers: &HeaderMap) -> Result<(), ApiError> {
    let json = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
    if json {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Send the body as application/json",
            "UnsupportedMediaTypeError",
        ))
    }
}

fn signed_in(status: StatusCode, session: NewSession, headers: &HeaderMap, uri: &Uri) -> Response {
    let cookie = set_cookie(&session, headers, uri);
    let body = SessionBody { user: session.user, csrf_token: session.csrf_token };
    (status, [(SET_COOKIE, cookie)], Json(body)).into_response()
}

/// Creates an account and signs it in (403 with `AUTH_DISABLE_SIGNUP=true`).
#[utoipa::path(
    post, path = "/api/ui/auth/sign-up", tag = "ui", request_body = SignUpRequest,
    responses(
        (status = 201, body = SessionBody), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 415, body = ErrorBody)
    )
)]
async fn sign_up(
    State(state): State<AppState>,
    headers: HeaderMap,
    uri: Uri,
    JsonBody(request): JsonBody<SignUpRequest>,
) -> Result<Response, ApiError> {
    require_json(&headers)?;
    if state.config.accounts.disable_signup {
        return Err(ApiError::forbidden("Sign-up is disabled on this instance (AUTH_DISABLE_SIGNUP)"));
    }
    let max_age = state.config.accounts.session_max_age_minutes;
    let session =
        accounts::sign_up(&state.stores.postgres, &state.config.auth.salt, max_age, request).await?;
    Ok(signed_in(StatusCode::CREATED, session, &headers, &uri))
}

/// Signs in with email and password: a new session (any session the browser had is ended). Failed
/// attempts are limited per account and per client address (429 with `Retry-After`).
#[utoipa::path(
    post, path = "/api/ui/auth/sign-in", tag = "ui", request_body = SignInRequest,
    responses(
        (status = 200, body = SessionBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 415, body = ErrorBody), (status = 429, body = ErrorBody)
    )
)]
async fn sign_in(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    headers: HeaderMap,
    uri: Uri,
    JsonBody(request): JsonBody<SignInRequest>,
) -> Result<Response, ApiError> {
    require_json(&headers)?;
    let attempts = LoginAttempts::new(state.stores.redis.clone(), &state.stores.redis_key_prefix);
    let previous = cookie_token(&headers);
    let max_age = state.config.accounts.session_max_age_minutes;
    let salt = &state.config.auth.salt;
    let pool = &state.stores.postgres;
    match accounts::sign_in(pool, &attempts, salt, max_age, &address, previous.as_deref(), request).await {
        Ok(session) => Ok(signed_in(StatusCode::OK, session, &headers, &uri)),
        Err(SignInError::Invalid) => Err(ApiError::unauthorized("Invalid email or password")),
        Err(SignInError::Limited(seconds)) => {
            let error = ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "Too many failed sign-ins; try again later",
                "TooManyRequestsError",
            );
            Ok((StatusCode::TOO_MANY_REQUESTS, [(RETRY_AFTER, seconds.to_string())], error).into_response())
        }
        Err(SignInError::Other(error)) => Err(error.into()),
    }
}

#[utoipa::path(
    post, path = "/api/ui/auth/sign-out", tag = "ui", security(("sessionCookie" = [])),
    responses((status = 200, body = SuccessResponse), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody))
)]
async fn sign_out(session: UserSession, State(state): State<AppState>) -> Result<Response, ApiError> {
    accounts::sign_out(&state.stores.postgres, &state.config.auth.salt, &session.token).await?;
    Ok(([clear_cookie()], Json(SuccessResponse { success: true })).into_response())
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct Me {
    user: UserBody,
    csrf_token: String,
    organizations: Vec<OrganizationAccess>,
    /// May see the background migrations and mark other instance admins.
    instance_admin: bool,
    preferences: Preferences,
    /// `v4` or `v3`: which data model the views read for this person.
    views: &'static str,
    instance: InstanceBody,
}

/// The signed-in person, their CSRF token, the organizations and projects they can open, their
/// preferences and the deployment's settings that shape the UI.
#[utoipa::path(
    get, path = "/api/ui/me", tag = "ui", security(("sessionCookie" = [])),
    responses((status = 200, body = Me), (status = 401, body = ErrorBody))
)]
async fn me(session: UserSession, State(state): State<AppState>) -> Result<Json<Me>, ApiError> {
    let pool = &state.stores.postgres;
    let organizations = people::organizations_of(pool, &session.user.id).await?;
    let instance_admin = storage::people_settings::is_instance_admin(pool, &session.user.id).await?;
    let preferences =
        Preferences::from_stored(storage::people_settings::preferences(pool, &session.user.id).await?);
    let migration = &state.config.migration;
    let views = views(migration.write_mode, migration.allow_preview_opt_in, &preferences);
    Ok(Json(Me {
        user: session.user,
        csrf_token: session.csrf_token,
        organizations,
        instance_admin,
        preferences,
        views,
        instance: instance(&state),
    }))
}

/// Changes the password: every session of the person ends (on every device); this browser gets a
/// new one.
#[utoipa::path(
    put, path = "/api/ui/me/password", tag = "ui", security(("sessionCookie" = [])), request_body = PasswordChange,
    responses(
        (status = 200, body = SessionBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)
    )
)]
async fn change_password(
    session: UserSession,
    State(state): State<AppState>,
    headers: HeaderMap,
    uri: Uri,
    JsonBody(change): JsonBody<PasswordChange>,
) -> Result<Response, ApiError> {
    let max_age = state.config.accounts.session_max_age_minutes;
    let salt = &state.config.auth.salt;
    let new = accounts::change_password(&state.stores.postgres, salt, max_age, session.user, change).await?;
    Ok(signed_in(StatusCode::OK, new, &headers, &uri))
}

/// Creates an organization; the signed-in person is its owner.
#[utoipa::path(
    post, path = "/api/ui/organizations", tag = "ui", security(("sessionCookie" = [])), request_body = OrganizationRequest,
    responses((status = 201, body = OrganizationBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody))
)]
async fn ui_create_organization(
    session: UserSession,
    State(state): State<AppState>,
    JsonBody(request): JsonBody<OrganizationRequest>,
) -> Result<(StatusCode, Json<OrganizationBody>), ApiError> {
    let created = organizations::create_for_user(&state.stores.postgres, &session.user.id, request).await?;
    Ok((StatusCode::CREATED, Json(created)))
}

#[utoipa::path(
    post, path = "/api/ui/organizations/{organizationId}/projects", tag = "ui", security(("sessionCookie" = [])),
    params(("organizationId" = String, Path)), request_body = CreateProjectRequest,
    responses(
        (status = 201, body = ProjectBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn ui_create_project(
    session: UserSession,
    State(state): State<AppState>,
    Path(org_id): Path<String>,
    JsonBody(request): JsonBody<CreateProjectRequest>,
) -> Result<(StatusCode, Json<ProjectBody>), ApiError> {
    let acting = people::in_organization(&state.stores.postgres, &session.user.id, &org_id).await?;
    Ok((StatusCode::CREATED, Json(projects::create(&state.stores.postgres, &acting, request).await?)))
}

#[utoipa::path(
    delete, path = "/api/ui/projects/{projectId}", tag = "ui", security(("sessionCookie" = [])), params(("projectId" = String, Path)),
    responses(
        (status = 202, body = ProjectDeletionResponse), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn ui_delete_project(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
) -> Result<(StatusCode, Json<ProjectDeletionResponse>), ApiError> {
    let pool = &state.stores.postgres;
    let acting = people::on_project(pool, &session.user.id, &project_id).await?;
    Ok((StatusCode::ACCEPTED, Json(projects::delete(pool, &state.revocations, &acting, &project_id).await?)))
}

#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/api-keys", tag = "ui", security(("sessionCookie" = [])), params(("projectId" = String, Path)),
    responses(
        (status = 200, body = ApiKeyList), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn ui_list_keys(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
) -> Result<Json<ApiKeyList>, ApiError> {
    let acting = people::on_project(&state.stores.postgres, &session.user.id, &project_id).await?;
    Ok(Json(keys::list_project_keys(&state.stores.postgres, &acting, &project_id).await?))
}

/// Creates a project key; the secret is in this answer only.
#[utoipa::path(
    post, path = "/api/ui/projects/{projectId}/api-keys", tag = "ui", security(("sessionCookie" = [])), params(("projectId" = String, Path)),
    request_body = CreateApiKeyRequest,
    responses(
        (status = 201, body = ApiKeyResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn ui_create_key(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    OptionalJsonBody(request): OptionalJsonBody<CreateApiKeyRequest>,
) -> Result<(StatusCode, Json<ApiKeyResponse>), ApiError> {
    let pool = &state.stores.postgres;
    let acting = people::on_project(pool, &session.user.id, &project_id).await?;
    let created =
        keys::create_project_key(pool, &state.config.auth.salt, &acting, &project_id, request).await?;
    Ok((StatusCode::CREATED, Json(created)))
}

#[utoipa::path(
    delete, path = "/api/ui/projects/{projectId}/api-keys/{apiKeyId}", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path), ("apiKeyId" = String, Path)),
    responses(
        (status = 200, body = SuccessResponse), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn ui_delete_key(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, key_id)): Path<(String, String)>,
) -> Result<Json<SuccessResponse>, ApiError> {
    let pool = &state.stores.postgres;
    let acting = people::on_project(pool, &session.user.id, &project_id).await?;
    Ok(Json(keys::delete_project_key(pool, &state.revocations, &acting, &project_id, &key_id).await?))
}

#[derive(Serialize, ToSchema)]
struct AuditLogPage {
    data: Vec<AuditEntry>,
    #[schema(value_type = Object)]
    meta: resources::PageMeta,
}

/// The organization's audit log, newest first; owners only (`page`, `limit` ≤ 100).
#[utoipa::path(
    get, path = "/api/ui/organizations/{organizationId}/audit-log", tag = "ui", security(("sessionCookie" = [])),
    params(("organizationId" = String, Path)),
    responses(
        (status = 200, body = AuditLogPage), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn ui_audit_log(
    session: UserSession,
    State(state): State<AppState>,
    Path(org_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<AuditLogPage>, ApiError> {
    let params = super::query::params(query);
    let request = reads::params::PageRequest {
        page: params.int("page", 1, 1, i64::MAX)?,
        limit: params.int("limit", 50, 1, 100)?,
    };
    let acting = people::in_organization(&state.stores.postgres, &session.user.id, &org_id).await?;
    let page = people::audit_log(&state.stores.postgres, &acting, &request).await?;
    Ok(Json(AuditLogPage { data: page.data, meta: page.meta }))
}
