//! Custom dashboards and their widgets (`/api/public/unstable/dashboards…`,
//! `/api/public/unstable/dashboard-widgets…`): thin handlers over `resources::dashboards`. Key
//! auth or the session cookie (`ProjectAuth`: reads for any role, writes MEMBER+). The SDK parses
//! these routes' errors as its `PublicApiError`, which requires a `code`: every error answer of
//! them, extractors' included, gets one beside the usual `{message, error}` ([`with_code`]).

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::Response;
use serde_json::Value;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::dashboards::widgets::{self, NewWidget, WidgetBody, WidgetPatch};
use resources::dashboards::{
    self, DashboardBody, DashboardPatch, NewDashboard, NewPlacement, Placement, PlacementPatch,
};
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
        .routes(routes!(add_placement))
        .routes(routes!(update_placement, delete_placement))
        .routes(routes!(list_widgets, create_widget))
        .routes(routes!(fetch_widget, update_widget, remove_widget))
        .layer(axum::middleware::map_response(with_code))
}

/// The SDK's `PublicApiErrorCode` of an error answer.
fn code(status: StatusCode, message: &str) -> &'static str {
    match status.as_u16() {
        400 if message.starts_with("Invalid widget query") => "invalid_query",
        400 if message.starts_with("Invalid request data") => "invalid_body",
        400 | 413 | 415 | 422 => "invalid_request",
        401 => "authentication_failed",
        403 => "access_denied",
        404 => "resource_not_found",
        405 => "method_not_allowed",
        409 => "conflict",
        429 => "rate_limited",
        _ => "internal_error",
    }
}

/// Adds `code` to a JSON error answer (they are small: a message and an error class).
async fn with_code(response: Response) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let mut value: Value = serde_json::from_slice(&bytes).unwrap_or_else(|_| {
        serde_json::json!({"message": String::from_utf8_lossy(&bytes), "error": status.canonical_reason()})
    });
    if let Value::Object(fields) = &mut value
        && !fields.contains_key("code")
    {
        let message = fields.get("message").and_then(Value::as_str).unwrap_or_default();
        let code = code(status, message);
        fields.insert("code".into(), code.into());
    }
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(header::CONTENT_TYPE, header::HeaderValue::from_static("application/json"));
    Response::from_parts(parts, Body::from(value.to_string()))
}

#[utoipa::path(
    get, path = "/api/public/unstable/dashboards", operation_id = "dashboards_list",
    tag = "dashboards", security(("basicAuth" = [])), params(PageQuery),
    responses((status = 200, body = Page<DashboardBody>), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody))
)]
async fn list(
    State(s): State<AppState>,
    auth: ProjectAuth,
    RawQuery(q): RawQuery,
) -> Reply<Page<DashboardBody>> {
    Ok(Json(dashboards::list(&s.stores.postgres, &auth.project.id, &params(q)).await?))
}

#[utoipa::path(
    post, path = "/api/public/unstable/dashboards", operation_id = "dashboards_create",
    tag = "dashboards", security(("basicAuth" = [])), request_body = NewDashboard,
    responses((status = 200, body = DashboardBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody))
)]
async fn create(
    State(s): State<AppState>,
    auth: ProjectAuth,
    JsonBody(new): JsonBody<NewDashboard>,
) -> Reply<DashboardBody> {
    Ok(Json(dashboards::create(&s.stores.postgres, &auth.project.id, new).await?))
}

