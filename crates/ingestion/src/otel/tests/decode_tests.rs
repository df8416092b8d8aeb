//! Content negotiation, gzip, protobuf and OTLP/JSON decoding, id validation.

use prost::Message;
use serde_json::json;

use super::build::{PARENT_ID, SPAN_ID, TRACE_ID, request, span};
use super::fixtures::gzip;
use crate::otel::{DecodeError, ExportTraceServiceRequest, decode, decode_with_limit, parse_owned};

const PROTOBUF: Option<&str> = Some("application/x-protobuf");
const JSON: Option<&str> = Some("application/json");

fn protobuf_body() -> Vec<u8> {
    request(vec![], "app", vec![span("s", vec![])]).encode_to_vec()
}

fn decode_json(value: serde_json::Value) -> Result<ExportTraceServiceRequest, DecodeError> {
    decode(value.to_string().as_bytes(), JSON, None)
}

fn one_span_json(span: serde_json::Value) -> serde_json::Value {
    json!({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})
}

fn span_count(request: &ExportTraceServiceRequest) -> usize {
    request.resource_spans.iter().flat_map(|r| &r.scope_spans).map(|s| s.spans.len()).sum()
}

#[test]
fn content_types_are_matched_by_substring() {
    let body = protobuf_body();
    assert!(decode(&body, Some("application/x-protobuf"), None).is_ok());
    assert!(decode(&body, Some("Application/X-Protobuf; proto=ExportTraceServiceRequest"), None).is_ok());
    assert!(decode(b"{}", Some("application/json; charset=utf-8"), None).is_ok());
    for content_type in [None, Some(""), Some("text/plain"), Some("application/grpc")] {
        let error = decode(&body, content_type, None).unwrap_err();
        assert!(matches!(error, DecodeError::UnsupportedContentType(_)), "{content_type:?}: {error}");
    }
}

#[test]
fn gzip_bodies_are_decompressed() {
    let body = protobuf_body();
    let decoded = decode(&gzip(&body), PROTOBUF, Some("gzip")).unwrap();
    assert_eq!(decoded, ExportTraceServiceRequest::decode(body.as_slice()).unwrap());
    let json_body = json!({"resourceSpans": []}).to_string();
    assert!(decode(&gzip(json_body.as_bytes()), JSON, Some("x-gzip")).is_ok());
    // Uncompressed bodies may say so.
    assert!(decode(&body, PROTOBUF, Some("identity")).is_ok());
}

#[test]
fn corrupt_gzip_and_unknown_encodings_are_refused() {
    let mut corrupt = gzip(&protobuf_body());
    corrupt.truncate(corrupt.len() / 2);
    assert!(matches!(decode(&corrupt, PROTOBUF, Some("gzip")), Err(DecodeError::Decompress(_))));
    assert!(matches!(decode(b"not gzip at all", PROTOBUF, Some("gzip")), Err(DecodeError::Decompress(_))));
    let error = decode(&protobuf_body(), PROTOBUF, Some("br")).unwrap_err();
    assert!(matches!(error, DecodeError::UnsupportedContentEncoding(_)), "{error}");
}

#[test]
fn a_gzip_bomb_is_capped() {
    // 64 MiB of zeros compress to about 64 KiB.
    let bomb = gzip(&vec![0u8; 64 * 1024 * 1024]);
    assert!(bomb.len() < 1024 * 1024);
    let error = decode(&bomb, PROTOBUF, Some("gzip")).unwrap_err();
    assert_eq!(error, DecodeError::TooLarge { limit: crate::otel::DEFAULT_MAX_DECODED_BYTES });
    // The cap is inclusive and applies to uncompressed bodies as well.
    let body = protobuf_body();
    assert!(decode_with_limit(&gzip(&body), PROTOBUF, Some("gzip"), body.len()).is_ok());
    let error = decode_with_limit(&gzip(&body), PROTOBUF, Some("gzip"), body.len() - 1).unwrap_err();
    assert!(matches!(error, DecodeError::TooLarge { .. }));
    assert!(matches!(decode_with_limit(&body, PROTOBUF, None, 10), Err(DecodeError::TooLarge { limit: 10 })));
}

