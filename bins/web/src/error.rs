//! The JSON error body every endpoint answers with: `{"message": …, "error": …}`, as the Langfuse
//! SDKs expect (reference/public-api.md §5.1).

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// The error class name; omitted for auth failures, as upstream does.
    pub error: Option<&'static str>,
}

impl ApiError {
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::UNAUTHORIZED,
            message: message.into(),
            error: None,
        }
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::FORBIDDEN,
            message: message.into(),
            error: Some("ForbiddenError"),
        }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::NOT_FOUND,
            message: message.into(),
            error: Some("LangfuseNotFoundError"),
        }
    }

    pub fn method_not_allowed() -> Self {
        Self {
            status: StatusCode::METHOD_NOT_ALLOWED,
            message: "Method not allowed".into(),
            error: Some("MethodNotAllowedError"),
        }
    }
}

impl From<storage::Error> for ApiError {
    fn from(error: storage::Error) -> Self {
        tracing::error!(%error, "storage error while serving a request");
        if error.is_unavailable() {
            Self {
                status: StatusCode::SERVICE_UNAVAILABLE,
                message: "Service Unavailable".into(),
                error: Some("ServiceUnavailableError"),
            }
        } else {
            Self {
                status: StatusCode::INTERNAL_SERVER_ERROR,
                message: "Internal Server Error".into(),
                error: Some("An unknown error occurred"),
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = match self.error {
            Some(error) => json!({ "message": self.message, "error": error }),
            None => json!({ "message": self.message }),
        };
        (self.status, Json(body)).into_response()
    }
}
