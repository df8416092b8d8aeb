//! The prompts pages' reads, under `/api/ui/projects/{projectId}/prompts`: one folder's entries
//! (subfolders and prompts, searchable, paged) and one prompt's versions without their bodies
//! (`resources::prompts::browse`). Any role with access to the project reads them; everything else
//! the pages do (a version's body, resolved or raw, creating versions, moving labels) goes through
//! the public prompts routes as the signed-in person, where VIEWERs are refused writes.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::Page;
use resources::identity::people;
use resources::prompts::browse::{self, FolderEntry, VersionSummary};

use super::openapi::ErrorBody;
use crate::error::ApiError;
use crate::session::UserSession;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(ui_prompt_folder)).routes(routes!(ui_prompt_versions))
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)] // documents the query `Params` reads; never built
struct FolderQuery {
    /// The folder (`team/sub`), the root when absent; at most 1000 characters.
    folder: Option<String>,
    /// Part of a prompt's full name, any case; lists the matching prompts under the folder at any
    /// depth instead of its entries. At most 200 characters.
    search: Option<String>,
    /// 1-based; 1 by default.
    #[param(minimum = 1)]
    page: Option<i64>,
    /// 1 to 100; 50 by default.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<i64>,
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)] // documents the query `Params` reads; never built
struct VersionsQuery {
    /// The prompt's full name, folders included.
    name: String,
    /// 1-based; 1 by default.
    #[param(minimum = 1)]
    page: Option<i64>,
    /// 1 to 1000; 100 by default.
    #[param(minimum = 1, maximum = 1000)]
    limit: Option<i64>,
}

/// One folder of the project's prompts: its subfolders, then its prompts, each by name, with the
/// prompt's latest version, labels, tags and last update.
#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/prompts", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path), FolderQuery),
    responses(
        (status = 200, body = Page<FolderEntry>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody, description = "No access to the project")
    )
)]
async fn ui_prompt_folder(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Page<FolderEntry>>, ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?;
    Ok(Json(browse::folder(pool, &project_id, &super::query::params(query)).await?))
}

/// One prompt's versions, newest first, with labels, tags, commit message and author, without
/// their bodies.
#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/prompts/versions", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path), VersionsQuery),
    responses(
        (status = 200, body = Page<VersionSummary>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No access to the project, or no such prompt")
    )
)]
async fn ui_prompt_versions(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Page<VersionSummary>>, ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?;
    Ok(Json(browse::versions(pool, &project_id, &super::query::params(query)).await?))
}
