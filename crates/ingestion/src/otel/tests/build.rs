//! Builders for hand-made OTLP requests.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::common::v1::{AnyValue, ArrayValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::span::Event as SpanEvent;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span, Status};

use crate::otel::{ConvertContext, ConvertedSpan, convert};

pub const TRACE_ID: [u8; 16] = [0xab; 16];
pub const SPAN_ID: [u8; 8] = [0x11; 8];
pub const PARENT_ID: [u8; 8] = [0x22; 8];
pub const START_NANOS: u64 = 1_795_290_071_763_374_495;
pub const RECEIVED_AT: i64 = 1_800_000_000_000_000;

fn kv(key: &str, value: Any) -> KeyValue {
    KeyValue { key: key.into(), value: Some(AnyValue { value: Some(value) }), ..Default::default() }
}

pub fn s(key: &str, value: &str) -> KeyValue {
    kv(key, Any::StringValue(value.into()))
}

pub fn i(key: &str, value: i64) -> KeyValue {
    kv(key, Any::IntValue(value))
}

pub fn d(key: &str, value: f64) -> KeyValue {
    kv(key, Any::DoubleValue(value))
}

pub fn b(key: &str, value: bool) -> KeyValue {
    kv(key, Any::BoolValue(value))
}

pub fn strings(key: &str, values: &[&str]) -> KeyValue {
    let values = values.iter().map(|v| AnyValue { value: Some(Any::StringValue((*v).into())) }).collect();
    kv(key, Any::ArrayValue(ArrayValue { values }))
}

/// A child span (parent set) starting at [`START_NANOS`] and lasting one millisecond.
pub fn span(name: &str, attributes: Vec<KeyValue>) -> Span {
    Span {
        trace_id: TRACE_ID.to_vec(),
        span_id: SPAN_ID.to_vec(),
        parent_span_id: PARENT_ID.to_vec(),
        name: name.into(),
        start_time_unix_nano: START_NANOS,
        end_time_unix_nano: START_NANOS + 1_000_000,
        attributes,
        ..Default::default()
    }
}

pub fn root(name: &str, attributes: Vec<KeyValue>) -> Span {
    Span { parent_span_id: Vec::new(), ..span(name, attributes) }
}

pub fn event(name: &str, attributes: Vec<KeyValue>) -> SpanEvent {
    SpanEvent { name: name.into(), attributes, time_unix_nano: START_NANOS, ..Default::default() }
}

pub fn error_status(message: &str) -> Option<Status> {
    Some(Status { code: 2, message: message.into() })
}

pub fn request(resource: Vec<KeyValue>, scope_name: &str, spans: Vec<Span>) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource { attributes: resource, ..Default::default() }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope { name: scope_name.into(), ..Default::default() }),
                spans,
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
}

pub fn context() -> ConvertContext {
    ConvertContext { project_id: "p".into(), received_at: RECEIVED_AT, ..Default::default() }
}

/// Converts one span from a plain-OTel scope with no resource attributes.
pub fn one(span: Span) -> ConvertedSpan {
    one_in(vec![], "app", span)
}

pub fn one_in(resource: Vec<KeyValue>, scope_name: &str, span: Span) -> ConvertedSpan {
    let mut converted = convert(&request(resource, scope_name, vec![span]), &context());
    assert_eq!(converted.len(), 1);
    converted.remove(0)
}
