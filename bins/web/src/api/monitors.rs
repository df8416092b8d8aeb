//! Monitors (`/api/public/monitors…`, docs/monitors.md): threshold alerts over a project's
//! metrics, Loupe's own API (no SDK defines one). Thin handlers over `monitors::api`. Key auth or
//! the session (`ProjectAuth`): every role with access to the project reads, writes (create,
//! change, delete, mute, unmute, evaluate now) need MEMBER or above (`ProjectWrite`).

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use monitors::Rules;
use monitors::model::{EvaluationBody, MonitorBody, MonitorPatch, NewMonitor, NotificationBody};
use resources::{Message, Page};

use super::body::JsonBody;
use super::openapi::ErrorBody;
use super::query::{PageQuery, params};
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

type Reply<T> = Result<Json<T>, ApiError>;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(fetch, update, remove))
        .routes(routes!(mute))
        .routes(routes!(unmute))
        .routes(routes!(evaluate))
        .routes(routes!(evaluations))
        .routes(routes!(notifications))
}

fn rules(s: &AppState) -> Rules<'_> {
    Rules {
        version: monitors::model::version_for(s.config.migration.write_mode),
        key: s.config.auth.encryption_key.as_ref(),
        policy: &s.config.auth.outbound,
    }
}

#[utoipa::path(
    get, path = "/api/public/monitors", operation_id = "monitors_list",
    tag = "monitors", security(("basicAuth" = [])), params(PageQuery),
    responses((status = 200, body = Page<MonitorBody>), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody))
)]
async fn list(
    State(s): State<AppState>,
    auth: ProjectAuth,
    RawQuery(q): RawQuery,
) -> Reply<Page<MonitorBody>> {
    Ok(Json(monitors::api::list(&s.stores.postgres, &auth.project.id, &params(q)).await?))
}

/// Creates a monitor; its first evaluation is due at once. Channel secrets need `ENCRYPTION_KEY`.
#[utoipa::path(
    post, path = "/api/public/monitors", operation_id = "monitors_create",
    tag = "monitors", security(("basicAuth" = [])), request_body = NewMonitor,
    responses(
        (status = 200, body = MonitorBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)
    )
)]
async fn create(
    State(s): State<AppState>,
    auth: ProjectAuth,
    JsonBody(new): JsonBody<NewMonitor>,
) -> Reply<MonitorBody> {
    let pool = &s.stores.postgres;
    let created =
        monitors::api::create(pool, &auth.project.id, auth.user_id.as_deref(), new, &rules(&s)).await?;
    Ok(Json(created))
}

#[utoipa::path(
    get, path = "/api/public/monitors/{monitorId}", operation_id = "monitors_get",
    tag = "monitors", security(("basicAuth" = [])), params(("monitorId" = String, Path)),
    responses((status = 200, body = MonitorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn fetch(State(s): State<AppState>, auth: ProjectAuth, Path(id): Path<String>) -> Reply<MonitorBody> {
    Ok(Json(monitors::api::get(&s.stores.postgres, &auth.project.id, &id).await?))
}

/// Changes a monitor (absent fields keep their value; `channels` replaces the list); the next
/// evaluation is due at once.
#[utoipa::path(
    patch, path = "/api/public/monitors/{monitorId}", operation_id = "monitors_update",
    tag = "monitors", security(("basicAuth" = [])), params(("monitorId" = String, Path)),
    request_body = MonitorPatch,
    responses(
        (status = 200, body = MonitorBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn update(
    State(s): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
    JsonBody(patch): JsonBody<MonitorPatch>,
) -> Reply<MonitorBody> {
    Ok(Json(monitors::api::update(&s.stores.postgres, &auth.project.id, &id, patch, &rules(&s)).await?))
}

/// Deletes a monitor with its evaluations, notifications and delivery log.
#[utoipa::path(
    delete, path = "/api/public/monitors/{monitorId}", operation_id = "monitors_delete",
    tag = "monitors", security(("basicAuth" = [])), params(("monitorId" = String, Path)),
    responses(
        (status = 200, body = Message), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn remove(State(s): State<AppState>, auth: ProjectAuth, Path(id): Path<String>) -> Reply<Message> {
    Ok(Json(monitors::api::delete(&s.stores.postgres, &auth.project.id, &id).await?))
}

/// Mutes a monitor: it is still evaluated and changes state, but notifies no channel.
#[utoipa::path(
    post, path = "/api/public/monitors/{monitorId}/mute", operation_id = "monitors_mute",
    tag = "monitors", security(("basicAuth" = [])), params(("monitorId" = String, Path)),
    responses(
        (status = 200, body = MonitorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn mute(State(s): State<AppState>, auth: ProjectAuth, Path(id): Path<String>) -> Reply<MonitorBody> {
    Ok(Json(monitors::api::set_muted(&s.stores.postgres, &auth.project.id, &id, true).await?))
}

/// Unmutes a monitor; the transitions it made while muted are not replayed.
#[utoipa::path(
    post, path = "/api/public/monitors/{monitorId}/unmute", operation_id = "monitors_unmute",
    tag = "monitors", security(("basicAuth" = [])), params(("monitorId" = String, Path)),
    responses(
        (status = 200, body = MonitorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn unmute(State(s): State<AppState>, auth: ProjectAuth, Path(id): Path<String>) -> Reply<MonitorBody> {
    Ok(Json(monitors::api::set_muted(&s.stores.postgres, &auth.project.id, &id, false).await?))
}

/// Makes the next evaluation due now; a worker takes it at its next poll.
#[utoipa::path(
    post, path = "/api/public/monitors/{monitorId}/evaluate", operation_id = "monitors_evaluate",
    tag = "monitors", security(("basicAuth" = [])), params(("monitorId" = String, Path)),
    responses(
        (status = 200, body = MonitorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn evaluate(
    State(s): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
) -> Reply<MonitorBody> {
    Ok(Json(monitors::api::evaluate_now(&s.stores.postgres, &auth.project.id, &id).await?))
}

/// The monitor's evaluations, newest first.
#[utoipa::path(
    get, path = "/api/public/monitors/{monitorId}/evaluations", operation_id = "monitors_evaluations",
    tag = "monitors", security(("basicAuth" = [])), params(("monitorId" = String, Path), PageQuery),
    responses(
        (status = 200, body = Page<EvaluationBody>), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn evaluations(
    State(s): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
    RawQuery(q): RawQuery,
) -> Reply<Page<EvaluationBody>> {
    Ok(Json(monitors::api::evaluations(&s.stores.postgres, &auth.project.id, &id, &params(q)).await?))
}

/// The monitor's notifications (one per transition and channel), newest first, each with its
/// delivery attempts and their status codes.
#[utoipa::path(
    get, path = "/api/public/monitors/{monitorId}/notifications", operation_id = "monitors_notifications",
    tag = "monitors", security(("basicAuth" = [])), params(("monitorId" = String, Path), PageQuery),
    responses(
        (status = 200, body = Page<NotificationBody>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn notifications(
    State(s): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
    RawQuery(q): RawQuery,
) -> Reply<Page<NotificationBody>> {
    Ok(Json(monitors::api::notifications(&s.stores.postgres, &auth.project.id, &id, &params(q)).await?))
}
