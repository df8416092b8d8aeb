//! Evaluators (`/api/public/v2/evaluators…`): thin handlers over `evaluation::evaluators`. Errors
//! answer in the SDK's `PublicApiError` shape (`message`, `code`, `details.issues`), with our
//! usual `error` beside them; code evaluators answer 501 (docs/evaluators.md).

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::Serialize;
use serde_json::Value;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use evaluation::evaluators::{self, Deleted, EvaluatorBody, VersionBody};
use evaluation::page::{self, CursorPage};
use evaluation::{Code, Issue};

use crate::auth::ProjectAuth;
use crate::error::ApiError;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(fetch, update, remove))
        .routes(routes!(versions))
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Details {
    pub issues: Vec<Issue>,
}

/// The SDK's `PublicApiError`, plus the `error` every Loupe error carries.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PublicApiError {
    pub message: String,
    pub code: &'static str,
    pub error: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Details>,
}

/// A refusal of the evaluation routes, in the SDK's error shape.
pub struct EvalError(StatusCode, PublicApiError);

impl IntoResponse for EvalError {
    fn into_response(self) -> Response {
        (self.0, Json(self.1)).into_response()
    }
}

fn error_class(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "InvalidRequestError",
        401 => "UnauthorizedError",
        403 => "AccessDeniedError",
        404 => "LangfuseNotFoundError",
        409 => "ConflictError",
        412 => "PreconditionFailedError",
        501 => "NotImplementedError",
        503 => "ServiceUnavailableError",
        _ => "InternalServerError",
    }
}

impl From<evaluation::Error> for EvalError {
    fn from(error: evaluation::Error) -> Self {
        match error {
            evaluation::Error::Refused { code, message, issues } => {
                let status = StatusCode::from_u16(code.status()).unwrap_or(StatusCode::BAD_REQUEST);
                let details = (!issues.is_empty()).then_some(Details { issues });
                EvalError(
                    status,
                    PublicApiError { message, code: code.as_str(), error: error_class(status), details },
                )
            }
            evaluation::Error::Storage(error) => ApiError::from(error).into(),
        }
    }
}

impl From<ApiError> for EvalError {
    fn from(error: ApiError) -> Self {
        let code = match error.status.as_u16() {
            401 => "authentication_failed",
            403 => "access_denied",
            404 => "resource_not_found",
            400 => "invalid_request",
            405 => "method_not_allowed",
            429 => "rate_limited",
            _ => "internal_error",
        };
        EvalError(
            error.status,
            PublicApiError { message: error.message, code, error: error_class(error.status), details: None },
        )
    }
}

/// The caller's project, or the SDK-shaped refusal.
pub fn authorized(auth: Result<ProjectAuth, ApiError>) -> Result<ProjectAuth, EvalError> {
    auth.map_err(EvalError::from)
}

/// A JSON body, or 400 `invalid_body` saying why it is not one.
pub fn json(body: &Bytes) -> Result<Value, EvalError> {
    serde_json::from_slice(body).map_err(|e| {
        EvalError::from(evaluation::Error::Refused {
            code: Code::InvalidBody,
            message: format!("Invalid request body: {e}"),
            issues: vec![Issue { code: "invalid_json".into(), message: e.to_string(), path: vec![] }],
        })
    })
}

#[utoipa::path(
    post, path = "/api/public/v2/evaluators", operation_id = "evaluators_create",
    tag = "evaluators", security(("basicAuth" = [])),
    request_body(content = Object),
    responses(
        (status = 200, body = EvaluatorBody), (status = 400, body = PublicApiError),
        (status = 401, body = PublicApiError), (status = 501, body = PublicApiError)
    )
)]
async fn create(
    State(state): State<AppState>,
    auth: Result<ProjectAuth, ApiError>,
    body: Bytes,
) -> Result<Json<EvaluatorBody>, EvalError> {
    let auth = authorized(auth)?;
    let body = json(&body)?;
    Ok(Json(
        evaluators::create(&state.stores.postgres, &auth.project.id, auth.user_id.as_deref(), &body).await?,
    ))
}

