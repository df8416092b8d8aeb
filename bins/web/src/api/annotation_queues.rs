//! Annotation queues: the SDK clients' `/api/public/annotation-queues…` routes (queues, items,
//! assignments; key or session auth through [`ProjectAuth`]), and the work view's two UI routes
//! (`/api/ui/projects/{projectId}/annotation-queues/…`: the next item for the signed-in person,
//! progress per annotator). Thin handlers over `resources::annotation_queues`.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use domain::identity::Action;
use resources::Page;
use resources::annotation_queues::assignments::{self, Assignment, AssignmentRequest, DeletedAssignment};
use resources::annotation_queues::items::{self, AnnotationQueueItem, DeletedItem, ItemPatch, NewItem};
use resources::annotation_queues::work::{self, Next, NextRequest, QueueProgress};
use resources::annotation_queues::{self as queues, AnnotationQueue, NewQueue};
use resources::identity::people;

use super::body::JsonBody;
use super::openapi::ErrorBody;
use super::query::{PageQuery, params};
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::session::UserSession;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_queues, create_queue))
        .routes(routes!(get_queue))
        .routes(routes!(list_items, create_item))
        .routes(routes!(get_item, update_item, delete_item))
        .routes(routes!(create_assignment, delete_assignment))
        .routes(routes!(next_item))
        .routes(routes!(queue_progress))
}

#[utoipa::path(
    get, path = "/api/public/annotation-queues", operation_id = "annotationQueues_listQueues",
    tag = "annotation-queues", security(("basicAuth" = [])), params(PageQuery),
    responses((status = 200, body = Page<AnnotationQueue>), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody))
)]
async fn list_queues(
    State(state): State<AppState>,
    auth: ProjectAuth,
    RawQuery(query): RawQuery,
) -> Result<Json<Page<AnnotationQueue>>, ApiError> {
    Ok(Json(queues::list(&state.stores.postgres, &auth.project.id, &params(query)).await?))
}

#[utoipa::path(
    post, path = "/api/public/annotation-queues", operation_id = "annotationQueues_createQueue",
    tag = "annotation-queues", security(("basicAuth" = [])), request_body = NewQueue,
    responses(
        (status = 200, body = AnnotationQueue),
        (status = 400, body = ErrorBody, description = "Bad name or description, or a score config that is not the project's"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "The name is taken in the project")
    )
)]
async fn create_queue(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(new): JsonBody<NewQueue>,
) -> Result<Json<AnnotationQueue>, ApiError> {
    Ok(Json(queues::create(&state.stores.postgres, &auth.project.id, new).await?))
}

