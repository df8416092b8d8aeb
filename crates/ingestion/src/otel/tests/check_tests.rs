//! Web's check of a protobuf export it does not build (`check`) must never accept what the full
//! path would refuse or trim, and must count the same spans.

use bytes::Bytes;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, KeyValueList};
use proptest::prelude::*;
use prost::Message;

use super::build::{error_status, event, i, request, s, span};
use super::fixtures::captures;
use crate::otel::check::plain_export_spans;
use crate::otel::{Parsed, check_resource_budget, decode, parse_or_check, reject_invalid_spans};

const PROTOBUF: &str = "application/x-protobuf";
const BUDGET: usize = 1 << 20;

/// What the full path makes of `body`: the span count when it is accepted whole as sent.
fn full_path_spans(body: &[u8], budget: usize) -> Option<usize> {
    let mut request = crate::otel::parse_with_limit(body, Some(PROTOBUF), None, usize::MAX).ok()?;
    let spans =
        request.resource_spans.iter().flat_map(|r| &r.scope_spans).map(|s| s.spans.len()).sum::<usize>();
    let nothing_rejected = reject_invalid_spans(&mut request).is_none();
    (nothing_rejected && spans > 0 && check_resource_budget(&request, budget).is_ok()).then_some(spans)
}

fn assert_agrees(body: &[u8], budget: usize) {
    assert_eq!(plain_export_spans(&Bytes::copy_from_slice(body), budget), full_path_spans(body, budget));
}

#[test]
fn every_captured_protobuf_export_is_checked_as_the_full_path_reads_it() {
    let mut checked = 0;
    for capture in captures().into_iter().filter(|c| c.content_type.contains("protobuf")) {
        let parsed = parse_or_check(
            Bytes::from(capture.body.clone()),
            Some(&capture.content_type),
            capture.content_encoding.as_deref(),
            usize::MAX,
            BUDGET,
        )
        .unwrap();
        let full =
            decode(&capture.body, Some(&capture.content_type), capture.content_encoding.as_deref()).unwrap();
        let spans =
            full.resource_spans.iter().flat_map(|r| &r.scope_spans).map(|s| s.spans.len()).sum::<usize>();
        match parsed {
            Parsed::Plain { spans: counted, protobuf } => {
                assert_eq!(counted, spans, "{}", capture.file);
                // Kept as sent (decompressed): the worker decodes exactly this export.
                assert_eq!(
                    crate::otel::ExportTraceServiceRequest::decode(protobuf).unwrap(),
                    full,
                    "{}",
                    capture.file
                );
            }
            Parsed::Decoded(..) => panic!("{}: a valid capture took the full path", capture.file),
        }
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} protobuf captures");
}

#[test]
fn anything_but_a_plain_export_takes_the_full_path() {
    let valid = || request(vec![s("service.name", "svc")], "scope", vec![span("a", vec![s("k", "v")])]);
    assert_eq!(plain_export_spans(&Bytes::from(valid().encode_to_vec()), BUDGET), Some(1));

    // A span dropped for its ids.
    let mut bad_id = valid();
    bad_id.resource_spans[0].scope_spans[0].spans[0].span_id = vec![0; 8];
    // Nothing to store.
    let mut empty = valid();
    empty.resource_spans[0].scope_spans[0].spans.clear();
    for (what, export) in [("bad id", bad_id), ("no spans", empty)] {
        let body = export.encode_to_vec();
        assert_eq!(plain_export_spans(&Bytes::from(body.clone()), BUDGET), None, "{what}");
        assert_agrees(&body, BUDGET);
    }
    // Over the resource budget.
    let body = valid().encode_to_vec();
    assert_eq!(plain_export_spans(&Bytes::from(body.clone()), 3), None);
    assert_agrees(&body, 3);
    // Not protobuf.
    assert_eq!(plain_export_spans(&Bytes::from_static(b"{\"resourceSpans\":[]}"), BUDGET), None);
}

/// Invalid UTF-8 anywhere a string sits — deep in a kvlist, in an event, in the status — is
/// refused by prost when it builds `String`s; the check must see it too.
#[test]
fn invalid_utf8_anywhere_is_left_to_the_full_path() {
    const MARK: &str = "\u{1}MARK\u{1}";
    let nested = AnyValue {
        value: Some(Any::KvlistValue(KeyValueList {
            values: vec![KeyValue {
                key: MARK.into(),
                value: Some(AnyValue { value: Some(Any::StringValue("x".into())) }),
                ..Default::default()
            }],
        })),
    };
    let mut with_event =
        span("s", vec![KeyValue { key: "k".into(), value: Some(nested), ..Default::default() }]);
    with_event.events.push(event(MARK, vec![i("n", 1)]));
    with_event.status = error_status(MARK);
    let body = request(vec![s(MARK, MARK)], MARK, vec![with_event]).encode_to_vec();
    assert_eq!(plain_export_spans(&Bytes::from(body.clone()), BUDGET), Some(1));
    // Break each occurrence of the mark on its own (0xff is never valid UTF-8).
    let marks: Vec<usize> =
        body.windows(MARK.len()).enumerate().filter(|(_, w)| *w == MARK.as_bytes()).map(|(p, _)| p).collect();
    assert_eq!(
        marks.len(),
        6,
        "resource key and value, scope name, nested key, event name, status: {marks:?}"
    );
    for at in marks {
        let mut broken = body.clone();
        broken[at + 1] = 0xff;
        assert_eq!(plain_export_spans(&Bytes::from(broken.clone()), BUDGET), None, "mark at {at}");
        assert_eq!(full_path_spans(&broken, BUDGET), None, "mark at {at}");
    }
}

/// A string field sent twice, the first time not UTF-8: prost refuses it, and the check, which
/// keeps only the last value, must not answer it.
#[test]
fn a_repeated_field_is_left_to_the_full_path() {
    let body = request(vec![], "scope", vec![span("name", vec![])]).encode_to_vec();
    // Append a second `resource_spans` whose span carries its name twice: first invalid, then valid.
    let mut span_bytes = span("n", vec![]).encode_to_vec();
    let mut twice = vec![0x2a, 1, 0xff]; // field 5 (name), 1 byte: 0xff
    twice.extend_from_slice(&span_bytes);
    span_bytes = twice;
    let scope_spans = [&[0x12, span_bytes.len() as u8][..], &span_bytes].concat();
    let resource_spans = [&[0x12, scope_spans.len() as u8][..], &scope_spans].concat();
    let export = [&body[..], &[0x0a, resource_spans.len() as u8][..], &resource_spans].concat();
    assert_eq!(full_path_spans(&export, BUDGET), None, "prost refuses the first name");
    assert_eq!(plain_export_spans(&Bytes::from(export), BUDGET), None);
}

proptest! {
    /// Whatever a byte changed or a cut does to a real export, the check accepts only what the
    /// full path accepts whole, with the same span count (it may leave more to the full path:
    /// an export out of canonical form, say).
    #[test]
    fn a_damaged_export_is_checked_as_the_full_path_reads_it(
        at in 0usize..4096,
        byte in any::<u8>(),
        cut in proptest::option::of(0usize..4096),
    ) {
        let mut body = test_support::otlp::export_bytes(7, 0, 3, 3);
        let at = at % body.len();
        body[at] = byte;
        if let Some(cut) = cut {
            body.truncate(cut % body.len());
        }
        if let Some(spans) = plain_export_spans(&Bytes::from(body.clone()), BUDGET) {
            prop_assert_eq!(Some(spans), full_path_spans(&body, BUDGET));
        }
    }
}
