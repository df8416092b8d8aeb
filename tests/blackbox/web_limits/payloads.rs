//! What a request carries: gRPC checks the key before it reads a byte of the body, a gzip bomb is
//! refused on HTTP and gRPC without being inflated (web's peak memory barely moves), and an export
//! whose resource attributes would be copied into its spans past their budget is refused.

use std::time::{Duration, Instant};

use flate2::{Compress, Compression, Crc, FlushCompress};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_client::TraceServiceClient;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;

use super::{TRACE_SERVICE, basic, grpc_address, web};
use crate::apps::{App, Stack, http};

/// Calls `TraceService/Export` with `body` sent as is (gRPC framing included), as no well-behaved
/// client would; answers the status and message of a trailers-only response.
pub async fn grpc_raw(
    stack: &Stack,
    authorization: Option<&str>,
    body: reqwest::Body,
    gzip: bool,
) -> (i32, String) {
    let _ = http(); // installs the TLS provider reqwest's builder asks for
    let client = reqwest::Client::builder().http2_prior_knowledge().build().unwrap();
    let mut request = client
        .post(format!("http://{}{TRACE_SERVICE}", grpc_address(stack)))
        .header("content-type", "application/grpc")
        .header("te", "trailers");
    if let Some(authorization) = authorization {
        request = request.header("authorization", authorization);
    }
    if gzip {
        request = request.header("grpc-encoding", "gzip");
    }
    let response = tokio::time::timeout(Duration::from_secs(20), request.body(body).send())
        .await
        .expect("no answer within 20 s")
        .unwrap();
    let header = |name: &str| response.headers().get(name).map(|v| v.to_str().unwrap().to_owned());
    let status = header("grpc-status")
        .unwrap_or_else(|| panic!("no grpc-status in the head: {:?}", response.headers()))
        .parse()
        .unwrap();
    (status, percent_decoded(&header("grpc-message").unwrap_or_default()))
}

/// `grpc-message` is percent-encoded.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(byte) = text.get(i + 1..i + 3).and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A gRPC message frame: the compressed flag, the length, the message.
fn frame(compressed: bool, message: &[u8]) -> Vec<u8> {
    let mut framed = vec![u8::from(compressed)];
    framed.extend_from_slice(&u32::try_from(message.len()).unwrap().to_be_bytes());
    framed.extend_from_slice(message);
    framed
}

/// A gzip member that inflates to `mib` MiB of zeros from about a thousandth of that. After a sync
/// flush, a block of zeros refers only to zeros, so one such block can follow itself any number
/// of times; this builds in milliseconds what compressing 256 MiB would take seconds to.
fn gzip_bomb(mib: usize) -> Vec<u8> {
    let chunk = vec![0u8; 1 << 20];
    let mut deflate = Compress::new(Compression::best(), false);
    let mut block = |input: &[u8], flush| {
        let (before, mut out) = (deflate.total_in(), Vec::with_capacity(1 << 16));
        deflate.compress_vec(input, &mut out, flush).unwrap();
        assert_eq!(deflate.total_in() - before, input.len() as u64, "the block took all its input");
        out
    };
    let (first, repeated, last) = (
        block(&chunk, FlushCompress::Sync),
        block(&chunk, FlushCompress::Sync),
        block(&[], FlushCompress::Finish),
    );
    let (mut one, mut all) = (Crc::new(), Crc::new());
    one.update(&chunk);
    let mut bomb = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    bomb.extend_from_slice(&first);
    all.combine(&one);
    for _ in 1..mib {
        bomb.extend_from_slice(&repeated);
        all.combine(&one);
    }
    bomb.extend_from_slice(&last);
    bomb.extend_from_slice(&all.sum().to_le_bytes());
    bomb.extend_from_slice(&all.amount().to_le_bytes());
    bomb
}

#[test]
fn the_gzip_bomb_is_real_gzip() {
    use std::io::Read;
    let mut inflated = Vec::new();
    flate2::read::GzDecoder::new(gzip_bomb(3).as_slice()).read_to_end(&mut inflated).unwrap();
    assert_eq!(inflated.len(), 3 << 20);
    assert!(inflated.iter().all(|b| *b == 0));
    let bomb = gzip_bomb(256);
    assert!(bomb.len() < 512 * 1024, "256 MiB from {} bytes", bomb.len());
}

/// The most memory the process has held at once (`VmHWM`), in bytes.
fn peak_memory(app: &App) -> u64 {
    let pid = app.child.id().unwrap();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

#[tokio::test]
async fn grpc_checks_the_key_before_it_reads_the_body() {
    let (stack, _web) = web(&[("LANGFUSE_INGESTION_MAX_BODY_BYTES", "65536")]).await;
    let wrong = format!("Basic {}", base64_of("pk-lf-blackbox:sk-lf-wrong"));
    let not_protobuf = frame(false, &[0xff; 64]);
    // Announces 10 MB, above the limit; tonic would refuse it as soon as it read the length.
    let oversized = [vec![0], 10_000_000u32.to_be_bytes().to_vec(), vec![0; 1024]].concat();
    for authorization in [None, Some("Bearer pk-lf-blackbox"), Some(wrong.as_str())] {
        for body in [&not_protobuf, &oversized] {
            let (status, message) = grpc_raw(&stack, authorization, body.clone().into(), false).await;
            assert_eq!(status, tonic::Code::Unauthenticated as i32, "{authorization:?}: {message}");
        }
    }
    // The same bodies with the right key reach the decoder, which refuses them for what they are.
    let (status, message) = grpc_raw(&stack, Some(&basic()), not_protobuf.into(), false).await;
    assert_eq!(status, tonic::Code::Internal as i32, "{message}");
    let (status, message) = grpc_raw(&stack, Some(&basic()), oversized.into(), false).await;
    assert_eq!(status, tonic::Code::ResourceExhausted as i32, "{message}");

    // A body that never ends is not even waited for: a wrong key is answered at once.
    let endless = futures::stream::unfold((), |()| async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        Some((Ok::<_, std::io::Error>(vec![0u8; 16]), ()))
    });
    let started = Instant::now();
    let body = reqwest::Body::wrap_stream(futures::StreamExt::boxed(endless));
    let (status, message) = grpc_raw(&stack, Some(&wrong), body, false).await;
    assert_eq!(status, tonic::Code::Unauthenticated as i32, "{message}");
    assert!(started.elapsed() < Duration::from_secs(5), "answered after {:?}", started.elapsed());
}

