//! Why an OTLP export could not be decoded; shared by the protobuf and JSON decoders.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("unsupported content type {0:?}: expected application/x-protobuf or application/json")]
    UnsupportedContentType(String),
    #[error("unsupported content encoding {0:?}: expected gzip or identity")]
    UnsupportedContentEncoding(String),
    #[error("failed to decompress request body: {0}")]
    Decompress(String),
    #[error("request body exceeds the {limit} byte limit once decoded")]
    TooLarge { limit: usize },
    #[error("failed to parse OTel protobuf trace: {0}")]
    Protobuf(String),
    #[error("failed to parse OTel JSON trace: {0}")]
    Json(String),
    #[error(
        "OTLP export would copy {copied} bytes of resource attributes into its spans, above the \
         {limit}-byte budget (LANGFUSE_OTEL_RESOURCE_ATTRIBUTES_MAX_COPIED_BYTES): resourceSpans[{index}] \
         has {attributes} bytes of attributes and {spans} spans; send fewer spans per export or \
         smaller resource attributes"
    )]
    ResourceAttributesOverBudget {
        copied: usize,
        limit: usize,
        index: usize,
        attributes: usize,
        spans: usize,
    },
    #[error("invalid span {index} ({path}): {reason}")]
    InvalidSpan { index: usize, path: String, reason: String },
}
