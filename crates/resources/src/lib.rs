//! The public-API resources that live in PostgreSQL and are untouched by the v4 migration (spec
//! part 1): prompts, datasets, comments, score configs, models and media records.
//!
//! Each module takes parsed request bodies and query parameters, applies the resource's rules in a
//! transaction where several rows must change together, and answers with the typed body the SDKs
//! parse (`Serialize` for the wire, `ToSchema` for the OpenAPI document web serves), so a change of
//! shape is a change of type. Every query is scoped by project id: a key of one project never reaches another's rows.

pub mod annotation_queues;
pub mod comments;
pub mod dashboards;
pub mod datasets;
pub mod identity;
pub mod llm_connections;
pub mod media;
pub mod models;
mod page;
pub mod prompts;
pub mod public_links;
pub mod retention;
pub mod score_configs;

use reads::ReadError;
use serde::Serialize;
use utoipa::ToSchema;

pub use page::{Page, PageMeta};

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
    /// The body is not the JSON the endpoint takes; the parser's words say where (a 400 whose
    /// `error` carries them, as upstream's validation errors do).
    #[error("Invalid request data: {0}")]
    InvalidBody(String),
    /// An item that does not match its dataset's JSON Schemas (a 400 whose body also lists
    /// `fields`: where each mismatch is, for the UI to show at the field).
    #[error("{message}")]
    Mismatch { message: String, fields: Vec<FieldError> },
    /// A signed media URL that does not open what it names, or no longer does (a 403).
    #[error("{0}")]
    Forbidden(String),
    /// More bytes than were announced (a 413).
    #[error("{0}")]
    TooLarge(String),
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

/// One place a request body is wrong: the body key (`input`), the JSON Pointer inside its value
/// (`/question`; empty for the value itself) and what is wrong there.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FieldError {
    pub field: String,
    pub path: String,
    pub message: String,
}

/// The answer of an endpoint that has nothing to return but that it did it.
#[derive(Debug, Serialize, ToSchema)]
pub struct Message {
    pub message: &'static str,
}

/// Instants in every resource body: RFC 3339 in UTC with milliseconds, as upstream answers.
pub fn timestamp(at: &chrono::DateTime<chrono::Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
