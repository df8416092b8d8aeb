//! Synthetic OTLP exports shaped like LLM-application traffic, for durability tests and the
//! ingestion benchmark: a root span per trace with generations under it, ~1.5 KB per span.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;

fn attribute(key: &str, value: impl Into<String>) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue { value: Some(Value::StringValue(value.into())) }),
        ..Default::default()
    }
}

fn int_attribute(key: &str, value: i64) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue { value: Some(Value::IntValue(value)) }),
        ..Default::default()
    }
}

/// 16-byte trace ids and 8-byte span ids derived from counters, unique across one process run
/// when `run` differs, and never zero.
fn trace_id(run: u64, trace: u64) -> Vec<u8> {
    let mut id = Vec::with_capacity(16);
    id.extend_from_slice(&(run | 1 << 63).to_be_bytes());
    id.extend_from_slice(&(trace + 1).to_be_bytes());
    id
}

fn span_id(trace: u64, span: u64) -> Vec<u8> {
    ((trace << 16) | (span + 1)).to_be_bytes().to_vec()
}

/// One export of `traces` traces with `spans_per_trace` spans each (1 root + generations),
/// numbered from `first_trace` so successive calls never repeat an id.
pub fn export(run: u64, first_trace: u64, traces: u64, spans_per_trace: u64) -> ExportTraceServiceRequest {
    let base_ns: u64 = 1_763_700_000_000_000_000 + first_trace * 1_000_000;
    let prompt =
        "You are a helpful assistant. Answer the user's question using the retrieved documents. ".repeat(6);
    let mut spans = Vec::with_capacity((traces * spans_per_trace) as usize);
    for t in first_trace..first_trace + traces {
        let tid = trace_id(run, t);
        let root = span_id(t, 0);
        let start = base_ns + (t - first_trace) * 1_000_000;
        for s in 0..spans_per_trace {
            let is_root = s == 0;
            let mut attributes = vec![
                attribute("langfuse.trace.name", "bench-trace"),
                attribute("user.id", format!("user-{}", t % 1000)),
                attribute("session.id", format!("session-{}", t % 100)),
                attribute("langfuse.environment", "bench"),
            ];
            if !is_root {
                attributes.extend([
                    attribute("langfuse.observation.type", "generation"),
                    attribute("gen_ai.request.model", "gpt-4o-mini"),
                    int_attribute("gen_ai.usage.input_tokens", 420),
                    int_attribute("gen_ai.usage.output_tokens", 90),
                    attribute(
                        "langfuse.observation.input",
                        format!("[{{\"role\":\"system\",\"content\":\"{prompt}\"}},{{\"role\":\"user\",\"content\":\"question {t}-{s}\"}}]"),
                    ),
                    attribute(
                        "langfuse.observation.output",
                        format!("{{\"role\":\"assistant\",\"content\":\"answer {t}-{s}: {}\"}}", "lorem ipsum ".repeat(12)),
                    ),
                ]);
            }
            spans.push(Span {
                trace_id: tid.clone(),
                span_id: span_id(t, s),
                parent_span_id: if is_root { Vec::new() } else { root.clone() },
                name: if is_root { "handle-request".to_owned() } else { format!("llm-call-{s}") },
                start_time_unix_nano: start + s * 1000,
                end_time_unix_nano: start + s * 1000 + 500_000,
                attributes,
                ..Span::default()
            });
        }
    }
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![attribute("service.name", "loupe-loadgen")],
                ..Resource::default()
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope { name: "loupe-loadgen".to_owned(), ..Default::default() }),
                spans,
                ..ScopeSpans::default()
            }],
            ..ResourceSpans::default()
        }],
    }
}

/// The export as protobuf bytes, ready to POST.
pub fn export_bytes(run: u64, first_trace: u64, traces: u64, spans_per_trace: u64) -> Vec<u8> {
    export(run, first_trace, traces, spans_per_trace).encode_to_vec()
}