fn base64_of(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(text)
}

#[tokio::test]
async fn gzip_bombs_are_refused_on_http_and_grpc_without_being_inflated() {
    let (stack, web) = web(&[("LANGFUSE_INGESTION_MAX_BODY_BYTES", "1048576")]).await;
    let bomb = gzip_bomb(256);
    let before = peak_memory(&web);
    let client = http();

    let started = Instant::now();
    let response = client
        .post(format!("{}/api/public/otel/v1/traces", web.base_url))
        .header("Authorization", basic())
        .header("Content-Type", "application/x-protobuf")
        .header("Content-Encoding", "gzip")
        .body(bomb.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    let body: serde_json::Value = response.json().await.unwrap();
    assert!(body["message"].as_str().unwrap().contains("1048576 byte limit"), "{body}");
    assert!(started.elapsed() < Duration::from_secs(5), "answered after {:?}", started.elapsed());

    let started = Instant::now();
    let (status, message) = grpc_raw(&stack, Some(&basic()), frame(true, &bomb).into(), true).await;
    assert_eq!(status, tonic::Code::ResourceExhausted as i32, "{message}");
    assert!(started.elapsed() < Duration::from_secs(5), "answered after {:?}", started.elapsed());

    // The JSON endpoints take no compressed body at all.
    let response = client
        .post(format!("{}/api/public/ingestion", web.base_url))
        .header("Authorization", basic())
        .header("Content-Type", "application/json")
        .header("Content-Encoding", "gzip")
        .body(bomb)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 415);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"], "UnsupportedMediaTypeError", "{body}");

    // Inflating either bomb would have taken 256 MiB.
    let grown = peak_memory(&web).saturating_sub(before);
    assert!(grown < 64 << 20, "web's peak memory grew by {} MiB", grown >> 20);
}

/// An export of `spans` spans under one resource with `resource_bytes` of attribute value.
fn export(resource_bytes: usize, spans: usize) -> ExportTraceServiceRequest {
    let text = |key: &str, value: String| KeyValue {
        key: key.into(),
        value: Some(AnyValue { value: Some(any_value::Value::StringValue(value)) }),
        ..Default::default()
    };
    let now = u64::try_from(chrono::Utc::now().timestamp_nanos_opt().unwrap()).unwrap();
    let spans = (0..spans)
        .map(|i| Span {
            trace_id: [7; 16].to_vec(),
            span_id: (i as u64 + 1).to_be_bytes().to_vec(),
            name: format!("span-{i}"),
            start_time_unix_nano: now,
            end_time_unix_nano: now + 1_000_000,
            ..Default::default()
        })
        .collect();
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![
                    text("service.name", "budget".into()),
                    text("k8s.blob", "x".repeat(resource_bytes)),
                ],
                ..Default::default()
            }),
            scope_spans: vec![ScopeSpans { spans, ..Default::default() }],
            ..Default::default()
        }],
    }
}

#[tokio::test]
async fn resource_attributes_copied_past_their_budget_are_refused_on_http_and_grpc() {
    let (stack, web) = web(&[("LANGFUSE_OTEL_RESOURCE_ATTRIBUTES_MAX_COPIED_BYTES", "100000")]).await;
    let post = |request: ExportTraceServiceRequest| {
        http()
            .post(format!("{}/api/public/otel/v1/traces", web.base_url))
            .header("Authorization", basic())
            .header("Content-Type", "application/x-protobuf")
            .body(request.encode_to_vec())
            .send()
    };
    // 10 KB of resource attributes: 5 spans copy 50 KB, 20 spans 200 KB.
    assert_eq!(post(export(10_000, 5)).await.unwrap().status(), 200);
    let response = post(export(10_000, 20)).await.unwrap();
    assert_eq!(response.status(), 400);
    let body: serde_json::Value = response.json().await.unwrap();
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("LANGFUSE_OTEL_RESOURCE_ATTRIBUTES_MAX_COPIED_BYTES"), "{body}");
    assert!(message.contains("100000-byte budget") && message.contains("20 spans"), "{body}");

    let mut client = TraceServiceClient::connect(format!("http://{}", grpc_address(&stack))).await.unwrap();
    let mut request = tonic::Request::new(export(10_000, 20));
    request.metadata_mut().insert("authorization", basic().parse().unwrap());
    let refused = client.export(request).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
    assert!(refused.message().contains("LANGFUSE_OTEL_RESOURCE_ATTRIBUTES_MAX_COPIED_BYTES"), "{refused:?}");
    let mut request = tonic::Request::new(export(10_000, 5));
    request.metadata_mut().insert("authorization", basic().parse().unwrap());
    client.export(request).await.unwrap();
}
