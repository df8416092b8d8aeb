//! `decode` never panics, whatever the body, for both content types, with and without gzip.

use proptest::prelude::*;

use super::fixtures::gzip;
use crate::otel::decode;

const CONTENT_TYPES: [&str; 2] = ["application/x-protobuf", "application/json"];

fn check(body: &[u8]) {
    for content_type in CONTENT_TYPES {
        let _ = decode(body, Some(content_type), None);
        let _ = decode(body, Some(content_type), Some("gzip"));
        let _ = decode(&gzip(body), Some(content_type), Some("gzip"));
    }
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..512)) {
        check(&body);
    }

    #[test]
    fn json_like_text_never_panics(body in r#"[{}\[\]",:0-9a-zA-Z_ ]{0,256}"#) {
        check(body.as_bytes());
    }

    #[test]
    fn mutated_otlp_json_never_panics(cut in 0usize..400, byte in any::<u8>()) {
        let mut body = br#"{"resourceSpans":[{"resource":{"attributes":[{"key":"k","value":{"intValue":"1"}}]},"scopeSpans":[{"scope":{"name":"s"},"spans":[{"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"EEE19B7EC3C1B174","parentSpanId":"EEE19B7EC3C1B173","name":"n","kind":2,"startTimeUnixNano":"1544712660000000000","endTimeUnixNano":1544712661000000000,"attributes":[{"key":"a","value":{"arrayValue":{"values":[{"stringValue":"x"},{"kvlistValue":{"values":[{"key":"b","value":{"boolValue":true}}]}}]}}}],"events":[{"timeUnixNano":{"low":1,"high":2},"name":"e"}],"status":{"code":2}}]}]}]}"#.to_vec();
        let at = cut.min(body.len() - 1);
        body[at] = byte;
        check(&body);
    }

    #[test]
    fn mutated_protobuf_never_panics(cut in 0usize..200, byte in any::<u8>()) {
        use prost::Message;
        let request = super::build::request(vec![super::build::s("k", "v")], "app", vec![super::build::span("n", vec![super::build::i("i", 1)])]);
        let mut body = request.encode_to_vec();
        let at = cut.min(body.len() - 1);
        body[at] = byte;
        check(&body);
    }
}
