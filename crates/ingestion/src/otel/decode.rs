//! Request decoding for `POST /api/public/otel/v1/traces` (reference/public-api.md §3.1–3.2): content
//! negotiation, gzip with a hard size cap, protobuf or OTLP/JSON, then span id validation.

use std::borrow::Cow;
use std::io::Read;

use bytes::Bytes;

use flate2::read::MultiGzDecoder;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

use super::error::DecodeError;
use super::json;
use crate::depth::protobuf_error;

/// The decoded-size cap [`decode`] applies: upstream's newest limit for OTel trace bodies (16 MiB).
pub const DEFAULT_MAX_DECODED_BYTES: usize = 16 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Protobuf,
    Json,
}

/// Decodes an export request with the default size cap ([`DEFAULT_MAX_DECODED_BYTES`]).
pub fn decode(
    body: &[u8],
    content_type: Option<&str>,
    content_encoding: Option<&str>,
) -> Result<ExportTraceServiceRequest, DecodeError> {
    decode_with_limit(body, content_type, content_encoding, DEFAULT_MAX_DECODED_BYTES)
}

/// Decodes an export request. `max_decoded_bytes` bounds the body after decompression, so a gzip
/// bomb cannot exhaust memory. An empty request (no `resourceSpans`) is valid and has no spans.
pub fn decode_with_limit(
    body: &[u8],
    content_type: Option<&str>,
    content_encoding: Option<&str>,
    max_decoded_bytes: usize,
) -> Result<ExportTraceServiceRequest, DecodeError> {
    let request = parse_with_limit(body, content_type, content_encoding, max_decoded_bytes)?;
    validate(&request)?;
    Ok(request)
}

/// [`decode_with_limit`] without the span-id check, for callers that drop invalid spans one by
/// one ([`reject_invalid_spans`]) instead of refusing the whole export.
pub fn parse_with_limit(
    body: &[u8],
    content_type: Option<&str>,
    content_encoding: Option<&str>,
    max_decoded_bytes: usize,
) -> Result<ExportTraceServiceRequest, DecodeError> {
    let format = format(content_type)?;
    let body = decompress(body, content_encoding, max_decoded_bytes)?;
    match format {
        Format::Protobuf => ExportTraceServiceRequest::decode(body.as_ref())
            .map_err(|e| DecodeError::Protobuf(protobuf_error(&e))),
        Format::Json => json::parse(&body),
    }
}

/// [`parse_with_limit`] for a body the caller owns. For a protobuf body it also gives back the
/// export's encoding as sent (after any gzip): storing those bytes spares encoding the decoded
/// export again, which for large exports is a good part of acceptance's CPU time.
pub fn parse_owned(
    body: Bytes,
    content_type: Option<&str>,
    content_encoding: Option<&str>,
    max_decoded_bytes: usize,
) -> Result<(ExportTraceServiceRequest, Option<Bytes>), DecodeError> {
    let format = format(content_type)?;
    let decoded = match decompress(&body, content_encoding, max_decoded_bytes)? {
        // Not compressed: the body itself, shared rather than copied.
        Cow::Borrowed(_) => body.clone(),
        Cow::Owned(decompressed) => Bytes::from(decompressed),
    };
    match format {
        Format::Protobuf => {
            let request = ExportTraceServiceRequest::decode(decoded.as_ref())
                .map_err(|e| DecodeError::Protobuf(protobuf_error(&e)))?;
            Ok((request, Some(decoded)))
        }
        Format::Json => Ok((json::parse(&decoded)?, None)),
    }
}

/// An export as web reads it before accepting it ([`parse_or_check`]).
#[derive(Debug)]
pub enum Parsed {
    /// A protobuf export kept whole as sent, checked without being built: `spans` spans.
    Plain { spans: usize, protobuf: Bytes },
    /// Anything else, decoded ([`parse_owned`]'s answer), for the full checks.
    Decoded(ExportTraceServiceRequest, Option<Bytes>),
}