#[test]
fn garbage_is_refused_with_a_message() {
    // Field 1, length 5, but only one byte follows.
    let error = decode(&[0x0a, 0x05, 0x01], PROTOBUF, None).unwrap_err();
    assert!(matches!(error, DecodeError::Protobuf(_)), "{error}");
    let error = decode(b"{\"resourceSpans\": [", JSON, None).unwrap_err();
    assert!(matches!(&error, DecodeError::Json(m) if m.contains("line 1")), "{error}");
    let error = decode(b"[1, 2]", JSON, None).unwrap_err();
    assert!(matches!(error, DecodeError::Json(_)), "{error}");
}

#[test]
fn json_type_errors_name_the_span_and_attribute() {
    let span = json!({"traceId": hex::encode(TRACE_ID), "spanId": hex::encode(SPAN_ID), "name": 5});
    let error = decode_json(one_span_json(span)).unwrap_err().to_string();
    assert!(error.contains("resourceSpans[0].scopeSpans[0].spans[0]: invalid type"), "{error}");
    let span = json!({
        "traceId": hex::encode(TRACE_ID), "spanId": hex::encode(SPAN_ID), "name": "s",
        "attributes": [{"key": "ok", "value": {"intValue": 1}}, {"key": "bad", "value": {"intValue": "abc"}}],
    });
    let error = decode_json(one_span_json(span)).unwrap_err().to_string();
    assert!(error.contains("spans[0].attributes[1] (key \"bad\")"), "{error}");
}

fn attributes_json(int: serde_json::Value, time: serde_json::Value) -> ExportTraceServiceRequest {
    decode_json(one_span_json(json!({
        "traceId": hex::encode(TRACE_ID), "spanId": hex::encode(SPAN_ID), "name": "s",
        "startTimeUnixNano": time, "endTimeUnixNano": time,
        "attributes": [{"key": "n", "value": {"intValue": int}}],
    })))
    .unwrap()
}

#[test]
fn json_int64_as_string_number_or_long_object() {
    let expected = attributes_json(json!("42"), json!("1795290071763374495"));
    assert_eq!(attributes_json(json!(42), json!(1_795_290_071_763_374_495_u64)), expected);
    // protobufjs longs: 1795290071763374495 = high 418004155 * 2^32 + low (as signed 32-bit).
    let nanos: u64 = 1_795_290_071_763_374_495;
    let (high, low) = ((nanos >> 32) as i64, (nanos & 0xffff_ffff) as u32 as i32 as i64);
    let long_time = json!({"low": low, "high": high, "unsigned": true});
    assert_eq!(attributes_json(json!({"low": 42, "high": 0}), long_time), expected);
    let span = &expected.resource_spans[0].scope_spans[0].spans[0];
    assert_eq!(span.start_time_unix_nano, nanos);
    assert_eq!(
        attributes_json(json!("-7"), json!("1")).resource_spans[0].scope_spans[0].spans[0].attributes[0]
            .value
            .as_ref()
            .and_then(|v| v.value.clone()),
        Some(opentelemetry_proto::tonic::common::v1::any_value::Value::IntValue(-7))
    );
}

#[test]
fn json_ids_may_be_hex_or_base64() {
    use base64::Engine as _;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
    let hex_form = decode_json(one_span_json(json!({
        "traceId": hex::encode(TRACE_ID), "spanId": hex::encode(SPAN_ID), "parentSpanId": hex::encode(PARENT_ID),
    })))
    .unwrap();
    let base64_form = decode_json(one_span_json(json!({
        "traceId": STANDARD.encode(TRACE_ID), "spanId": URL_SAFE_NO_PAD.encode(SPAN_ID),
        "parentSpanId": STANDARD.encode(PARENT_ID),
    })))
    .unwrap();
    assert_eq!(base64_form, hex_form);
    let upper = decode_json(one_span_json(json!({
        "traceId": hex::encode_upper(TRACE_ID), "spanId": hex::encode_upper(SPAN_ID),
        "parentSpanId": hex::encode(PARENT_ID),
    })))
    .unwrap();
    assert_eq!(upper, hex_form);
    let span = &hex_form.resource_spans[0].scope_spans[0].spans[0];
    assert_eq!((span.trace_id.as_slice(), span.span_id.as_slice()), (&TRACE_ID[..], &SPAN_ID[..]));

    let error = decode_json(one_span_json(json!({"traceId": "not-an-id", "spanId": hex::encode(SPAN_ID)})));
    let error = error.unwrap_err().to_string();
    assert!(error.contains("invalid span 0") && error.contains("traceId \"not-an-id\""), "{error}");
}

