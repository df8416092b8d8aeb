//! The sessions pages' reads, under `/api/ui/projects/{projectId}/sessions`: every session of the
//! project with its figures, and one session's traces with their inputs and outputs
//! (`reads::sessions`). Any role with access to the project reads them; `model` (`v3` or `v4`)
//! names the data model, which the write mode must serve (404 otherwise, as the public reads):
//! v3 in `legacy` and `dual`, v4 in `events_only` and in `dual` with the preview opt-in.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use domain::config::WriteMode;
use reads::Params;
use reads::gate;
use reads::page::Paged;
use reads::sessions::{self, Model, SessionDetail, SessionSummary};
use resources::identity::people;

use super::openapi::ErrorBody;
use crate::error::ApiError;
use crate::session::UserSession;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    super::compress::large_json(OpenApiRouter::new().routes(routes!(ui_sessions)).routes(routes!(ui_session)))
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)] // documents the query `Params` reads; never built
struct SessionsQuery {
    /// `v3` (the v3 tables; `legacy` and `dual`) or `v4` (the events; with the preview opt-in).
    model: String,
    /// 1-based; 1 by default.
    #[param(minimum = 1)]
    page: Option<i64>,
    /// 1 to 100; 50 by default.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<i64>,
    /// Only what starts at or after this moment (v4: observations; v3: traces).
    from_timestamp: Option<chrono::DateTime<chrono::Utc>>,
    /// Only what starts before this moment.
    to_timestamp: Option<chrono::DateTime<chrono::Utc>>,
    /// Part of a session id or of a user id, any case; at most 200 characters.
    search: Option<String>,
}

#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)] // documents the query `Params` reads; never built
struct SessionQuery {
    /// `v3` or `v4`, as for the list.
    model: String,
    /// The page of the session's traces: 1-based; 1 by default.
    #[param(minimum = 1)]
    page: Option<i64>,
    /// Traces per page, 1 to 100; 50 by default.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<i64>,
}

/// The checks both routes make: access to the project (404 without), the model asked for, and
/// whether the write mode serves it.
async fn checked(
    session: &UserSession,
    state: &AppState,
    project_id: &str,
    query: Option<String>,
) -> Result<(Model, Params), ApiError> {
    people::on_project(&state.stores.postgres, &session.user.id, project_id).await?;
    let params = super::query::params(query);
    let model = Model::parse(&params)?;
    let migration = &state.config.migration;
    match model {
        Model::V3 => gate::legacy(migration.write_mode)?,
        // `legacy` writes no events: the UI shows the v3 views whatever the opt-in says.
        Model::V4 if migration.write_mode == WriteMode::Legacy => {
            return Err(ApiError::not_found(
                "The v4 views need the events, which the legacy write mode does not write",
            ));
        }
        Model::V4 => gate::v4(migration.allow_preview_opt_in, "v4 sessions view")?,
    }
    Ok((model, params))
}

/// The project's sessions, newest activity first, with their figures.
#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/sessions", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path), SessionsQuery),
    responses(
        (status = 200, body = Paged<SessionSummary>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No access to the project, or a model the write mode does not serve")
    )
)]
async fn ui_sessions(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Paged<SessionSummary>>, ApiError> {
    let (model, params) = checked(&session, &state, &project_id, query).await?;
    Ok(Json(sessions::list(&state.stores.clickhouse, &project_id, model, &params).await?))
}

/// One session's figures and a page of its traces, oldest first, each with the start of its
/// root observation's input and output.
#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/sessions/{sessionId}", tag = "ui", security(("sessionCookie" = [])),
    params(("projectId" = String, Path), ("sessionId" = String, Path), SessionQuery),
    responses(
        (status = 200, body = SessionDetail), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn ui_session(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, session_id)): Path<(String, String)>,
    RawQuery(query): RawQuery,
) -> Result<Json<SessionDetail>, ApiError> {
    let (model, params) = checked(&session, &state, &project_id, query).await?;
    let clickhouse = &state.stores.clickhouse;
    Ok(Json(sessions::get(clickhouse, &project_id, model, &session_id, &params).await?))
}
