//! Comments (`/api/public/comments…`): thin handlers over `resources::comments`.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use resources::Page;
use resources::comments::{self, Comment, CreatedComment, NewComment};

use super::body::JsonBody;
use super::openapi::ErrorBody;
use super::query::{PageQuery, params};
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list, create)).routes(routes!(fetch))
}

#[utoipa::path(
    post, path = "/api/public/comments", operation_id = "comments_create",
    tag = "comments", security(("basicAuth" = [])),
    request_body = NewComment,
    responses(
        (status = 200, body = CreatedComment), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "The object it names is not (yet) in the project")
    )
)]
async fn create(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(mut new): JsonBody<NewComment>,
) -> Result<Json<CreatedComment>, ApiError> {
    // A signed-in person writes as themselves: the author is who they are, not what the body says.
    if let Some(user_id) = auth.user_id {
        new.author_user_id = Some(user_id);
    }
    let stores = &state.stores;
    Ok(Json(comments::create(&stores.postgres, &stores.clickhouse, &auth.project.id, new).await?))
}

#[utoipa::path(
    get, path = "/api/public/comments", operation_id = "comments_get",
    tag = "comments", security(("basicAuth" = [])),
    params(
        ("objectType" = Option<String>, Query, description = "TRACE, OBSERVATION, SESSION or PROMPT"),
        ("objectId" = Option<String>, Query, description = "Needs `objectType`"),
        ("authorUserId" = Option<String>, Query),
        PageQuery,
    ),
    responses(
        (status = 200, body = Page<Comment>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody)
    )
)]
async fn list(
    State(state): State<AppState>,
    auth: ProjectAuth,
    RawQuery(query): RawQuery,
) -> Result<Json<Page<Comment>>, ApiError> {
    let stores = &state.stores;
    Ok(Json(comments::list(&stores.postgres, &stores.clickhouse, &auth.project.id, &params(query)).await?))
}

#[utoipa::path(
    get, path = "/api/public/comments/{commentId}", operation_id = "comments_getById",
    tag = "comments", security(("basicAuth" = [])),
    params(("commentId" = String, Path)),
    responses(
        (status = 200, body = Comment), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn fetch(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(comment_id): Path<String>,
) -> Result<Json<Comment>, ApiError> {
    Ok(Json(comments::get(&state.stores.postgres, &auth.project.id, &comment_id).await?))
}