#[utoipa::path(
    get, path = "/api/public/annotation-queues/{queueId}", operation_id = "annotationQueues_getQueue",
    tag = "annotation-queues", security(("basicAuth" = [])), params(("queueId" = String, Path)),
    responses((status = 200, body = AnnotationQueue), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn get_queue(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(queue_id): Path<String>,
) -> Result<Json<AnnotationQueue>, ApiError> {
    Ok(Json(queues::get(&state.stores.postgres, &auth.project.id, &queue_id).await?))
}

#[utoipa::path(
    get, path = "/api/public/annotation-queues/{queueId}/items", operation_id = "annotationQueues_listQueueItems",
    tag = "annotation-queues", security(("basicAuth" = [])),
    params(("queueId" = String, Path), ("status" = Option<String>, Query, description = "PENDING or COMPLETED"), PageQuery),
    responses(
        (status = 200, body = Page<AnnotationQueueItem>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn list_items(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(queue_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Page<AnnotationQueueItem>>, ApiError> {
    Ok(Json(items::list(&state.stores.postgres, &auth.project.id, &queue_id, &params(query)).await?))
}

#[utoipa::path(
    post, path = "/api/public/annotation-queues/{queueId}/items", operation_id = "annotationQueues_createQueueItem",
    tag = "annotation-queues", security(("basicAuth" = [])), params(("queueId" = String, Path)), request_body = NewItem,
    responses(
        (status = 200, body = AnnotationQueueItem, description = "The new item, or the one the queue already had for the object"),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "No such queue, or no such object in the project")
    )
)]
async fn create_item(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(queue_id): Path<String>,
    JsonBody(new): JsonBody<NewItem>,
) -> Result<Json<AnnotationQueueItem>, ApiError> {
    let stores = &state.stores;
    Ok(Json(items::create(&stores.postgres, &stores.clickhouse, &auth.project.id, &queue_id, new).await?))
}

#[utoipa::path(
    get, path = "/api/public/annotation-queues/{queueId}/items/{itemId}", operation_id = "annotationQueues_getQueueItem",
    tag = "annotation-queues", security(("basicAuth" = [])), params(("queueId" = String, Path), ("itemId" = String, Path)),
    responses((status = 200, body = AnnotationQueueItem), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn get_item(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path((queue_id, item_id)): Path<(String, String)>,
) -> Result<Json<AnnotationQueueItem>, ApiError> {
    Ok(Json(items::get(&state.stores.postgres, &auth.project.id, &queue_id, &item_id).await?))
}

#[utoipa::path(
    patch, path = "/api/public/annotation-queues/{queueId}/items/{itemId}", operation_id = "annotationQueues_updateQueueItem",
    tag = "annotation-queues", security(("basicAuth" = [])), params(("queueId" = String, Path), ("itemId" = String, Path)),
    request_body = ItemPatch,
    responses(
        (status = 200, body = AnnotationQueueItem), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn update_item(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path((queue_id, item_id)): Path<(String, String)>,
    JsonBody(patch): JsonBody<ItemPatch>,
) -> Result<Json<AnnotationQueueItem>, ApiError> {
    let pool = &state.stores.postgres;
    let by = auth.user_id.as_deref();
    Ok(Json(items::update(pool, &auth.project.id, &queue_id, &item_id, patch, by).await?))
}

#[utoipa::path(
    delete, path = "/api/public/annotation-queues/{queueId}/items/{itemId}", operation_id = "annotationQueues_deleteQueueItem",
    tag = "annotation-queues", security(("basicAuth" = [])), params(("queueId" = String, Path), ("itemId" = String, Path)),
    responses((status = 200, body = DeletedItem), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn delete_item(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path((queue_id, item_id)): Path<(String, String)>,
) -> Result<Json<DeletedItem>, ApiError> {
    Ok(Json(items::delete(&state.stores.postgres, &auth.project.id, &queue_id, &item_id).await?))
}

#[utoipa::path(
    post, path = "/api/public/annotation-queues/{queueId}/assignments", operation_id = "annotationQueues_createQueueAssignment",
    tag = "annotation-queues", security(("basicAuth" = [])), params(("queueId" = String, Path)), request_body = AssignmentRequest,
    responses(
        (status = 200, body = Assignment), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody, description = "No such queue, or the user has no access to the project")
    )
)]
async fn create_assignment(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(queue_id): Path<String>,
    JsonBody(request): JsonBody<AssignmentRequest>,
) -> Result<Json<Assignment>, ApiError> {
    Ok(Json(assignments::create(&state.stores.postgres, &auth.project.id, &queue_id, request).await?))
}

#[utoipa::path(
    delete, path = "/api/public/annotation-queues/{queueId}/assignments", operation_id = "annotationQueues_deleteQueueAssignment",
    tag = "annotation-queues", security(("basicAuth" = [])), params(("queueId" = String, Path)), request_body = AssignmentRequest,
    responses(
        (status = 200, body = DeletedAssignment), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn delete_assignment(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(queue_id): Path<String>,
    JsonBody(request): JsonBody<AssignmentRequest>,
) -> Result<Json<DeletedAssignment>, ApiError> {
    Ok(Json(assignments::delete(&state.stores.postgres, &auth.project.id, &queue_id, request).await?))
}

/// The next item for the signed-in person, locked for them for a few minutes (their other lock in
/// the queue is released). Needs `ProjectWrite`: taking an item is the start of writing scores.
#[utoipa::path(
    post, path = "/api/ui/projects/{projectId}/annotation-queues/{queueId}/next", tag = "ui",
    security(("sessionCookie" = [])), params(("projectId" = String, Path), ("queueId" = String, Path)),
    request_body = NextRequest,
    responses(
        (status = 200, body = Next), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn next_item(
    session: UserSession,
    State(state): State<AppState>,
    Path((project_id, queue_id)): Path<(String, String)>,
    JsonBody(request): JsonBody<NextRequest>,
) -> Result<Json<Next>, ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?.require(Action::ProjectWrite)?;
    Ok(Json(work::next(pool, &project_id, &queue_id, &session.user.id, request).await?))
}

#[derive(Serialize, ToSchema)]
struct Progress {
    data: Vec<QueueProgress>,
}

/// Progress of the named queues (`queueIds`, comma-separated, at most 100): items completed of all,
/// per annotator, and who is assigned. Queues that are not the project's are left out.
#[utoipa::path(
    get, path = "/api/ui/projects/{projectId}/annotation-queues/progress", tag = "ui",
    security(("sessionCookie" = [])),
    params(("projectId" = String, Path), ("queueIds" = String, Query, description = "Comma-separated queue ids")),
    responses((status = 200, body = Progress), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn queue_progress(
    session: UserSession,
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Progress>, ApiError> {
    let pool = &state.stores.postgres;
    people::on_project(pool, &session.user.id, &project_id).await?;
    let ids: Vec<String> = params(query)
        .string("queueIds")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .collect();
    Ok(Json(Progress { data: work::progress(pool, &project_id, &ids).await? }))
}
