//! JSON request bodies for the resource endpoints. axum's own `Json` answers a bad body with
//! plain text; SDKs expect the JSON error shape, and operators a message that says what is wrong.

use axum::extract::{FromRequest, Request};
use bytes::Bytes;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// Resource bodies are small; anything above this is a mistake, not a prompt or a dataset item.
const MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, ApiError> {
        let body: Bytes = crate::ingest::read_body(request.into_body(), MAX_BODY_BYTES).await?;
        parse(&body).map(JsonBody)
    }
}

pub fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body)
        .map_err(|error| ApiError::bad_request("Invalid request data").with_detail(error.to_string()))
}

impl From<resources::Error> for ApiError {
    fn from(error: resources::Error) -> Self {
        match error {
            resources::Error::BadRequest(message) => ApiError::bad_request(message),
            resources::Error::NotFound(message) => ApiError::not_found(message),
            resources::Error::Conflict(message) => {
                ApiError::new(axum::http::StatusCode::CONFLICT, message, "LangfuseConflictError")
            }
            resources::Error::InvalidBody(detail) => {
                ApiError::bad_request("Invalid request data").with_detail(detail)
            }
            resources::Error::Mismatch { message, fields } => {
                ApiError { fields, ..ApiError::bad_request(message) }
            }
            resources::Error::Forbidden(message) => ApiError::forbidden(message),
            resources::Error::TooLarge(message) => ApiError::payload_too_large(message),
            resources::Error::Storage(error) => error.into(),
        }
    }
}

/// A JSON body that may be left out (an empty body is `T::default()`), as a key create request is.
pub struct OptionalJsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Default> FromRequest<S> for OptionalJsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, ApiError> {
        let body: Bytes = crate::ingest::read_body(request.into_body(), MAX_BODY_BYTES).await?;
        if body.trim_ascii().is_empty() {
            return Ok(Self(T::default()));
        }
        parse(&body).map(OptionalJsonBody)
    }
}
