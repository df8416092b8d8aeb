//! Public links (`resources::public_links`): members turn a trace's or a session's link on and off
//! under `/api/ui/projects/{projectId}/public-links/{kind}/{targetId}` (reading the state: any role
//! with access; changing it: `ProjectWrite`, so MEMBER and above, with the CSRF header), and anyone
//! holding the token reads what it opens under `/api/ui/public/{token}/…`, without a session. An
//! unknown, malformed or revoked token, and any trace or observation the link does not open, is
//! the same 404. The public reads take the bounds of the signed-in ones (previews at most
//! 1 048 576 characters, session pages of at most 100 traces) and read the write mode's model.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use domain::identity::Action;
use reads::sessions::SessionDetail;
use reads::trace_view::Model;
use reads::trace_view::detail::{self, Field, FullValue, ObservationDetail};
use reads::trace_view::tree::TraceTree;
use resources::identity::people;
use resources::public_links::reads::{self as public, PublicLinkBody};
use resources::public_links::{self, Kind, LinkState, Shared};

use super::openapi::ErrorBody;
use super::query::params;
use crate::error::ApiError;
use crate::session::UserSession;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    // The public reads answer gzip over 1 KiB, as the signed-in trace and session reads do.
    let reads = OpenApiRouter::new()
        .routes(routes!(public_tree))
        .routes(routes!(public_observation))
        .routes(routes!(public_value))
        .routes(routes!(public_session));
    OpenApiRouter::new()
        .routes(routes!(link_state, link_enable, link_revoke))
        .routes(routes!(public_link))
        .merge(super::compress::large_json(reads))
}

/// The link state of a trace or session (`kind`: `trace` or `session`; the id at most 1 000 characters).
#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/public-links/{kind}/{targetId}", tag = "ui",
    security(("sessionCookie" = [])),
    params(("projectId" = String, Path), ("kind" = String, Path), ("targetId" = String, Path)),
    responses(
        (status = 200, body = LinkState), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn link_state(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, kind, target_id)): Path<(String, String, String)>,
) -> Result<Json<LinkState>, ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?;
    Ok(Json(public_links::state(pool, &project_id, Kind::parse(&kind)?, &target_id).await?))
}

/// Turns the public link on (the live one when there is one). MEMBER and above.
#[utoipa::path(
    put, path = "/api/ui/projects/{projectId}/public-links/{kind}/{targetId}", tag = "ui",
    security(("sessionCookie" = [])),
    params(("projectId" = String, Path), ("kind" = String, Path), ("targetId" = String, Path)),
    responses(
        (status = 200, body = LinkState), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "A VIEWER"), (status = 404, body = ErrorBody)
    )
)]
async fn link_enable(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, kind, target_id)): Path<(String, String, String)>,
) -> Result<Json<LinkState>, ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?.require(Action::ProjectWrite)?;
    let kind = Kind::parse(&kind)?;
    Ok(Json(public_links::enable(pool, &project_id, kind, &target_id, &session.user.id).await?))
}

/// Turns the public link off: its token answers 404 from the next request on. MEMBER and above.
#[utoipa::path(
    delete, path = "/api/ui/projects/{projectId}/public-links/{kind}/{targetId}", tag = "ui",
    security(("sessionCookie" = [])),
    params(("projectId" = String, Path), ("kind" = String, Path), ("targetId" = String, Path)),
    responses(
        (status = 200, body = LinkState), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "A VIEWER"), (status = 404, body = ErrorBody)
    )
)]
async fn link_revoke(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, kind, target_id)): Path<(String, String, String)>,
) -> Result<Json<LinkState>, ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?.require(Action::ProjectWrite)?;
    Ok(Json(
        public_links::revoke(pool, &project_id, Kind::parse(&kind)?, &target_id, &session.user.id).await?,
    ))
}

/// The live link of `token` and the model the public reads use (the write mode's own).
async fn shared(state: &AppState, token: &str) -> Result<(Shared, Model), ApiError> {
    let shared = public_links::resolve(&state.stores.postgres, token).await?;
    let migration = &state.config.migration;
    Ok((shared, Model::chosen(None, migration.write_mode, migration.allow_preview_opt_in)?))
}

