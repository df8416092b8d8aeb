//! docs/limits.md, "Web server limits", against the running binary: slow and silent clients are cut
//! off, requests beyond the concurrency limit wait a bounded time and are then refused while the
//! probes still answer (here); gRPC checks the key before it reads a body, gzip bombs are refused
//! without being inflated, and the resource-attribute budget holds (`web_limits/payloads.rs`).

mod payloads;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, http};

pub const TRACE_SERVICE: &str = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";

pub fn basic() -> String {
    format!("Basic {}", STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}")))
}

/// A web (no worker: nothing here needs rows written) with `extra` settings.
pub async fn web(extra: &[(&str, &str)]) -> (Stack, App) {
    let mut stack = Stack::new().await;
    for (name, value) in extra {
        stack.env.insert((*name).into(), (*value).into());
    }
    let mut web = App::spawn("web", &stack.env, free_port());
    web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    (stack, web)
}

pub fn grpc_address(stack: &Stack) -> String {
    format!("127.0.0.1:{}", stack.env["LANGFUSE_OTEL_GRPC_PORT"])
}

fn http_address(web: &App) -> String {
    web.base_url.trim_start_matches("http://").to_owned()
}

/// Waits, at most `limit`, for the server to close `stream` (EOF or reset); returns how long it took.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> Duration {
    let started = Instant::now();
    let mut buffer = [0u8; 1024];
    loop {
        match tokio::time::timeout(limit.saturating_sub(started.elapsed()), stream.read(&mut buffer)).await {
            Err(_) => panic!("the connection was still open after {limit:?}"),
            Ok(Ok(0) | Err(_)) => return started.elapsed(),
            Ok(Ok(_)) => {} // e.g. an HTTP/2 SETTINGS frame: keep reading
        }
    }
}

/// An HTTP/1.1 response read to the end of the connection, at most `limit`: status, headers, body.
async fn response_within(
    stream: &mut (impl AsyncRead + Unpin),
    limit: Duration,
) -> (u16, BTreeMap<String, String>, String) {
    let mut raw = Vec::new();
    // The server may reset the connection once its answer is out, the rest of the body unread.
    let read = tokio::time::timeout(limit, stream.read_to_end(&mut raw)).await;
    assert!(read.is_ok(), "no complete response within {limit:?}: {}", String::from_utf8_lossy(&raw));
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) =
        text.split_once("\r\n\r\n").unwrap_or_else(|| panic!("not an HTTP response: {text:?}"));
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    (status, headers, body.to_owned())
}

/// The head of a POST whose body is announced but not (yet) sent.
fn post_head(path: &str, content_length: usize) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: loupe\r\nAuthorization: {}\r\nContent-Type: application/json\r\n\
         Content-Length: {content_length}\r\n\r\n",
        basic()
    )
}

#[tokio::test]
async fn silent_and_slow_clients_are_disconnected_after_the_header_read_timeout() {
    let (stack, web) = web(&[("LANGFUSE_HTTP_HEADER_READ_TIMEOUT_MS", "700")]).await;
    let limit = Duration::from_secs(10);

    // HTTP/1: a head that never ends, a connection that never speaks.
    let mut partial = TcpStream::connect(http_address(&web)).await.unwrap();
    partial.write_all(b"POST /api/public/ingestion HTTP/1.1\r\nHost: loupe\r\nX-Slow: ").await.unwrap();
    let mut silent = TcpStream::connect(http_address(&web)).await.unwrap();
    // gRPC (HTTP/2 only): the connection preface and nothing more, and nothing at all.
    let mut preface_only = TcpStream::connect(grpc_address(&stack)).await.unwrap();
    preface_only
        .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        .await
        .unwrap();
    let mut grpc_silent = TcpStream::connect(grpc_address(&stack)).await.unwrap();
    // HTTP/1 keep-alive: one request answered, then a second head that never ends.
    let mut kept_alive = TcpStream::connect(http_address(&web)).await.unwrap();
    kept_alive.write_all(b"GET /api/public/health HTTP/1.1\r\nHost: loupe\r\n\r\n").await.unwrap();
    let mut answer = [0u8; 12];
    kept_alive.read_exact(&mut answer).await.unwrap();
    assert_eq!(&answer, b"HTTP/1.1 200");
    kept_alive.write_all(b"GET /api/public/health HTTP/1.1\r\nHost: lo").await.unwrap();

    for (what, stream) in [
        ("a partial HTTP/1 head", &mut partial),
        ("a silent HTTP connection", &mut silent),
        ("an HTTP/2 preface without a request", &mut preface_only),
        ("a silent gRPC connection", &mut grpc_silent),
        ("a partial second head on a kept-alive connection", &mut kept_alive),
    ] {
        let took = closed_within(stream, limit).await;
        // Counted from the connection, so the later ones may close sooner after this check starts.
        assert!(took < limit, "{what}: still open");
    }
    let opened = Instant::now();
    let mut late = TcpStream::connect(http_address(&web)).await.unwrap();
    let took = closed_within(&mut late, limit).await;
    assert!(took >= Duration::from_millis(600), "closed before the timeout: {took:?}");
    assert!(opened.elapsed() < Duration::from_secs(5), "closed long after the timeout: {took:?}");

    // A client that sends its request in time is served as ever.
    let health = http().get(format!("{}/api/public/health", web.base_url)).send().await.unwrap();
    assert_eq!(health.status(), 200);
}

