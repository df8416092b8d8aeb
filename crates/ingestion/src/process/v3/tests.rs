//! What OTel spans say about their trace, and the v3 trace record it adds up to whatever the order the
//! spans arrive in: stated values win over what a root span implies, tags add up.

use domain::v3::{TraceRecord, TraceUpdate};
use opentelemetry_proto::tonic::trace::v1::Span;

use super::from_spans;
use crate::otel::tests::build::*;
use crate::otel::{ConvertedSpan, convert};

const RESOURCE_VERSION: &str = "service-1.0";

/// Spans as one export from a process whose resource names its service version.
fn export(spans: Vec<Span>) -> Vec<ConvertedSpan> {
    convert(&request(vec![s("service.version", RESOURCE_VERSION)], "langfuse-sdk", spans), &context())
}

/// The root span, as an SDK sends it when attributes were propagated only inside a child: its own
/// name, its tags, its observation metadata, nothing stated about the trace's name or version.
fn root_span() -> Span {
    Span {
        span_id: vec![1; 8],
        ..root(
            "root-span",
            vec![
                strings("langfuse.trace.tags", &["root-tag"]),
                s("langfuse.observation.metadata.batchIndex", "\"root\""),
                s("langfuse.observation.metadata.route", "\"/chat\""),
            ],
        )
    }
}

/// A child the SDK propagated the trace's attributes to.
fn child_span() -> Span {
    Span {
        span_id: vec![2; 8],
        parent_span_id: vec![1; 8],
        ..span(
            "child-span",
            vec![
                s("langfuse.trace.name", "explicit-name"),
                s("user.id", "user-1"),
                s("session.id", "session-1"),
                s("langfuse.version", "v2"),
                b("langfuse.trace.public", true),
                strings("langfuse.trace.tags", &["child-tag", "root-tag"]),
                s("langfuse.trace.metadata.batchIndex", "0"),
            ],
        )
    }
}

/// The record the updates merge into, applied in the order given, as the worker does (the first
/// one makes the record, or finds it stored, the later ones merge onto it).
fn record(updates: impl IntoIterator<Item = TraceUpdate>) -> TraceRecord {
    let mut updates = updates.into_iter();
    let mut record = updates.next().unwrap().into_record();
    for update in updates {
        record.merge(&update);
    }
    record
}

#[test]
fn a_root_span_only_implies_its_name_version_and_observation_metadata() {
    let root = export(vec![root_span()]).remove(0);
    assert!(root.is_root);
    let trace = &root.trace;
    assert_eq!((trace.name.as_deref(), trace.version.as_deref()), (None, None));
    assert_eq!(trace.implied.name.as_deref(), Some("root-span"));
    assert_eq!(trace.implied.version.as_deref(), Some(RESOURCE_VERSION));
    assert_eq!(trace.tags.as_deref(), Some(&["root-tag".to_owned()][..]), "tags are stated");
    assert!(!trace.metadata.contains_key("batchIndex"), "observation metadata is not the trace's");
    assert_eq!(trace.implied.metadata.get("batchIndex").map(String::as_str), Some("root"));
    assert!(trace.implied.metadata.contains_key("resourceAttributes.service.version"));
    // The event row still names the trace after its root (the reads tell the two apart).
    assert_eq!(root.event.trace_name, "root-span");
}

#[test]
fn stated_trace_attributes_win_whichever_span_arrives_first() {
    let root = || from_spans(&export(vec![root_span()])).traces;
    let child = || from_spans(&export(vec![child_span()])).traces;
    // Separate exports (the child flushed before or after its root), and both in one export.
    let orders = [
        record(root().into_iter().chain(child())),
        record(child().into_iter().chain(root())),
        record(from_spans(&export(vec![child_span(), root_span()])).traces),
        record(from_spans(&export(vec![root_span(), child_span()])).traces),
    ];
    for trace in &orders {
        assert_eq!(trace.name.as_deref(), Some("explicit-name"), "{trace:?}");
        assert_eq!(trace.user_id.as_deref(), Some("user-1"));
        assert_eq!(trace.session_id.as_deref(), Some("session-1"));
        assert_eq!(trace.version.as_deref(), Some("v2"), "not the resource's service version");
        assert!(trace.public);
        assert_eq!(trace.tags, ["child-tag", "root-tag"], "the union of every span's tags");
        assert_eq!(trace.metadata["batchIndex"], "0", "the stated trace metadata");
        assert_eq!(trace.metadata["route"], "/chat", "the root's own keys fill the rest");
    }
    // Without the child, the root names its trace.
    assert_eq!(record(root()).name.as_deref(), Some("root-span"));
    assert_eq!(record(root()).version.as_deref(), Some(RESOURCE_VERSION));
}
