//! How deeply nested a request may be, and the 400 that says so (docs/limits.md "Nesting and
//! depth").
//!
//! Every tree a client sends is walked recursively somewhere: the parsers themselves, then the
//! OTLP/JSON repairs, `AnyValue` → JSON, metadata flattening, serialisation and drop. None of
//! those walks has its own cap; they are bounded because nothing deeper than these two caps is
//! ever built, both enforced by the parsers (and pinned by tests, so a dependency upgrade or a
//! feature flag that lifts them fails the build's tests instead of a server's stack):
//!
//! - JSON (batch bodies, OTLP/JSON, JSON text inside attributes): serde_json's recursion limit;
//!   the `unbounded_depth` feature must stay off.
//! - Protobuf (OTLP over HTTP and gRPC, and the stored payloads the worker reads back): prost's
//!   recursion limit; the `no-recursion-limit` feature must stay off.
//!
//! Dotted attribute keys are rebuilt into at most 32 levels (`otel::io`), which is not a parser's
//! limit but is bounded the same way.

/// Arrays and objects nested deeper than this are refused (serde_json counts down from 128 and
/// fails on reaching 0).
pub const MAX_JSON_DEPTH: usize = 127;

/// Messages nested deeper than this are refused (prost's `RECURSION_LIMIT`). An OTLP `AnyValue`
/// array costs two levels (`AnyValue` → `ArrayValue`), a kvlist three (→ `KeyValueList` →
/// `KeyValue`).
pub const MAX_PROTOBUF_DEPTH: usize = 100;

/// A serde_json error as the client reads it; nesting past the cap is said in plain words.
pub fn json_error(error: &serde_json::Error) -> String {
    let text = error.to_string();
    if text.starts_with("recursion limit exceeded") {
        format!("JSON nested deeper than {MAX_JSON_DEPTH} levels is not accepted ({text})")
    } else {
        text
    }
}

/// A prost error as the client reads it. Past the cap, prost names every message it was inside,
/// a hundred of them: the plain sentence replaces that.
pub fn protobuf_error(error: &prost::DecodeError) -> String {
    let text = error.to_string();
    if text.ends_with("recursion limit reached") {
        format!("protobuf messages nested deeper than {MAX_PROTOBUF_DEPTH} levels are not accepted")
    } else {
        text
    }
}
