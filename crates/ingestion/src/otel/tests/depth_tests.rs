//! Nesting (crate::depth): far past the caps an export is a clear 400, never a stack overflow
//! (these tests overflow the test thread's stack if a parser's cap is lifted); up to the caps it
//! decodes, converts, and what web stores for it decodes again in the worker.

use prost::Message;
use prost::encoding::{WireType, encode_key, encode_varint};

use super::build::{SPAN_ID, TRACE_ID, one, root, s};
use crate::depth::{MAX_JSON_DEPTH, MAX_PROTOBUF_DEPTH};
use crate::error::IngestError;
use crate::otel::{DecodeError, ExportTraceServiceRequest, convert, decode};

const DEEP: usize = 100_000;
const PROTOBUF: Option<&str> = Some("application/x-protobuf");
const JSON: Option<&str> = Some("application/json");

/// Protobuf built from the inside out, bytes in reverse, because encoding a message this deep
/// with prost would itself recurse once per level.
#[derive(Default)]
struct Inside(Vec<u8>);

impl Inside {
    /// Makes everything so far the payload of length-delimited `field`.
    fn wrap(&mut self, field: u32) {
        let mut header = Vec::new();
        encode_key(field, WireType::LengthDelimited, &mut header);
        encode_varint(self.0.len() as u64, &mut header);
        self.0.extend(header.iter().rev());
    }

    /// Adds length-delimited `field` holding `bytes` before everything so far.
    fn field(&mut self, field: u32, bytes: &[u8]) {
        let mut encoded = Vec::new();
        encode_key(field, WireType::LengthDelimited, &mut encoded);
        encode_varint(bytes.len() as u64, &mut encoded);
        encoded.extend_from_slice(bytes);
        self.0.extend(encoded.iter().rev());
    }

    /// An `AnyValue` string nested in `levels` arrays (field numbers from the OTLP protos).
    fn nested_arrays(levels: usize) -> Self {
        let mut value = Self::default();
        value.field(1, b"leaf"); // AnyValue.string_value
        for _ in 0..levels {
            value.wrap(1); // ArrayValue.values
            value.wrap(5); // AnyValue.array_value
        }
        value
    }

    /// A request whose one span has the attribute `deep` holding this `AnyValue`.
    fn in_span_attribute(mut self) -> Vec<u8> {
        self.wrap(2); // KeyValue.value
        self.field(1, b"deep"); // KeyValue.key
        self.wrap(9); // Span.attributes
        self.field(2, &SPAN_ID); // Span.span_id
        self.field(1, &TRACE_ID); // Span.trace_id
        self.wrap(2); // ScopeSpans.spans
        self.wrap(2); // ResourceSpans.scope_spans
        self.wrap(1); // ExportTraceServiceRequest.resource_spans
        let mut bytes = self.0;
        bytes.reverse();
        bytes
    }
}

fn nested_json_arrays(levels: usize) -> String {
    format!("{}{}", "[".repeat(levels), "]".repeat(levels))
}

#[test]
fn protobuf_nested_a_hundred_thousand_levels_is_a_clear_400() {
    let body = Inside::nested_arrays(DEEP).in_span_attribute();
    let error = decode(&body, PROTOBUF, None).unwrap_err();
    assert_eq!(
        error,
        DecodeError::Protobuf(format!(
            "protobuf messages nested deeper than {MAX_PROTOBUF_DEPTH} levels are not accepted"
        ))
    );
    assert_eq!(IngestError::from(error).kind.http_status(), 400);
}

/// Request → ResourceSpans → ScopeSpans → Span → KeyValue → AnyValue is five levels below the
/// request, and each array two more: prost's cap admits 47 arrays here, and the value converts.
#[test]
fn protobuf_nesting_up_to_the_cap_decodes_and_converts() {
    let deepest = (MAX_PROTOBUF_DEPTH - 5) / 2;
    let request = decode(&Inside::nested_arrays(deepest).in_span_attribute(), PROTOBUF, None).unwrap();
    let error = decode(&Inside::nested_arrays(deepest + 1).in_span_attribute(), PROTOBUF, None).unwrap_err();
    assert!(error.to_string().contains("nested deeper than"), "{error}");

    let converted = convert(&request, &super::build::context());
    let stored = &converted[0].event.metadata["attributes.deep"];
    assert_eq!(stored, &format!("{}\"leaf\"{}", "[".repeat(deepest), "]".repeat(deepest)));
}

#[test]
fn otlp_json_nested_a_hundred_thousand_levels_is_a_clear_400() {
    let deep_value = format!(
        "{}{{\"stringValue\":\"leaf\"}}{}",
        r#"{"arrayValue":{"values":["#.repeat(DEEP),
        "]}}".repeat(DEEP)
    );
    for body in [
        format!(r#"{{"resourceSpans":{}}}"#, nested_json_arrays(DEEP)),
        otlp_json(Position::Span, &deep_value),
    ] {
        let error = decode(body.as_bytes(), JSON, None).unwrap_err();
        let text = error.to_string();
        assert!(text.contains(&format!("JSON nested deeper than {MAX_JSON_DEPTH} levels")), "{text}");
        assert_eq!(IngestError::from(error).kind.http_status(), 400);
    }
}

/// Where an attribute can sit in an OTLP/JSON export, each at its own depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Position {
    Resource,
    Scope,
    Span,
    SpanEvent,
    Link,
}