#[utoipa::path(
    get, path = "/api/public/v2/evaluators", operation_id = "evaluators_list",
    tag = "evaluators", security(("basicAuth" = [])),
    params(("limit" = Option<i64>, Query), ("cursor" = Option<String>, Query)),
    responses((status = 200, body = CursorPage<EvaluatorBody>), (status = 400, body = PublicApiError), (status = 401, body = PublicApiError))
)]
async fn list(
    State(state): State<AppState>,
    auth: Result<ProjectAuth, ApiError>,
    RawQuery(query): RawQuery,
) -> Result<Json<CursorPage<EvaluatorBody>>, EvalError> {
    let auth = authorized(auth)?;
    let query = page::parse_query(query.as_deref())?;
    Ok(Json(evaluators::list(&state.stores.postgres, &auth.project.id, &query).await?))
}

#[utoipa::path(
    get, path = "/api/public/v2/evaluators/{evaluatorId}", operation_id = "evaluators_get",
    tag = "evaluators", security(("basicAuth" = [])),
    params(("evaluatorId" = String, Path)),
    responses((status = 200, body = EvaluatorBody), (status = 401, body = PublicApiError), (status = 404, body = PublicApiError))
)]
async fn fetch(
    State(state): State<AppState>,
    auth: Result<ProjectAuth, ApiError>,
    Path(id): Path<String>,
) -> Result<Json<EvaluatorBody>, EvalError> {
    let auth = authorized(auth)?;
    Ok(Json(evaluators::get(&state.stores.postgres, &auth.project.id, &id).await?))
}

#[utoipa::path(
    patch, path = "/api/public/v2/evaluators/{evaluatorId}", operation_id = "evaluators_update",
    tag = "evaluators", security(("basicAuth" = [])),
    params(("evaluatorId" = String, Path)), request_body(content = Object),
    responses(
        (status = 200, body = EvaluatorBody), (status = 400, body = PublicApiError),
        (status = 401, body = PublicApiError), (status = 404, body = PublicApiError)
    )
)]
async fn update(
    State(state): State<AppState>,
    auth: Result<ProjectAuth, ApiError>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<EvaluatorBody>, EvalError> {
    let auth = authorized(auth)?;
    let body = json(&body)?;
    Ok(Json(
        evaluators::update(&state.stores.postgres, &auth.project.id, &id, auth.user_id.as_deref(), &body)
            .await?,
    ))
}

#[utoipa::path(
    delete, path = "/api/public/v2/evaluators/{evaluatorId}", operation_id = "evaluators_delete",
    tag = "evaluators", security(("basicAuth" = [])),
    params(("evaluatorId" = String, Path)),
    responses((status = 200, body = Deleted), (status = 401, body = PublicApiError), (status = 404, body = PublicApiError))
)]
async fn remove(
    State(state): State<AppState>,
    auth: Result<ProjectAuth, ApiError>,
    Path(id): Path<String>,
) -> Result<Json<Deleted>, EvalError> {
    let auth = authorized(auth)?;
    Ok(Json(evaluators::delete(&state.stores.postgres, &auth.project.id, &id).await?))
}

#[utoipa::path(
    get, path = "/api/public/v2/evaluators/{evaluatorId}/versions", operation_id = "evaluators_listVersions",
    tag = "evaluators", security(("basicAuth" = [])),
    params(("evaluatorId" = String, Path), ("limit" = Option<i64>, Query), ("cursor" = Option<String>, Query)),
    responses((status = 200, body = CursorPage<VersionBody>), (status = 401, body = PublicApiError), (status = 404, body = PublicApiError))
)]
async fn versions(
    State(state): State<AppState>,
    auth: Result<ProjectAuth, ApiError>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<CursorPage<VersionBody>>, EvalError> {
    let auth = authorized(auth)?;
    let query = page::parse_query(query.as_deref())?;
    Ok(Json(evaluators::versions(&state.stores.postgres, &auth.project.id, &id, &query).await?))
}
