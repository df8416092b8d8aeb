//! The public-API resources that live in PostgreSQL and are untouched by the v4 migration (spec
//! part 1): prompts, datasets, comments, score configs, models and media records.
//!
//! Each module takes parsed request bodies and query parameters, applies the resource's rules in a
//! transaction where several rows must change together, and answers with the JSON body the SDKs
//! parse. Every query is scoped by project id: a key of one project never reaches another's rows.

pub mod comments;
pub mod datasets;
pub mod media;
pub mod models;
pub mod prompts;
pub mod score_configs;

use reads::ReadError;

/// Why a request on a resource could not be served.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request is wrong; the message says how (a 400).
    #[error("{0}")]
    BadRequest(String),
    /// What was asked for does not exist in this project (a 404).
    #[error("{0}")]
    NotFound(String),
    /// The request conflicts with what is stored (a 409).
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Storage(#[from] storage::Error),
}

impl Error {
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::BadRequest(message.into())
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::NotFound(message.into())
    }
}

impl From<sqlx::Error> for Error {
    fn from(error: sqlx::Error) -> Self {
        Self::Storage(error.into())
    }
}

/// Query parameters are parsed by the same rules as the read APIs'.
impl From<ReadError> for Error {
    fn from(error: ReadError) -> Self {
        match error {
            ReadError::BadRequest(message) => Self::BadRequest(message),
            ReadError::NotFound(message) => Self::NotFound(message),
            ReadError::Storage(error) => Self::Storage(error),
            ReadError::Internal(message) => {
                Self::Storage(storage::Error::new(storage::ErrorKind::Internal, message))
            }
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Instants in every resource body: RFC 3339 in UTC with milliseconds, as upstream answers.
pub fn timestamp(at: &chrono::DateTime<chrono::Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