#[tokio::test]
async fn a_body_that_trickles_forever_is_cut_off_with_408() {
    let (stack, web) = web(&[("LANGFUSE_HTTP_BODY_READ_TIMEOUT_MS", "1500")]).await;
    let mut stream = TcpStream::connect(http_address(&web)).await.unwrap();
    stream.write_all(post_head("/api/public/ingestion", 1_000_000).as_bytes()).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    // A byte every 50 ms: never idle long, never done.
    let trickle = tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_millis(50));
        loop {
            tick.tick().await;
            if writer.write_all(b" ").await.is_err() {
                return;
            }
        }
    });
    let started = Instant::now();
    let (status, headers, body) = response_within(&mut reader, Duration::from_secs(15)).await;
    trickle.abort();
    let took = started.elapsed();
    assert_eq!(status, 408, "{body}");
    assert_eq!(headers["connection"], "close");
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"], "RequestTimeoutError", "{body}");
    assert!(body["message"].as_str().unwrap().contains("LANGFUSE_HTTP_BODY_READ_TIMEOUT_MS"), "{body}");
    assert!(took >= Duration::from_millis(1400) && took < Duration::from_secs(10), "cut off after {took:?}");

    // gRPC: the same deadline, as DEADLINE_EXCEEDED.
    let endless = futures::stream::unfold((), |()| async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        Some((Ok::<_, std::io::Error>(vec![0u8]), ()))
    });
    let started = Instant::now();
    let (status, message) = payloads::grpc_raw(
        &stack,
        Some(&basic()),
        reqwest::Body::wrap_stream(futures::StreamExt::boxed(endless)),
        false,
    )
    .await;
    assert_eq!(status, tonic::Code::DeadlineExceeded as i32, "{message}");
    assert!(started.elapsed() < Duration::from_secs(10), "cut off after {:?}", started.elapsed());
}

#[tokio::test]
async fn requests_beyond_the_concurrency_limit_wait_then_get_503_while_probes_answer() {
    let (stack, web) = web(&[
        ("LANGFUSE_HTTP_MAX_CONCURRENT_REQUESTS", "2"),
        ("LANGFUSE_HTTP_CONCURRENCY_WAIT_MS", "800"),
        ("LANGFUSE_HTTP_BODY_READ_TIMEOUT_MS", "60000"),
    ])
    .await;
    // Two requests whose bodies never come hold both slots.
    let mut holders = Vec::new();
    for _ in 0..2 {
        let mut stream = TcpStream::connect(http_address(&web)).await.unwrap();
        stream.write_all(post_head("/api/public/ingestion", 100).as_bytes()).await.unwrap();
        holders.push(stream);
    }
    let client = http();
    let traces = format!("{}/api/public/projects", web.base_url);
    let deadline = Instant::now() + Duration::from_secs(20);
    let (busy, waited) = loop {
        let started = Instant::now();
        let response = client.get(&traces).header("Authorization", basic()).send().await.unwrap();
        if response.status() == 503 {
            break (response, started.elapsed());
        }
        assert!(Instant::now() < deadline, "never refused: {}", response.status());
    };
    assert!(waited >= Duration::from_millis(700), "refused without waiting: {waited:?}");
    assert_eq!(busy.headers()["retry-after"], "1");
    let body: serde_json::Value = busy.json().await.unwrap();
    assert_eq!(body["error"], "ServiceUnavailableError", "{body}");
    assert!(body["message"].as_str().unwrap().contains("LANGFUSE_HTTP_MAX_CONCURRENT_REQUESTS"), "{body}");

    // Probes are not counted.
    for probe in ["/api/public/health", "/api/public/ready"] {
        let response = client.get(format!("{}{probe}", web.base_url)).send().await.unwrap();
        assert_eq!(response.status(), 200, "{probe}");
    }
    // gRPC shares the limit.
    let (status, message) = payloads::grpc_raw(&stack, Some(&basic()), Vec::new().into(), false).await;
    assert_eq!(status, tonic::Code::Unavailable as i32, "{message}");

    // A request that waits gets the slot a finished one frees. (The pause only makes sure it is
    // waiting when the slot frees; the assertion does not depend on its length.)
    let queued = tokio::spawn({
        let (client, traces) = (client.clone(), traces.clone());
        async move { client.get(&traces).header("Authorization", basic()).send().await.unwrap().status() }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    drop(holders.pop());
    let status = tokio::time::timeout(Duration::from_secs(10), queued).await.unwrap().unwrap();
    assert_ne!(status, 503, "the freed slot was not handed on");
    assert!(status.is_success(), "{status}");
}
