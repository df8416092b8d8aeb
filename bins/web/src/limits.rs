//! web's bounds on what one client can hold (docs/limits.md, "Web server limits"): a request body
//! must arrive within its deadline, and only so many requests are served at once, over HTTP and
//! gRPC together. One middleware serves both servers; only the refusals are written differently
//! (a JSON body for HTTP, a gRPC status for gRPC). The header read timeout is the connection's
//! (`server.rs`).

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::CONNECTION;
use axum::http::{HeaderValue, Method, StatusCode, Version};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

use domain::config::HttpLimits;

use crate::error::ApiError;

/// The shared state of the middleware: one semaphore for both servers, so the limit is global.
#[derive(Clone)]
pub struct Limits {
    permits: Arc<Semaphore>,
    settings: HttpLimits,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Protocol {
    Http,
    Grpc,
}

impl Limits {
    pub fn new(settings: HttpLimits) -> Self {
        Self { permits: Arc::new(Semaphore::new(settings.max_concurrent_requests)), settings }
    }
}

/// The middleware of the HTTP server (`axum::middleware::from_fn_with_state`).
pub async fn http(State(limits): State<Limits>, request: Request, next: Next) -> Response {
    limits.apply(Protocol::Http, request, next).await
}

/// The middleware of the gRPC server.
pub async fn grpc(State(limits): State<Limits>, request: Request, next: Next) -> Response {
    limits.apply(Protocol::Grpc, request, next).await
}

impl Limits {
    async fn apply(&self, protocol: Protocol, request: Request, next: Next) -> Response {
        // Probes answer under load: an instance that is merely busy must not be restarted or
        // taken out of rotation for it, which would only move its load elsewhere.
        let counted = !(protocol == Protocol::Http && is_probe(request.uri().path()));
        let _permit = if counted {
            match self.acquire().await {
                Some(permit) => Some(permit),
                None => return self.busy(protocol),
            }
        } else {
            None
        };
        let version = request.version();
        let timeout = self.settings.body_read_timeout;
        let rule = if is_media_upload(&request) { Rule::Idle } else { Rule::Total };
        let expired = Arc::new(AtomicBool::new(false));
        let request = request.map(|body| Body::new(Deadline::new(body, timeout, rule, expired.clone())));
        let response = next.run(request).await;
        // Whatever the handler made of the failed read (tonic, for one, has its own words for it),
        // the client hears why.
        if expired.load(Ordering::Acquire) {
            return slow_body(protocol, timeout, version);
        }
        response
    }

    /// A slot, waiting for one at most `concurrency_wait`.
    async fn acquire(&self) -> Option<OwnedSemaphorePermit> {
        if let Ok(permit) = self.permits.clone().try_acquire_owned() {
            return Some(permit);
        }
        let wait = self.permits.clone().acquire_owned();
        tokio::time::timeout(self.settings.concurrency_wait, wait).await.ok()?.ok()
    }

    fn busy(&self, protocol: Protocol) -> Response {
        let message = format!(
            "Too many requests in progress: this instance serves {} at a time \
             (LANGFUSE_HTTP_MAX_CONCURRENT_REQUESTS); retry shortly",
            self.settings.max_concurrent_requests
        );
        match protocol {
            Protocol::Http => {
                let mut error =
                    ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message, "ServiceUnavailableError");
                error.retry_after = Some(1);
                error.into_response()
            }
            Protocol::Grpc => tonic::Status::unavailable(message).into_http(),
        }
    }
}

/// `GET /api/public/health` and `/ready`, which load balancers and orchestrators poll.
fn is_probe(path: &str) -> bool {
    matches!(path, "/api/public/health" | "/api/public/ready")
}

/// `PUT /api/public/media/{id}/content`: up to `LANGFUSE_S3_MEDIA_MAX_CONTENT_LENGTH` bytes (1 GB by
/// default), read at the pace blob storage takes them, so no fixed total fits it. Its length is
/// announced and signed, so it cannot be endless; a pause is what gives a stalled client away.
fn is_media_upload(request: &Request) -> bool {
    let path = request.uri().path();
    request.method() == Method::PUT && path.starts_with("/api/public/media/") && path.ends_with("/content")
}

fn slow_body(protocol: Protocol, timeout: Duration, version: Version) -> Response {
    let message = format!(
        "The request body did not arrive in time: {} ms allowed (LANGFUSE_HTTP_BODY_READ_TIMEOUT_MS)",
        timeout.as_millis()
    );
    match protocol {
        Protocol::Http => {
            let mut response =
                ApiError::new(StatusCode::REQUEST_TIMEOUT, message, "RequestTimeoutError").into_response();
            // The rest of the body is still on its way: the connection cannot carry another request.
            // (HTTP/2 closes just the stream, and forbids the header.)
            if version <= Version::HTTP_11 {
                response.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
            }
            response
        }
        Protocol::Grpc => tonic::Status::deadline_exceeded(message).into_http(),
    }
}

/// How a body's time is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// The whole body within the timeout of the request's head: a body trickling a byte at a
    /// time is cut off as surely as one that stops.
    Total,
    /// No pause longer than the timeout between two frames.
    Idle,
}

/// A request body with a deadline. Data already received is always handed over, so only a client
/// that is late, never a server that is slow to read, hits the deadline.
struct Deadline {
    inner: Body,
    timer: Pin<Box<Sleep>>,
    timeout: Duration,
    rule: Rule,
    expired: Arc<AtomicBool>,
}

impl Deadline {
    fn new(inner: Body, timeout: Duration, rule: Rule, expired: Arc<AtomicBool>) -> Self {
        Self { inner, timer: Box::pin(tokio::time::sleep(timeout)), timeout, rule, expired }
    }
}

/// The error a late body ends with.
#[derive(Debug)]
struct BodyTimedOut(Duration);

impl std::fmt::Display for BodyTimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "request body not received within {} ms", self.0.as_millis())
    }
}

impl std::error::Error for BodyTimedOut {}

impl http_body::Body for Deadline {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            if this.rule == Rule::Idle && matches!(frame, Some(Ok(_))) {
                this.timer.as_mut().reset(Instant::now() + this.timeout);
            }
            return Poll::Ready(frame);
        }
        if this.timer.as_mut().poll(cx).is_ready() {
            this.expired.store(true, Ordering::Release);
            return Poll::Ready(Some(Err(axum::Error::new(BodyTimedOut(this.timeout)))));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
