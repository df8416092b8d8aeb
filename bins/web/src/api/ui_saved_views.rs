//! Saved Observations views of a project, under `/api/ui/projects/{projectId}/saved-views`: a name
//! and the UI's state (filters, columns, order, search), shared by the project's members. Reading
//! needs access to the project, changing one `ProjectWrite`.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use domain::identity::Action;
use resources::identity::people;
use storage::saved_views::{self, SavedView, Updated};

use super::body::JsonBody;
use super::openapi::ErrorBody;
use crate::error::ApiError;
use crate::session::UserSession;
use crate::state::AppState;

/// A view's state, serialized, is at most this large: it is filters and column names, not data.
pub const MAX_STATE_BYTES: usize = 64 * 1024;
const MAX_NAME_CHARS: usize = 100;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(saved_views_list, saved_views_create))
        .routes(routes!(saved_views_update, saved_views_delete))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SavedViewBody {
    id: String,
    name: String,
    #[schema(value_type = Object)]
    state: Value,
    created_by: Option<String>,
    created_at: chrono::DateTime<chrono::Utc>,
    updated_at: chrono::DateTime<chrono::Utc>,
}

impl From<SavedView> for SavedViewBody {
    fn from(view: SavedView) -> Self {
        Self {
            id: view.id,
            name: view.name,
            state: view.state,
            created_by: view.created_by,
            created_at: view.created_at,
            updated_at: view.updated_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
struct SavedViews {
    data: Vec<SavedViewBody>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct NewSavedView {
    name: String,
    #[schema(value_type = Object)]
    state: Value,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct SavedViewChange {
    name: Option<String>,
    #[schema(value_type = Option<Object>)]
    state: Option<Value>,
}

fn checked_name(name: &str) -> Result<&str, ApiError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return Err(ApiError::bad_request(format!("name must be 1 to {MAX_NAME_CHARS} characters")));
    }
    Ok(name)
}

fn checked_state(state: &Value) -> Result<(), ApiError> {
    if !state.is_object() {
        return Err(ApiError::bad_request("state must be a JSON object"));
    }
    if serde_json::to_vec(state).map_or(usize::MAX, |bytes| bytes.len()) > MAX_STATE_BYTES {
        return Err(ApiError::bad_request(format!("state is larger than {MAX_STATE_BYTES} bytes")));
    }
    Ok(())
}

fn name_taken(name: &str) -> ApiError {
    ApiError::new(StatusCode::CONFLICT, format!("A view named {name:?} already exists"), "ConflictError")
}

fn not_found() -> ApiError {
    ApiError::not_found("Saved view not found")
}

/// The project's saved views, by name.
#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/saved-views", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path)),
    responses((status = 200, body = SavedViews), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn saved_views_list(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
) -> Result<Json<SavedViews>, ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?;
    let data = saved_views::list(pool, &project_id).await?.into_iter().map(Into::into).collect();
    Ok(Json(SavedViews { data }))
}

/// Saves a new view (409 when the project has one of that name, whatever its case).
#[utoipa::path(
    post, path = "/api/ui/projects/{projectId}/saved-views", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path)), request_body = NewSavedView,
    responses(
        (status = 201, body = SavedViewBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)
    )
)]
async fn saved_views_create(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    JsonBody(new): JsonBody<NewSavedView>,
) -> Result<(StatusCode, Json<SavedViewBody>), ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?.require(Action::ProjectWrite)?;
    let name = checked_name(&new.name)?;
    checked_state(&new.state)?;
    let view = saved_views::create(pool, &project_id, name, &new.state, &session.user.id)
        .await?
        .ok_or_else(|| name_taken(name))?;
    Ok((StatusCode::CREATED, Json(view.into())))
}

/// Renames a view or replaces its state.
#[utoipa::path(
    put, path = "/api/ui/projects/{projectId}/saved-views/{viewId}", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path), ("viewId" = String, Path)), request_body = SavedViewChange,
    responses(
        (status = 200, body = SavedViewBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)
    )
)]
async fn saved_views_update(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, view_id)): Path<(String, String)>,
    JsonBody(change): JsonBody<SavedViewChange>,
) -> Result<Json<SavedViewBody>, ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?.require(Action::ProjectWrite)?;
    let name = change.name.as_deref().map(checked_name).transpose()?;
    if let Some(view_state) = &change.state {
        checked_state(view_state)?;
    }
    match saved_views::update(pool, &project_id, &view_id, name, change.state.as_ref()).await? {
        Updated::Done(view) => Ok(Json(view.into())),
        Updated::NotFound => Err(not_found()),
        Updated::NameTaken => Err(name_taken(name.unwrap_or_default())),
    }
}

/// Deletes a view.
#[utoipa::path(
    delete, path = "/api/ui/projects/{projectId}/saved-views/{viewId}", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path), ("viewId" = String, Path)),
    responses(
        (status = 204), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn saved_views_delete(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, view_id)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?.require(Action::ProjectWrite)?;
    if saved_views::delete(pool, &project_id, &view_id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(not_found())
    }
}