#[utoipa::path(
    get, path = "/api/public/unstable/dashboards/{dashboardId}", operation_id = "dashboards_get",
    tag = "dashboards", security(("basicAuth" = [])), params(("dashboardId" = String, Path)),
    responses((status = 200, body = DashboardBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn fetch(State(s): State<AppState>, auth: ProjectAuth, Path(id): Path<String>) -> Reply<DashboardBody> {
    Ok(Json(dashboards::get(&s.stores.postgres, &auth.project.id, &id).await?))
}

#[utoipa::path(
    patch, path = "/api/public/unstable/dashboards/{dashboardId}", operation_id = "dashboards_update",
    tag = "dashboards", security(("basicAuth" = [])), params(("dashboardId" = String, Path)),
    request_body = DashboardPatch,
    responses(
        (status = 200, body = DashboardBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn update(
    State(s): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
    JsonBody(patch): JsonBody<DashboardPatch>,
) -> Reply<DashboardBody> {
    Ok(Json(dashboards::update(&s.stores.postgres, &auth.project.id, &id, patch).await?))
}

#[utoipa::path(
    delete, path = "/api/public/unstable/dashboards/{dashboardId}", operation_id = "dashboards_delete",
    tag = "dashboards", security(("basicAuth" = [])), params(("dashboardId" = String, Path)),
    responses((status = 200, body = Message), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn remove(State(s): State<AppState>, auth: ProjectAuth, Path(id): Path<String>) -> Reply<Message> {
    Ok(Json(dashboards::delete(&s.stores.postgres, &auth.project.id, &id).await?))
}

#[utoipa::path(
    post, path = "/api/public/unstable/dashboards/{dashboardId}/placements", operation_id = "dashboards_addPlacement",
    tag = "dashboards", security(("basicAuth" = [])), params(("dashboardId" = String, Path)),
    request_body = NewPlacement,
    responses(
        (status = 200, body = Placement), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)
    )
)]
async fn add_placement(
    State(s): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
    JsonBody(new): JsonBody<NewPlacement>,
) -> Reply<Placement> {
    Ok(Json(dashboards::add_placement(&s.stores.postgres, &auth.project.id, &id, new).await?))
}

#[utoipa::path(
    patch, path = "/api/public/unstable/dashboards/{dashboardId}/placements/{placementId}",
    operation_id = "dashboards_updatePlacement", tag = "dashboards", security(("basicAuth" = [])),
    params(("dashboardId" = String, Path), ("placementId" = String, Path)), request_body = PlacementPatch,
    responses(
        (status = 200, body = Placement), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn update_placement(
    State(s): State<AppState>,
    auth: ProjectAuth,
    Path((id, placement)): Path<(String, String)>,
    JsonBody(patch): JsonBody<PlacementPatch>,
) -> Reply<Placement> {
    let pool = &s.stores.postgres;
    Ok(Json(dashboards::update_placement(pool, &auth.project.id, &id, &placement, patch).await?))
}

#[utoipa::path(
    delete, path = "/api/public/unstable/dashboards/{dashboardId}/placements/{placementId}",
    operation_id = "dashboards_deletePlacement", tag = "dashboards", security(("basicAuth" = [])),
    params(("dashboardId" = String, Path), ("placementId" = String, Path)),
    responses((status = 200, body = Message), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn delete_placement(
    State(s): State<AppState>,
    auth: ProjectAuth,
    Path((id, placement)): Path<(String, String)>,
) -> Reply<Message> {
    Ok(Json(dashboards::delete_placement(&s.stores.postgres, &auth.project.id, &id, &placement).await?))
}

#[utoipa::path(
    get, path = "/api/public/unstable/dashboard-widgets", operation_id = "dashboardWidgets_list",
    tag = "dashboard-widgets", security(("basicAuth" = [])), params(PageQuery),
    responses((status = 200, body = Page<WidgetBody>), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody))
)]
async fn list_widgets(
    State(s): State<AppState>,
    auth: ProjectAuth,
    RawQuery(q): RawQuery,
) -> Reply<Page<WidgetBody>> {
    Ok(Json(widgets::list(&s.stores.postgres, &auth.project.id, &params(q)).await?))
}

#[utoipa::path(
    post, path = "/api/public/unstable/dashboard-widgets", operation_id = "dashboardWidgets_create",
    tag = "dashboard-widgets", security(("basicAuth" = [])), request_body = NewWidget,
    responses((status = 200, body = WidgetBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody))
)]
async fn create_widget(
    State(s): State<AppState>,
    auth: ProjectAuth,
    JsonBody(new): JsonBody<NewWidget>,
) -> Reply<WidgetBody> {
    Ok(Json(widgets::create(&s.stores.postgres, &auth.project.id, new).await?))
}

#[utoipa::path(
    get, path = "/api/public/unstable/dashboard-widgets/{widgetId}", operation_id = "dashboardWidgets_get",
    tag = "dashboard-widgets", security(("basicAuth" = [])), params(("widgetId" = String, Path)),
    responses((status = 200, body = WidgetBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn fetch_widget(
    State(s): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
) -> Reply<WidgetBody> {
    Ok(Json(widgets::get(&s.stores.postgres, &auth.project.id, &id).await?))
}

#[utoipa::path(
    patch, path = "/api/public/unstable/dashboard-widgets/{widgetId}", operation_id = "dashboardWidgets_update",
    tag = "dashboard-widgets", security(("basicAuth" = [])), params(("widgetId" = String, Path)),
    request_body = WidgetPatch,
    responses(
        (status = 200, body = WidgetBody), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn update_widget(
    State(s): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
    JsonBody(patch): JsonBody<WidgetPatch>,
) -> Reply<WidgetBody> {
    Ok(Json(widgets::update(&s.stores.postgres, &auth.project.id, &id, patch).await?))
}

#[utoipa::path(
    delete, path = "/api/public/unstable/dashboard-widgets/{widgetId}", operation_id = "dashboardWidgets_delete",
    tag = "dashboard-widgets", security(("basicAuth" = [])), params(("widgetId" = String, Path)),
    responses(
        (status = 200, body = Message), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)
    )
)]
async fn remove_widget(
    State(s): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
) -> Reply<Message> {
    Ok(Json(widgets::delete(&s.stores.postgres, &auth.project.id, &id).await?))
}
