//! OTLP traces: decoding (protobuf, JSON, gzip) and conversion of spans into events.
//!
//! `decode` turns a request body into an `ExportTraceServiceRequest` whose spans all have valid
//! ids; `convert` turns each span into a v4 event plus the trace-level attributes it carried.
//! The attribute rules follow reference/public-api.md §3 and reference/storage.md §7.3; their key lists are in `keys`.

mod attributes;
mod budget;
mod check;
mod convert;
mod decode;
mod error;
mod ids;
mod io;
mod json;
mod keys;
mod mapping;
mod metadata;
mod types;
mod usage;

#[cfg(test)]
pub(crate) mod tests;

pub use budget::check_resource_budget;
pub use convert::{ConvertContext, ConvertedSpan, TraceAttributes, convert, convert_owned};
pub use decode::{
    DEFAULT_MAX_DECODED_BYTES, Parsed, RejectedSpans, decode, decode_with_limit, parse_or_check, parse_owned,
    parse_with_limit, reject_invalid_spans, validate,
};
pub use error::DecodeError;
pub use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