#[test]
fn spans_without_valid_ids_are_refused_by_index() {
    let valid = span("ok", vec![]);
    let no_trace_id = opentelemetry_proto::tonic::trace::v1::Span { trace_id: vec![], ..span("bad", vec![]) };
    let body = request(vec![], "app", vec![valid.clone(), no_trace_id]).encode_to_vec();
    let error = decode(&body, PROTOBUF, None).unwrap_err();
    match &error {
        DecodeError::InvalidSpan { index, reason, .. } => {
            assert_eq!(*index, 1);
            assert!(reason.contains("trace id must be 16 bytes, got 0"), "{reason}");
        }
        other => panic!("{other}"),
    }
    assert!(error.to_string().contains("name \"bad\""), "{error}");
    for broken in [
        opentelemetry_proto::tonic::trace::v1::Span { span_id: vec![0; 8], ..valid.clone() },
        opentelemetry_proto::tonic::trace::v1::Span { span_id: vec![1; 4], ..valid.clone() },
        opentelemetry_proto::tonic::trace::v1::Span { trace_id: vec![0; 16], ..valid.clone() },
        opentelemetry_proto::tonic::trace::v1::Span { parent_span_id: vec![1; 3], ..valid },
    ] {
        let body = request(vec![], "app", vec![broken]).encode_to_vec();
        assert!(matches!(decode(&body, PROTOBUF, None), Err(DecodeError::InvalidSpan { index: 0, .. })));
    }
    let json_error = decode_json(one_span_json(json!({"traceId": "", "spanId": hex::encode(SPAN_ID)})));
    assert!(matches!(json_error, Err(DecodeError::InvalidSpan { index: 0, .. })));
}

#[test]
fn empty_requests_have_no_spans() {
    for (body, content_type) in [
        (&b""[..], PROTOBUF),
        (b"", JSON),
        (b"  \n", JSON),
        (b"{}", JSON),
        (b"\xEF\xBB\xBF{}", JSON),
        (b"{\"resourceSpans\": []}", JSON),
        (b"{\"resourceSpans\": null}", JSON),
        (b"{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": []}]}]}", JSON),
    ] {
        let request = decode(body, content_type, None).unwrap();
        assert_eq!(span_count(&request), 0, "{}", String::from_utf8_lossy(body));
    }
}

#[test]
fn proto3_json_variants_are_accepted() {
    let decoded = decode_json(json!({"resource_spans": [{
        "resource": null,
        "scope_spans": [{"scope": {"name": "app"}, "spans": [{
            "trace_id": hex::encode(TRACE_ID), "span_id": hex::encode(SPAN_ID), "name": "s",
            "kind": "SPAN_KIND_SERVER", "status": {"code": "STATUS_CODE_ERROR", "message": "boom"},
            "start_time_unix_nano": 1.7952900717633745e18, "droppedAttributesCount": null,
            "attributes": [{"key": "a", "value": {"arrayValue": {}}}, {"key": "e", "value": {}}],
        }]}],
    }]}))
    .unwrap();
    let span = &decoded.resource_spans[0].scope_spans[0].spans[0];
    assert_eq!((span.kind, span.status.as_ref().map(|s| s.code)), (2, Some(2)));
    assert_eq!(span.start_time_unix_nano, 1_795_290_071_763_374_592);
    assert_eq!(span.attributes.len(), 2);
}

#[test]
fn owned_protobuf_bodies_come_back_as_sent() {
    let body = bytes::Bytes::from(protobuf_body());
    let (request, kept) = parse_owned(body.clone(), PROTOBUF, None, usize::MAX).unwrap();
    let kept = kept.expect("protobuf is kept");
    assert_eq!(kept.as_ptr(), body.as_ptr(), "an uncompressed body is shared, not copied");
    assert_eq!(span_count(&request), 1);

    let (_, kept) = parse_owned(gzip(&body).into(), PROTOBUF, Some("gzip"), usize::MAX).unwrap();
    assert_eq!(kept.as_deref(), Some(body.as_ref()), "a gzipped body comes back decompressed");

    let span =
        json!({"traceId": "0102030405060708090a0b0c0d0e0f10", "spanId": "0102030405060708", "name": "s"});
    let json = one_span_json(span).to_string();
    let (request, kept) = parse_owned(json.into(), JSON, None, usize::MAX).unwrap();
    assert_eq!((span_count(&request), kept), (1, None), "JSON has no protobuf to keep");
}