const POSITIONS: [Position; 5] =
    [Position::Resource, Position::Scope, Position::Span, Position::SpanEvent, Position::Link];

/// An OTLP/JSON export with the attribute `deep` = `value` at `position`.
fn otlp_json(position: Position, value: &str) -> String {
    let attributes = format!(r#"[{{"key":"deep","value":{value}}}]"#);
    let none = "[]".to_owned();
    let at = |p: Position| if p == position { &attributes } else { &none };
    let ids = format!(r#""traceId":"{}","spanId":"{}""#, hex::encode(TRACE_ID), hex::encode(SPAN_ID));
    format!(
        r#"{{"resourceSpans":[{{"resource":{{"attributes":{}}},"scopeSpans":[{{"scope":{{"name":"s","attributes":{}}},"spans":[{{{ids},"name":"n","attributes":{},"events":[{{"name":"e","attributes":{}}}],"links":[{{{ids},"attributes":{}}}]}}]}}]}}]}}"#,
        at(Position::Resource),
        at(Position::Scope),
        at(Position::Span),
        at(Position::SpanEvent),
        at(Position::Link),
    )
}

fn nested_kvlists(levels: usize) -> String {
    format!(
        "{}{{\"stringValue\":\"leaf\"}}{}",
        r#"{"kvlistValue":{"values":[{"key":"k","value":"#.repeat(levels),
        "}]}}".repeat(levels)
    )
}

/// OTLP/JSON is capped by JSON depth, protobuf by message depth, and web stores an OTLP/JSON
/// export as protobuf: if the deepest JSON it accepts made messages deeper than prost's cap, the
/// worker could not decode what was acknowledged. Kvlists are the most message levels per JSON
/// level (three for four); the resource is the shallowest place for an attribute in JSON.
#[test]
fn the_deepest_otlp_json_accepted_is_stored_as_protobuf_the_worker_decodes() {
    for position in POSITIONS {
        let accepted =
            |levels: usize| decode(otlp_json(position, &nested_kvlists(levels)).as_bytes(), JSON, None);
        let deepest = (0..MAX_JSON_DEPTH).take_while(|levels| accepted(*levels).is_ok()).last().unwrap();
        assert!(deepest >= 25, "{position:?}: only {deepest} levels");
        let request = accepted(deepest).unwrap();
        let stored = request.encode_to_vec();
        let decoded = ExportTraceServiceRequest::decode(stored.as_slice())
            .unwrap_or_else(|e| panic!("{position:?}, {deepest} kvlists: {e}"));
        assert_eq!(decoded, request);
        assert_eq!(convert(&decoded, &super::build::context()).len(), 1);
    }
}

/// JSON text in string attributes is parsed by several rules (metadata, tags, tools, Logfire
/// events, the AI SDK prompt); text nested past the cap is not JSON to them and is kept as text.
#[test]
fn attribute_text_nested_a_hundred_thousand_levels_is_kept_as_text() {
    let deep_arrays = nested_json_arrays(DEEP);
    let deep_objects = format!("{}1{}", r#"{"tool_calls":"#.repeat(DEEP), "}".repeat(DEEP));
    let converted = one(root(
        "s",
        vec![
            s("langfuse.trace.metadata", &deep_objects),
            s("langfuse.observation.metadata.key", &deep_arrays),
            s("langfuse.trace.tags", &deep_arrays),
            s("langfuse.observation.input", &deep_objects),
            s("langfuse.observation.output", &deep_objects),
            s("events", &deep_arrays),
            s("ai.prompt", &deep_objects),
        ],
    ));
    assert_eq!(converted.event.input, deep_objects);
    assert_eq!(converted.event.output, deep_objects);
    assert_eq!(converted.event.metadata["key"], deep_arrays);
    assert!(converted.event.tool_calls.is_empty());
    assert_eq!(converted.event.tags, std::slice::from_ref(&deep_arrays));

    // Logfire's `events` attribute is read only when no earlier convention gave the input.
    let converted = one(root("s", vec![s("events", &deep_arrays)]));
    assert!(converted.event.input.is_empty() && converted.event.output.is_empty());
}

/// The same text at the cap is JSON, and is flattened like any other.
#[test]
fn attribute_text_nested_up_to_the_cap_is_parsed() {
    let metadata = format!("{}1{}", r#"{"a":"#.repeat(MAX_JSON_DEPTH), "}".repeat(MAX_JSON_DEPTH));
    let converted = one(root("s", vec![s("langfuse.trace.metadata", &metadata)]));
    let key = vec!["a"; MAX_JSON_DEPTH].join(".");
    assert_eq!(converted.event.metadata[&key], "1");
}
