//! Prompts v2 (`/api/public/v2/prompts…`): thin handlers over `resources::prompts`. Folder-style
//! names arrive URL-encoded (`team%2Fsummarise`) in one path segment and are decoded by the router.

use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::routing::{get, patch};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::Value;

use reads::Params;
use resources::prompts::{self, NewPrompt, PRODUCTION, Selector};

use super::body::JsonBody;
use super::query::params;
use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/public/v2/prompts", get(list).post(create))
        .route("/api/public/v2/prompts/{name}", get(fetch).delete(remove))
        .route("/api/public/v2/prompts/{name}/versions/{version}", patch(update_labels))
}

/// `version` or `label`, never both; `None` when neither is given.
fn selector(params: &Params) -> Result<Option<Selector>, ApiError> {
    let version = params.int("version", 0, 1, i64::from(i32::MAX))?;
    match (version, params.string("label")) {
        (0, None) => Ok(None),
        (0, Some(label)) => Ok(Some(Selector::Label(label))),
        (version, None) => Ok(Some(Selector::Version(version as i32))),
        (_, Some(_)) => Err(ApiError::bad_request("Specify either `version` or `label`, not both")),
    }
}

async fn fetch(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let params = params(query);
    let selector = selector(&params)?.unwrap_or_else(|| Selector::Label(PRODUCTION.to_owned()));
    let resolve = params.bool("resolve")?.unwrap_or(true);
    let prompt = prompts::get(&state.stores.postgres, &auth.project.id, &name, &selector, resolve).await?;
    Ok(Json(prompt))
}

async fn list(
    State(state): State<AppState>,
    auth: ProjectAuth,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(prompts::list(&state.stores.postgres, &auth.project.id, &params(query)).await?))
}

async fn create(
    State(state): State<AppState>,
    auth: ProjectAuth,
    JsonBody(new): JsonBody<NewPrompt>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let prompt = prompts::create(&state.stores.postgres, &auth.project.id, new).await?;
    Ok((StatusCode::CREATED, Json(prompt)))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NewLabels {
    new_labels: Vec<String>,
}

async fn update_labels(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path((name, version)): Path<(String, String)>,
    JsonBody(body): JsonBody<NewLabels>,
) -> Result<Json<Value>, ApiError> {
    let version: i32 = version.parse().map_err(|_| {
        ApiError::bad_request(format!("`version` must be a positive integer, got `{version}`"))
    })?;
    let prompt =
        prompts::update_labels(&state.stores.postgres, &auth.project.id, &name, version, body.new_labels)
            .await?;
    Ok(Json(prompt))
}

async fn remove(
    State(state): State<AppState>,
    auth: ProjectAuth,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<StatusCode, ApiError> {
    let selector = selector(&params(query))?;
    prompts::delete(&state.stores.postgres, &auth.project.id, &name, selector).await?;
    Ok(StatusCode::NO_CONTENT)
}
