//! The UI's own state, under `/api/ui/` (docs/identity.md, "The UI's JSON API"): what the sign-in
//! page needs to know before anyone signs in, the person's preferences and the views the UI shows
//! them (v4 or v3, following the write mode and the preview opt-in), and the instance admin's
//! pages: people (who is an instance admin) and the background migrations with their retry.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use domain::config::WriteMode;

use super::admin::BackgroundMigrations;
use super::body::JsonBody;
use super::openapi::ErrorBody;
use crate::error::ApiError;
use crate::session::UserSession;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(auth_config))
        .routes(routes!(update_preferences))
        .routes(routes!(people))
        .routes(routes!(set_instance_admin))
        .routes(routes!(background_migrations))
        .routes(routes!(retry_background_migration))
}

/// What the sign-in page shows before anyone is signed in.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct AuthConfig {
    sign_up_enabled: bool,
}

/// Whether sign-up is on (`AUTH_DISABLE_SIGNUP`). No session needed.
#[utoipa::path(get, path = "/api/ui/auth/config", tag = "ui", responses((status = 200, body = AuthConfig)))]
async fn auth_config(State(state): State<AppState>) -> Json<AuthConfig> {
    Json(AuthConfig { sign_up_enabled: !state.config.accounts.disable_signup })
}

/// A person's UI choices. Absent means never chosen.
#[derive(Serialize, Deserialize, ToSchema, Default, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Preferences {
    /// In `dual` with `LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN=true`: the v4 views instead of v3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v4_preview: Option<bool>,
    /// The project `/` opens after sign-in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_project_id: Option<String>,
}

impl Preferences {
    /// Reads what is stored, ignoring what this version does not know.
    pub fn from_stored(stored: Value) -> Self {
        serde_json::from_value(stored).unwrap_or_default()
    }
}

/// The deployment as the UI needs to know it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstanceBody {
    /// `events_only`, `dual` or `legacy` (`LANGFUSE_MIGRATION_V4_WRITE_MODE`).
    write_mode: &'static str,
    /// Whether people may switch to the v4 views in `dual` (the **v4 preview** toggle is shown).
    preview_toggle: bool,
    sign_up_enabled: bool,
}

/// Which data model the UI's views read: `v4` (one Observations view over the events) or `v3` (the
/// Traces and Observations tabs over the legacy tables).
pub fn views(mode: WriteMode, preview_opt_in: bool, preferences: &Preferences) -> &'static str {
    match mode {
        WriteMode::EventsOnly => "v4",
        WriteMode::Legacy => "v3",
        WriteMode::Dual if preview_opt_in && preferences.v4_preview == Some(true) => "v4",
        WriteMode::Dual => "v3",
    }
}

pub fn instance(state: &AppState) -> InstanceBody {
    let migration = &state.config.migration;
    InstanceBody {
        write_mode: migration.write_mode.as_str(),
        preview_toggle: migration.write_mode == WriteMode::Dual && migration.allow_preview_opt_in,
        sign_up_enabled: !state.config.accounts.disable_signup,
    }
}

/// The preferences after a change, and the views they select.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct PreferencesBody {
    preferences: Preferences,
    views: &'static str,
}