/// [`parse_owned`] for web: a protobuf export that needs no span dropped and fits
/// `max_resource_copied_bytes` is only checked (`check`), never built; any other comes back
/// decoded, so the full path answers it as before.
pub fn parse_or_check(
    body: Bytes,
    content_type: Option<&str>,
    content_encoding: Option<&str>,
    max_decoded_bytes: usize,
    max_resource_copied_bytes: usize,
) -> Result<Parsed, DecodeError> {
    if format(content_type)? == Format::Protobuf {
        let decoded = match decompress(&body, content_encoding, max_decoded_bytes)? {
            Cow::Borrowed(_) => body,
            Cow::Owned(decompressed) => Bytes::from(decompressed),
        };
        if let Some(spans) = super::check::plain_export_spans(&decoded, max_resource_copied_bytes) {
            return Ok(Parsed::Plain { spans, protobuf: decoded });
        }
        // Decompressed already: decoded as identity from here.
        let (request, protobuf) = parse_owned(decoded, content_type, None, max_decoded_bytes)?;
        return Ok(Parsed::Decoded(request, protobuf));
    }
    let (request, protobuf) = parse_owned(body, content_type, content_encoding, max_decoded_bytes)?;
    Ok(Parsed::Decoded(request, protobuf))
}

/// Spans an export had that could not be kept, for OTLP's partial-success answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedSpans {
    pub count: usize,
    /// The first problem, naming the span.
    pub first: String,
}

/// Removes spans with invalid ids (see [`validate`]) and says how many and why; the rest of the
/// export is kept, as the OTLP partial-success contract allows.
pub fn reject_invalid_spans(request: &mut ExportTraceServiceRequest) -> Option<RejectedSpans> {
    let mut rejected: Option<RejectedSpans> = None;
    for (r, resource_spans) in request.resource_spans.iter_mut().enumerate() {
        for (s, scope_spans) in resource_spans.scope_spans.iter_mut().enumerate() {
            let mut position = 0;
            scope_spans.spans.retain(|span| {
                let p = position;
                position += 1;
                let Some(reason) = invalid_ids(span) else { return true };
                let entry = rejected.get_or_insert_with(|| RejectedSpans {
                    count: 0,
                    first: format!(
                        "resourceSpans[{r}].scopeSpans[{s}].spans[{p}] ({:?}): {reason}",
                        span.name
                    ),
                });
                entry.count += 1;
                false
            });
        }
    }
    rejected
}

/// Substring match, case-insensitive, so `application/json; charset=utf-8` is accepted.
fn format(content_type: Option<&str>) -> Result<Format, DecodeError> {
    let raw = content_type.unwrap_or_default();
    let lower = raw.to_ascii_lowercase();
    if lower.contains("application/x-protobuf") {
        Ok(Format::Protobuf)
    } else if lower.contains("application/json") {
        Ok(Format::Json)
    } else {
        Err(DecodeError::UnsupportedContentType(raw.to_owned()))
    }
}

fn decompress<'a>(
    body: &'a [u8],
    content_encoding: Option<&str>,
    limit: usize,
) -> Result<Cow<'a, [u8]>, DecodeError> {
    let encoding = content_encoding.unwrap_or_default().trim().to_ascii_lowercase();
    if encoding.contains("gzip") {
        // Read one byte past the limit to tell "exactly the limit" from "over it".
        let mut decoded = Vec::with_capacity(body.len().saturating_mul(4).min(limit));
        MultiGzDecoder::new(body)
            .take((limit as u64).saturating_add(1))
            .read_to_end(&mut decoded)
            .map_err(|e| DecodeError::Decompress(e.to_string()))?;
        if decoded.len() > limit {
            return Err(DecodeError::TooLarge { limit });
        }
        return Ok(decoded.into());
    }
    if !(encoding.is_empty() || encoding == "identity") {
        return Err(DecodeError::UnsupportedContentEncoding(encoding));
    }
    if body.len() > limit {
        return Err(DecodeError::TooLarge { limit });
    }
    Ok(body.into())
}

/// Every span needs a 16-byte trace id and an 8-byte span id, not all zero (the OTLP spec calls
/// those invalid); a parent id is empty or 8 bytes. The error names the span by its position.
pub fn validate(request: &ExportTraceServiceRequest) -> Result<(), DecodeError> {
    let mut index = 0;
    for (r, resource_spans) in request.resource_spans.iter().enumerate() {
        for (s, scope_spans) in resource_spans.scope_spans.iter().enumerate() {
            for (p, span) in scope_spans.spans.iter().enumerate() {
                if let Some(reason) = invalid_ids(span) {
                    let path = format!("resourceSpans[{r}].scopeSpans[{s}].spans[{p}], name {:?}", span.name);
                    return Err(DecodeError::InvalidSpan { index, path, reason });
                }
                index += 1;
            }
        }
    }
    Ok(())
}

fn invalid_ids(span: &Span) -> Option<String> {
    super::ids::invalid_id(&span.trace_id, &span.span_id, &span.parent_span_id)
}
