//! The Observations view's reads under `/api/ui/projects/{projectId}/observations`: the v2
//! observations list (`GET /api/public/v2/observations`, same parameters and answer) plus what the
//! view needs beyond it: `search` (one box over names and ids, an OR the `filter` JSON cannot
//! express, or over input and output), and `order` (oldest first).

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use reads::observations::{MAX_SEARCH_CHARS, ObservationV2, ViewOptions};
use reads::{CursorPage, gate};
use resources::identity::people;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::openapi::ErrorBody;
use super::query::params;
use crate::error::ApiError;
use crate::session::UserSession;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    super::compress::large_json(OpenApiRouter::new().routes(routes!(ui_observations_list)))
}

/// On top of every parameter of `GET /api/public/v2/observations`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)] // documents the query the handler reads raw; never built
struct SearchQuery {
    /// Keeps observations whose name contains it (any case) or whose id, trace id, user id or
    /// session id is it; with `searchIn=io`, those whose input or output has every word of it
    /// (any case, through the full-text indexes). At most 200 characters.
    #[param(max_length = 200)]
    search: Option<String>,
    /// `ids` (default: names and ids) or `io` (input and output).
    #[param(pattern = "^(ids|io)$")]
    search_in: Option<String>,
    /// `desc` (default, newest first) or `asc` (oldest first). A cursor continues only in the
    /// order it was made in.
    #[param(pattern = "^(asc|desc)$")]
    order: Option<String>,
}

/// One page of the project's observations for the Observations view: any role with access.
#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/observations", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path), SearchQuery),
    responses(
        (status = 200, body = CursorPage<ObservationV2>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No access to the project, or preview reads are off")
    )
)]
async fn ui_observations_list(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<CursorPage<ObservationV2>>, ApiError> {
    people::on_project(&state.stores.postgres, &session.user.id, &project_id).await?;
    gate::v4(state.config.migration.allow_preview_opt_in, "Observations view")?;
    let params = params(query);
    let search = params.get("search");
    if search.is_some_and(|text| text.chars().count() > MAX_SEARCH_CHARS) {
        return Err(ApiError::bad_request(format!("search must be at most {MAX_SEARCH_CHARS} characters")));
    }
    let search_io = match params.get("searchIn") {
        None | Some("ids") => false,
        Some("io") => true,
        Some(other) => {
            return Err(ApiError::bad_request(format!("searchIn must be `ids` or `io`, not `{other}`")));
        }
    };
    let ascending = match params.get("order") {
        None | Some("desc") => false,
        Some("asc") => true,
        Some(other) => {
            return Err(ApiError::bad_request(format!("order must be `asc` or `desc`, not `{other}`")));
        }
    };
    let view = ViewOptions { search, search_io, ascending };
    let clickhouse = &state.stores.clickhouse;
    Ok(Json(reads::observations::list_for_view(clickhouse, &project_id, &params, view).await?))
}