/// Changes the person's preferences: keys sent are set (`null` clears one), others are kept. A
/// `lastProjectId` must be a project the person can open.
#[utoipa::path(
    put, path = "/api/ui/me/preferences", tag = "ui", security(("sessionCookie" = [])), request_body = Preferences,
    responses(
        (status = 200, body = PreferencesBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn update_preferences(
    session: UserSession,
    State(state): State<AppState>,
    JsonBody(changes): JsonBody<Map<String, Value>>,
) -> Result<Json<PreferencesBody>, ApiError> {
    let pool = &state.stores.postgres;
    let mut accepted = Map::new();
    for (key, value) in changes {
        match (key.as_str(), &value) {
            ("v4Preview", Value::Bool(_) | Value::Null) => {}
            ("lastProjectId", Value::String(project_id)) => {
                resources::identity::people::on_project(pool, &session.user.id, project_id).await?;
            }
            ("lastProjectId", Value::Null) => {}
            ("v4Preview" | "lastProjectId", _) => {
                return Err(ApiError::bad_request(format!("{key} has the wrong type")));
            }
            _ => return Err(ApiError::bad_request(format!("unknown preference {key:?}"))),
        }
        accepted.insert(key, value);
    }
    let stored =
        storage::people_settings::update_preferences(pool, &session.user.id, &Value::Object(accepted))
            .await?;
    let preferences = Preferences::from_stored(stored);
    let migration = &state.config.migration;
    let views = views(migration.write_mode, migration.allow_preview_opt_in, &preferences);
    Ok(Json(PreferencesBody { preferences, views }))
}

/// The signed-in person, when they are an instance admin (403 otherwise).
async fn instance_admin(session: &UserSession, state: &AppState) -> Result<(), ApiError> {
    if storage::people_settings::is_instance_admin(&state.stores.postgres, &session.user.id).await? {
        Ok(())
    } else {
        Err(ApiError::forbidden("Only instance admins may do this"))
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct PersonBody {
    id: String,
    email: String,
    name: Option<String>,
    instance_admin: bool,
    created_at: chrono::DateTime<chrono::Utc>,
}

#[derive(Serialize, ToSchema)]
struct PeoplePage {
    data: Vec<PersonBody>,
    meta: reads::page::PageMeta,
}

/// Every person of the instance, oldest first (`page`, `limit` ≤ 100); instance admins only.
#[utoipa::path(
    get, path = "/api/ui/admin/users", tag = "ui", security(("sessionCookie" = [])),
    responses((status = 200, body = PeoplePage), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody))
)]
async fn people(
    session: UserSession,
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> Result<Json<PeoplePage>, ApiError> {
    instance_admin(&session, &state).await?;
    let request = reads::params::PageRequest::parse(&super::query::params(query))?;
    let (rows, total) =
        storage::people_settings::people(&state.stores.postgres, request.offset(), request.limit).await?;
    let data = rows
        .into_iter()
        .map(|p| PersonBody {
            id: p.id,
            email: p.email,
            name: p.name,
            instance_admin: p.instance_admin,
            created_at: p.created_at,
        })
        .collect();
    Ok(Json(PeoplePage { data, meta: request.meta(total.max(0) as u64) }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct InstanceAdminRequest {
    instance_admin: bool,
}

/// Marks or unmarks an instance admin; instance admins only. Nobody unmarks themselves, so the
/// instance always keeps the admin who acted.
#[utoipa::path(
    put, path = "/api/ui/admin/users/{userId}", tag = "ui", security(("sessionCookie" = [])),
    params(("userId" = String, Path)), request_body = InstanceAdminRequest,
    responses(
        (status = 200, body = PersonBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn set_instance_admin(
    session: UserSession,
    State(state): State<AppState>,
    Path(user_id): Path<String>,
    JsonBody(request): JsonBody<InstanceAdminRequest>,
) -> Result<Json<Value>, ApiError> {
    instance_admin(&session, &state).await?;
    if user_id == session.user.id && !request.instance_admin {
        return Err(ApiError::bad_request("You cannot remove your own instance admin role"));
    }
    let pool = &state.stores.postgres;
    if !storage::people_settings::set_instance_admin(pool, &user_id, request.instance_admin).await? {
        return Err(ApiError::not_found("User not found"));
    }
    tracing::info!(actor = %session.user.id, target = %user_id, admin = request.instance_admin, "instance admin role changed");
    Ok(Json(serde_json::json!({"id": user_id, "instanceAdmin": request.instance_admin})))
}

/// The background migrations with their progress (as `GET /api/admin/background-migrations`);
/// instance admins only.
#[utoipa::path(
    get, path = "/api/ui/background-migrations", tag = "ui", security(("sessionCookie" = [])),
    operation_id = "ui_background_migrations",
    responses(
        (status = 200, body = BackgroundMigrations), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)
    )
)]
async fn background_migrations(
    session: UserSession,
    State(state): State<AppState>,
) -> Result<Json<BackgroundMigrations>, ApiError> {
    instance_admin(&session, &state).await?;
    Ok(Json(BackgroundMigrations::load(&state).await?))
}

/// Puts a failed migration back to pending: the worker resumes it from its saved cursor. 409 when it
/// has not failed.
#[utoipa::path(
    post, path = "/api/ui/background-migrations/{name}/retry", tag = "ui", security(("sessionCookie" = [])),
    params(("name" = String, Path)),
    responses(
        (status = 200, body = BackgroundMigrations), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody)
    )
)]
async fn retry_background_migration(
    session: UserSession,
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<BackgroundMigrations>, ApiError> {
    instance_admin(&session, &state).await?;
    if !storage::background_migrations::retry(&state.stores.postgres, &name).await? {
        return Err(ApiError::new(
            axum::http::StatusCode::CONFLICT,
            format!("No failed background migration named {name:?}"),
            "ConflictError",
        ));
    }
    tracing::info!(actor = %session.user.id, migration = %name, "background migration retried from the UI");
    background_migrations(session, State(state)).await
}
