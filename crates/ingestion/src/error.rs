//! Why an ingestion request is refused, in one vocabulary for every entry point. Each kind carries
//! its HTTP status, its gRPC code and the error class the Langfuse SDKs read, here and nowhere
//! else; `web` only turns an [`IngestError`] into its wire form.

use crate::accept::AcceptError;
use crate::batch::{BatchError, EventResult};
use crate::otel::DecodeError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is malformed or breaks a rule; retrying it unchanged cannot succeed.
    InvalidRequest,
    /// It names something the project does not have (a score config).
    NotFound,
    /// The endpoint is not served in this write mode.
    NotServed,
    PayloadTooLarge,
    UnsupportedMediaType,
    /// The ingestion backlog is full: retry after a few seconds.
    Overloaded,
    /// A store is unreachable: retry.
    Unavailable,
    Internal,
}

/// The gRPC status codes ingestion answers with (values as in `google.rpc.Code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum GrpcCode {
    InvalidArgument = 3,
    NotFound = 5,
    ResourceExhausted = 8,
    Unimplemented = 12,
    Internal = 13,
    Unavailable = 14,
}

impl ErrorKind {
    pub fn http_status(self) -> u16 {
        match self {
            Self::InvalidRequest => 400,
            Self::NotFound | Self::NotServed => 404,
            Self::PayloadTooLarge => 413,
            Self::UnsupportedMediaType => 415,
            Self::Overloaded | Self::Unavailable => 503,
            Self::Internal => 500,
        }
    }

    /// Clients retry UNAVAILABLE; the rest are final.
    pub fn grpc_code(self) -> GrpcCode {
        match self {
            Self::InvalidRequest | Self::UnsupportedMediaType => GrpcCode::InvalidArgument,
            Self::NotFound => GrpcCode::NotFound,
            Self::NotServed => GrpcCode::Unimplemented,
            Self::PayloadTooLarge => GrpcCode::ResourceExhausted,
            Self::Overloaded | Self::Unavailable => GrpcCode::Unavailable,
            Self::Internal => GrpcCode::Internal,
        }
    }

    /// The `error` field of the JSON body (reference/public-api.md §5.1).
    pub fn class(self) -> &'static str {
        match self {
            Self::InvalidRequest => "InvalidRequestError",
            Self::NotFound | Self::NotServed => "LangfuseNotFoundError",
            Self::PayloadTooLarge => "PayloadTooLargeError",
            Self::UnsupportedMediaType => "UnsupportedMediaTypeError",
            Self::Overloaded | Self::Unavailable => "ServiceUnavailableError",
            Self::Internal => "An unknown error occurred",
        }
    }

    /// Seconds a client should wait before retrying, when it should.
    pub fn retry_after(self) -> Option<u32> {
        (self == Self::Overloaded).then_some(5)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct IngestError {
    pub kind: ErrorKind,
    /// What the client reads as `message`.
    pub message: String,
    /// What exactly is wrong, shown as `error` in place of the class when set.
    pub detail: Option<String>,
}

impl IngestError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), detail: None }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidRequest, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }

    /// A store cannot be reached; the cause is logged, never shown.
    pub fn unavailable(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "a store is unavailable");
        Self::new(ErrorKind::Unavailable, "Service Unavailable")
    }

    /// A bug or a broken invariant; the cause is logged, never shown.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error");
        Self::new(ErrorKind::Internal, "Internal Server Error")
    }

    fn with_detail(mut self, detail: String) -> Self {
        if !detail.is_empty() {
            self.detail = Some(detail);
        }
        self
    }

    /// A single-object request is all or nothing: its one event's error is the answer.
    pub fn from_event(result: &EventResult) -> Self {
        let kind = match result.status {
            404 => ErrorKind::NotFound,
            _ => ErrorKind::InvalidRequest,
        };
        let message = result.message.clone().unwrap_or_else(|| "Invalid request data".to_owned());
        Self::new(kind, message).with_detail(result.error.clone().unwrap_or_default())
    }
}

impl From<BatchError> for IngestError {
    fn from(error: BatchError) -> Self {
        Self::invalid("Invalid request data").with_detail(error.to_string())
    }
}

impl From<DecodeError> for IngestError {
    fn from(error: DecodeError) -> Self {
        let kind = match error {
            DecodeError::UnsupportedContentType(_) | DecodeError::UnsupportedContentEncoding(_) => {
                ErrorKind::UnsupportedMediaType
            }
            DecodeError::TooLarge { .. } => ErrorKind::PayloadTooLarge,
            _ => ErrorKind::InvalidRequest,
        };
        Self::new(kind, error.to_string())
    }
}

impl From<AcceptError> for IngestError {
    fn from(error: AcceptError) -> Self {
        match error {
            AcceptError::Overloaded { .. } => Self::new(ErrorKind::Overloaded, error.to_string()),
            AcceptError::Storage(cause) => Self::unavailable(cause),
        }
    }
}

impl From<storage::Error> for IngestError {
    fn from(error: storage::Error) -> Self {
        if error.is_unavailable() { Self::unavailable(error) } else { Self::internal(error) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_one_status_code_and_class() {
        let kinds = [
            (ErrorKind::InvalidRequest, 400, GrpcCode::InvalidArgument),
            (ErrorKind::NotFound, 404, GrpcCode::NotFound),
            (ErrorKind::NotServed, 404, GrpcCode::Unimplemented),
            (ErrorKind::PayloadTooLarge, 413, GrpcCode::ResourceExhausted),
            (ErrorKind::UnsupportedMediaType, 415, GrpcCode::InvalidArgument),
            (ErrorKind::Overloaded, 503, GrpcCode::Unavailable),
            (ErrorKind::Unavailable, 503, GrpcCode::Unavailable),
            (ErrorKind::Internal, 500, GrpcCode::Internal),
        ];
        for (kind, status, code) in kinds {
            assert_eq!((kind.http_status(), kind.grpc_code()), (status, code), "{kind:?}");
            assert!(!kind.class().is_empty());
        }
        assert_eq!(ErrorKind::Overloaded.retry_after(), Some(5));
        assert_eq!(ErrorKind::Unavailable.retry_after(), None);
    }

    #[test]
    fn decode_errors_keep_their_status() {
        let unsupported = IngestError::from(DecodeError::UnsupportedContentType("text/plain".into()));
        assert_eq!(unsupported.kind.http_status(), 415);
        assert_eq!(IngestError::from(DecodeError::TooLarge { limit: 1 }).kind.http_status(), 413);
        assert_eq!(IngestError::from(DecodeError::Json("x".into())).kind.http_status(), 400);
    }

    #[test]
    fn an_event_error_becomes_the_request_error() {
        let result = EventResult::not_found("s1".into(), "no such config".into());
        let error = IngestError::from_event(&result);
        assert_eq!((error.kind, error.detail.as_deref()), (ErrorKind::NotFound, Some("no such config")));
        let invalid = IngestError::from_event(&EventResult::invalid("s1".into(), "value: required".into()));
        assert_eq!(
            (invalid.message.as_str(), invalid.kind),
            ("Invalid request data", ErrorKind::InvalidRequest)
        );
    }
}
