//! The JSON error body every endpoint answers with: `{"message": …, "error": …}`, as the Langfuse
//! SDKs expect (reference/public-api.md §5.1).

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use ingestion::error::IngestError;
use reads::ReadError;
use serde::Serialize;

/// The error body of every endpoint (reference/public-api.md §5.1).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub message: String,
    /// The error class, or what exactly is wrong; absent on authentication failures, as upstream.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where a body is wrong, when the endpoint can say it per field (dataset items that do not
    /// match the dataset's schemas); absent otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<resources::FieldError>,
}

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// The error class name; omitted for auth failures, as upstream does.
    pub error: Option<&'static str>,
    /// Seconds, for 503s a client should retry.
    pub retry_after: Option<u32>,
    /// Shown as `error` instead of the class name when set.
    pub detail: Option<String>,
    /// Shown as `fields` when not empty.
    pub fields: Vec<resources::FieldError>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>, error: &'static str) -> Self {
        Self {
            status,
            message: message.into(),
            error: Some(error),
            retry_after: None,
            detail: None,
            fields: Vec::new(),
        }
    }

    /// Replaces the error class with a description of what exactly is wrong (upstream puts the
    /// validation details in `error`).
    pub fn with_detail(mut self, detail: String) -> Self {
        if !detail.is_empty() {
            self.detail = Some(detail);
        }
        self
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message, "InvalidRequestError")
    }

    pub fn payload_too_large(message: impl Into<String>) -> Self {
        Self::new(StatusCode::PAYLOAD_TOO_LARGE, message, "PayloadTooLargeError")
    }

    pub fn internal(message: impl Into<String>) -> Self {
        tracing::error!(message = %message.into(), "internal error");
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error", "An unknown error occurred")
    }

    pub fn unavailable() -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable", "ServiceUnavailableError")
    }

    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::UNAUTHORIZED,
            message: message.into(),
            error: None,
            retry_after: None,
            detail: None,
            fields: Vec::new(),
        }
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, message, "ForbiddenError")
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message, "LangfuseNotFoundError")
    }

    pub fn method_not_allowed() -> Self {
        Self::new(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed", "MethodNotAllowedError")
    }
}

impl From<storage::Error> for ApiError {
    fn from(error: storage::Error) -> Self {
        tracing::error!(%error, "storage error while serving a request");
        if error.is_unavailable() {
            Self::unavailable()
        } else {
            Self::new(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error", "An unknown error occurred")
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let error = self.detail.or_else(|| self.error.map(str::to_owned));
        let body = ErrorBody { message: self.message, error, fields: self.fields };
        let mut response = (self.status, Json(body)).into_response();
        if let Some(seconds) = self.retry_after {
            response.headers_mut().insert(axum::http::header::RETRY_AFTER, seconds.into());
        }
        response
    }
}

impl From<ReadError> for ApiError {
    fn from(error: ReadError) -> Self {
        match error {
            ReadError::BadRequest(message) => ApiError::bad_request(message),
            ReadError::NotFound(message) => ApiError::not_found(message),
            ReadError::Storage(error) => error.into(),
            ReadError::Internal(message) => ApiError::internal(message),
        }
    }
}

impl From<IngestError> for ApiError {
    fn from(error: IngestError) -> Self {
        let kind = error.kind;
        let status = StatusCode::from_u16(kind.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        Self {
            status,
            message: error.message,
            error: Some(kind.class()),
            retry_after: kind.retry_after(),
            detail: error.detail,
            fields: Vec::new(),
        }
    }
}
