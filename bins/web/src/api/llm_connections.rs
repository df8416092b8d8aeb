//! LLM connections (`/api/public/llm-connections…`): thin handlers over
//! `resources::llm_connections`. Reading needs any role on the project; writing, with a person's
//! session, `LlmConnectionsManage` (OWNER, ADMIN) — a project API key may write, as in Langfuse.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use domain::identity::Action;
use resources::Page;
use resources::identity::people;
use resources::llm_connections::{self, LlmConnectionBody, UpsertLlmConnection, Writer};
use storage::audit::Actor;

use super::openapi::ErrorBody;
use super::query::{PageQuery, params};
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list, upsert)).routes(routes!(delete))
}

/// The audit actor, after checking that a person may manage connections.
async fn writer_actor(state: &AppState, auth: &ProjectAuth) -> Result<Actor, ApiError> {
    match &auth.user_id {
        Some(user_id) => {
            people::on_project(&state.stores.postgres, user_id, &auth.project.id)
                .await?
                .require(Action::LlmConnectionsManage)?;
            Ok(Actor::User(user_id.clone()))
        }
        None => Ok(Actor::ProjectKey(auth.public_key.clone())),
    }
}

#[utoipa::path(
    get, path = "/api/public/llm-connections", operation_id = "llmConnections_list",
    tag = "llm-connections", security(("basicAuth" = [])),
    params(PageQuery),
    responses(
        (status = 200, body = Page<LlmConnectionBody>), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody)
    )
)]
async fn list(
    State(state): State<AppState>,
    auth: ProjectAuth,
    RawQuery(query): RawQuery,
) -> Result<Json<Page<LlmConnectionBody>>, ApiError> {
    Ok(Json(llm_connections::list(&state.stores.postgres, &auth.project.id, &params(query)).await?))
}

/// The body, with parser messages that never quote a value: serde's type errors repeat what
/// they were given, and here that may be the API key.
fn parse_upsert(body: &[u8]) -> Result<UpsertLlmConnection, ApiError> {
    serde_json::from_slice(body).map_err(|error| {
        let text = error.to_string();
        let detail = if text.starts_with("missing field") || text.starts_with("unknown variant") {
            text
        } else {
            format!(
                "the body is not an UpsertLlmConnectionRequest ({:?} error at line {} column {})",
                error.classify(),
                error.line(),
                error.column()
            )
        };
        ApiError::bad_request("Invalid request data").with_detail(detail)
    })
}

#[utoipa::path(
    put, path = "/api/public/llm-connections", operation_id = "llmConnections_upsert",
    tag = "llm-connections", security(("basicAuth" = [])),
    request_body = UpsertLlmConnection,
    responses(
        (status = 200, description = "updated", body = LlmConnectionBody),
        (status = 201, description = "created", body = LlmConnectionBody),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)
    )
)]
async fn upsert(
    State(state): State<AppState>,
    auth: ProjectAuth,
    body: Bytes,
) -> Result<(StatusCode, Json<LlmConnectionBody>), ApiError> {
    let body = parse_upsert(&body)?;
    let actor = writer_actor(&state, &auth).await?;
    let writer = Writer { org_id: &auth.project.org_id, actor: &actor };
    let key = state.config.auth.encryption_key.as_ref();
    let (connection, created) =
        llm_connections::upsert(&state.stores.postgres, key, &auth.project.id, writer, body).await?;
    // Evaluators paused when this provider's connection was deleted run again.
    evaluation::pauses::connection_saved(&state.stores.postgres, &auth.project.id, &connection.provider)
        .await?;
    let status = if created { StatusCode::CREATED } else { StatusCode::OK };
    Ok((status, Json(connection)))
}

#[utoipa::path(
    delete, path = "/api/public/llm-connections/{id}", operation_id = "llmConnections_delete",
    tag = "llm-connections", security(("basicAuth" = [])),
    params(("id" = String, Path)),
    responses(
        (status = 200, body = resources::Message), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)
    )
)]
async fn delete(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(id): Path<String>,
) -> Result<Json<resources::Message>, ApiError> {
    let actor = writer_actor(&state, &auth).await?;
    let writer = Writer { org_id: &auth.project.org_id, actor: &actor };
    let provider = llm_connections::delete(&state.stores.postgres, &auth.project.id, writer, &id).await?;
    // The evaluators calling it pause (shown with the reason) rather than fail every execution.
    evaluation::pauses::connection_deleted(&state.stores.postgres, &auth.project.id, &provider).await?;
    Ok(Json(resources::Message { message: "LLM connection successfully deleted" }))
}