/// What a public link opens: a trace or a session, and its id. No session needed.
#[utoipa::path(
    get, path = "/api/ui/public/{token}", tag = "ui",
    params(("token" = String, Path)),
    responses((status = 200, body = PublicLinkBody), (status = 404, body = ErrorBody))
)]
async fn public_link(
    State(state): State<AppState>,
    Path(token): Path<String>,
) -> Result<Json<PublicLinkBody>, ApiError> {
    let (shared, _) = shared(&state, &token).await?;
    Ok(Json(public::body(&shared)))
}

/// The tree of a trace the link opens (as the signed-in tree route).
#[utoipa::path(
    get, path = "/api/ui/public/{token}/traces/{traceId}/tree", tag = "ui",
    params(("token" = String, Path), ("traceId" = String, Path)),
    responses((status = 200, body = TraceTree), (status = 404, body = ErrorBody))
)]
async fn public_tree(
    State(state): State<AppState>,
    Path((token, trace_id)): Path<(String, String)>,
) -> Result<Json<TraceTree>, ApiError> {
    let (shared, model) = shared(&state, &token).await?;
    Ok(Json(public::trace_tree(&state.stores.clickhouse, &shared, &trace_id, model).await?))
}

/// One observation of a trace the link opens, without scores (`previewChars`: 1 to 1 048 576).
#[utoipa::path(
    get, path = "/api/ui/public/{token}/traces/{traceId}/observations/{observationId}", tag = "ui",
    params(
        ("token" = String, Path), ("traceId" = String, Path), ("observationId" = String, Path),
        ("previewChars" = Option<i64>, Query, description = "1 to 1 048 576; 65 536 by default")
    ),
    responses((status = 200, body = ObservationDetail), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn public_observation(
    State(state): State<AppState>,
    Path((token, trace_id, observation_id)): Path<(String, String, String)>,
    RawQuery(query): RawQuery,
) -> Result<Json<ObservationDetail>, ApiError> {
    let (shared, model) = shared(&state, &token).await?;
    let max = detail::MAX_PREVIEW_CHARS as i64;
    let chars = params(query).int("previewChars", detail::DEFAULT_PREVIEW_CHARS as i64, 1, max)?;
    let chars = usize::try_from(chars).unwrap_or(detail::DEFAULT_PREVIEW_CHARS);
    let clickhouse = &state.stores.clickhouse;
    Ok(Json(public::observation(clickhouse, &shared, &trace_id, &observation_id, model, chars).await?))
}

/// One large value whole (`field`: `input`, `output` or `metadata`), as the signed-in value route.
#[utoipa::path(
    get, path = "/api/ui/public/{token}/traces/{traceId}/observations/{observationId}/value", tag = "ui",
    params(
        ("token" = String, Path), ("traceId" = String, Path), ("observationId" = String, Path),
        ("field" = String, Query, description = "`input`, `output` or `metadata`")
    ),
    responses(
        (status = 200, content_type = "text/plain", body = String), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn public_value(
    State(state): State<AppState>,
    Path((token, trace_id, observation_id)): Path<(String, String, String)>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let (shared, model) = shared(&state, &token).await?;
    let field = Field::parse(params(query).get("field").unwrap_or_default())?;
    let clickhouse = &state.stores.clickhouse;
    let value = public::value(clickhouse, &shared, &trace_id, &observation_id, model, field).await?;
    let (content_type, body) = match value {
        FullValue::Text(text) => ("text/plain; charset=utf-8", Bytes::from(text)),
        FullValue::Metadata(object) => {
            let json = serde_json::to_vec(&object).map_err(|e| ApiError::internal(e.to_string()))?;
            ("application/json", Bytes::from(json))
        }
    };
    // A revoked link must stop showing at once: no cache keeps a copy.
    let headers = [
        (CONTENT_TYPE, HeaderValue::from_static(content_type)),
        (CACHE_CONTROL, HeaderValue::from_static("no-store")),
    ];
    Ok((headers, body).into_response())
}

/// The session a link opens and a page of its traces (`page`, `limit` 1 to 100).
#[utoipa::path(
    get, path = "/api/ui/public/{token}/session", tag = "ui",
    params(
        ("token" = String, Path),
        ("page" = Option<i64>, Query, description = "1-based"),
        ("limit" = Option<i64>, Query, description = "1 to 100; 50 by default")
    ),
    responses((status = 200, body = SessionDetail), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn public_session(
    State(state): State<AppState>,
    Path(token): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<SessionDetail>, ApiError> {
    let (shared, model) = shared(&state, &token).await?;
    Ok(Json(public::session(&state.stores.clickhouse, &shared, model, &params(query)).await?))
}
