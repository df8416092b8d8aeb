use std::fmt;

/// What a caller can do about a storage failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    NotFound,
    /// A uniqueness or ownership rule was violated (e.g. a public key owned by another project).
    Conflict,
    /// The store could not be reached or timed out; retrying later may succeed.
    Unavailable,
    /// The store answered with an error that retrying will not fix (bad SQL, bad schema, …).
    Internal,
}

#[derive(Debug, thiserror::Error)]
pub struct Error {
    pub kind: ErrorKind,
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), source: None }
    }

    pub fn with_source(
        kind: ErrorKind,
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self { kind, message: message.into(), source: Some(source.into()) }
    }

    pub fn is_unavailable(&self) -> bool {
        self.kind == ErrorKind::Unavailable
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            Some(source) => write!(f, "{}: {source}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl From<sqlx::Error> for Error {
    fn from(e: sqlx::Error) -> Self {
        let kind = match &e {
            sqlx::Error::RowNotFound => ErrorKind::NotFound,
            sqlx::Error::Database(db) if db.is_unique_violation() => ErrorKind::Conflict,
            sqlx::Error::Database(db) if db.is_foreign_key_violation() => ErrorKind::NotFound,
            sqlx::Error::Io(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Tls(_) => ErrorKind::Unavailable,
            _ => ErrorKind::Internal,
        };
        Self::with_source(kind, "postgres", e)
    }
}

impl From<::clickhouse::error::Error> for Error {
    fn from(e: ::clickhouse::error::Error) -> Self {
        use ::clickhouse::error::Error as E;
        let kind = match &e {
            E::Network(_) | E::TimedOut => ErrorKind::Unavailable,
            // The server gave up on a statement past its `max_execution_time`: retrying later may
            // succeed, as with a client-side timeout.
            E::BadResponse(text) if text.contains("Code: 159.") => ErrorKind::Unavailable,
            E::RowNotFound => ErrorKind::NotFound,
            _ => ErrorKind::Internal,
        };
        Self::with_source(kind, "clickhouse", e)
    }
}
