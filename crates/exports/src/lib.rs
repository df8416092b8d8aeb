//! Exports of a project's data (docs/exports.md). `api`: the rules of
//! `/api/public/integrations/blob-storage` and its typed bodies (`model`); `store`: their rows;
//! `schedule`: which window an integration exports next; `job`: the worker's scheduled exports;
//! `source`: the rows of each source, read in bounded chunks; `format`: JSON, CSV, JSONL and
//! Parquet writers (gzip for the text ones); `target`: the customer's bucket (S3, S3-compatible,
//! Azure Blob) and the streamed multipart upload; `batch`: one-off exports of a filtered
//! Observations view to Loupe's own bucket, with progress and a download link.

pub mod api;
pub mod batch;
pub mod format;
pub mod job;
pub mod model;
pub mod schedule;
pub mod source;
pub mod store;
pub mod target;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request is wrong; the message says how (a 400).
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    NotFound(String),
    #[error(transparent)]
    Postgres(#[from] sqlx::Error),
    #[error(transparent)]
    Read(#[from] reads::ReadError),
    /// The target bucket (or Loupe's own) refused or failed: the provider's message.
    #[error("{0}")]
    Target(String),
    #[error("{0}")]
    Internal(String),
}

impl Error {
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::BadRequest(message.into())
    }
}

impl From<object_store::Error> for Error {
    fn from(error: object_store::Error) -> Self {
        // With its causes: a destination the outbound policy refused is named only in them.
        Self::Target(outbound::describe_chain(&error))
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
