//! Why an evaluators or evaluation-rules request could not be served, in the terms of the SDK's
//! `PublicApiError` (`message`, a stable `code`, optional `details.issues`); web turns each into
//! its status.

use serde::Serialize;
use utoipa::ToSchema;

/// One problem with a request body or query, at a path of field names and indices.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Issue {
    pub code: String,
    pub message: String,
    #[schema(value_type = Vec<Object>)]
    pub path: Vec<serde_json::Value>,
}

/// The SDK's `PublicApiErrorCode`, for the failures this crate decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    InvalidRequest,
    InvalidQuery,
    InvalidBody,
    NotFound,
    Conflict,
    /// A code evaluator: no sandbox runs them yet (501).
    NotImplemented,
    /// The request is valid but what it refers to cannot serve it now (412).
    PreconditionFailed,
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::InvalidRequest | Code::NotImplemented | Code::PreconditionFailed => "invalid_request",
            Code::InvalidQuery => "invalid_query",
            Code::InvalidBody => "invalid_body",
            Code::NotFound => "resource_not_found",
            Code::Conflict => "conflict",
        }
    }

    pub fn status(self) -> u16 {
        match self {
            Code::InvalidRequest | Code::InvalidQuery | Code::InvalidBody => 400,
            Code::NotFound => 404,
            Code::Conflict => 409,
            Code::NotImplemented => 501,
            Code::PreconditionFailed => 412,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{message}")]
    Refused { code: Code, message: String, issues: Vec<Issue> },
    #[error(transparent)]
    Storage(#[from] storage::Error),
}

impl Error {
    pub fn refused(code: Code, message: impl Into<String>) -> Self {
        Self::Refused { code, message: message.into(), issues: Vec::new() }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::refused(Code::NotFound, message)
    }

    pub fn invalid_body(issues: Vec<Issue>) -> Self {
        let message = match issues.as_slice() {
            [one] => format!("Invalid request body: {}", one.message),
            _ => "Invalid request body".to_owned(),
        };
        Self::Refused { code: Code::InvalidBody, message, issues }
    }
}

impl From<sqlx::Error> for Error {
    fn from(error: sqlx::Error) -> Self {
        Self::Storage(error.into())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Collects the problems of one body, each at its path, so a client hears all of them at once.
#[derive(Debug, Default)]
pub struct Issues(pub Vec<Issue>);

impl Issues {
    pub fn add(&mut self, path: &[serde_json::Value], code: &str, message: impl Into<String>) {
        self.0.push(Issue { code: code.to_owned(), message: message.into(), path: path.to_vec() });
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Ok` when nothing was found, else the 400 listing every issue.
    pub fn finish(self) -> Result<()> {
        if self.0.is_empty() { Ok(()) } else { Err(Error::invalid_body(self.0)) }
    }
}

/// A path of field names and indices (an array of JSON values, as the SDK's issues carry them).
#[macro_export]
macro_rules! path {
    ($($part:expr),* $(,)?) => { [$(serde_json::Value::from($part)),*] };
}
