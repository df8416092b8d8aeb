//! web's Prometheus metrics: `GET /metrics` on the API port (outside the OpenAPI document, no
//! credentials), and the request counters and durations every route records (docs/metrics.md).
//!
//! A request is labelled by the route template it matched (`/api/public/traces/{traceId}`), never by
//! its path: paths carry ids, and one series per trace id would grow without bound. Requests no
//! route matched share `route="unmatched"`, and an unusual method is `other`, for the same reason.

use std::time::Instant;

use axum::Router;
use axum::extract::{MatchedPath, Request};
use axum::http::Method;
use axum::http::header::CONTENT_TYPE;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use metrics::{Unit, describe_counter, describe_histogram};
use service::prometheus::{EXPOSITION_CONTENT_TYPE, HTTP_REQUEST_DURATION as DURATION, PrometheusHandle};

use crate::state::AppState;

/// Where the metrics are served.
pub const PATH: &str = "/metrics";

const REQUESTS: &str = "loupe_http_requests_total";

/// The route label of the OTLP/gRPC export, the one gRPC method web serves.
pub const GRPC_EXPORT_ROUTE: &str = "grpc:/opentelemetry.proto.collector.trace.v1.TraceService/Export";

/// Wraps every route of `router` in the request metrics and mounts `GET /metrics` (not itself
/// counted: a scrape every few seconds would drown the routes people look for). Without a handle
/// (`LANGFUSE_METRICS_ENABLED=false`) the router is returned as it was.
pub fn instrument(router: Router<AppState>, metrics: Option<&PrometheusHandle>) -> Router<AppState> {
    let Some(handle) = metrics.cloned() else { return router };
    describe();
    router.layer(middleware::from_fn(track)).route(
        PATH,
        get(move || std::future::ready(([(CONTENT_TYPE, EXPOSITION_CONTENT_TYPE)], handle.render()))),
    )
}

fn describe() {
    describe_counter!(REQUESTS, "HTTP requests answered, by matched route template, method and status.");
    describe_histogram!(
        DURATION,
        Unit::Seconds,
        "Time from request to response headers, by route template and method."
    );
    describe_counter!(
        "loupe_ingestion_accepted_payloads_total",
        "Payloads made durable (blob + stream entry) and acknowledged, by kind."
    );
    describe_counter!(
        "loupe_ingestion_accepted_bytes_total",
        Unit::Bytes,
        "Bytes of the payloads acknowledged, as stored, by kind."
    );
    describe_counter!(
        "loupe_ingestion_refused_payloads_total",
        "Valid payloads that could not be accepted, by reason (backlog_full: 503 with Retry-After; storage: blob or stream write failed)."
    );
    describe_histogram!(
        "loupe_ingestion_accept_wait_seconds",
        Unit::Seconds,
        "Time an accepted payload waited for a blob writer (group commit) before its group was written."
    );
    describe_histogram!(
        "loupe_ingestion_accept_blob_write_seconds",
        Unit::Seconds,
        "One blob write (PUT) of a group of accepted payloads, by outcome."
    );
    describe_histogram!(
        "loupe_ingestion_accept_queue_append_seconds",
        Unit::Seconds,
        "Appending a group's stream entries to Redis after its blobs were stored, by outcome."
    );
    describe_counter!(
        "loupe_ingestion_rejected_events_total",
        "Events refused inside an otherwise answered request (OTLP partial success, batch 207 errors), by kind."
    );
}

/// The layer: counts and times one request under its route template.
async fn track(request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().map_or("unmatched", MatchedPath::as_str).to_owned();
    let method = method_label(request.method());
    let started = Instant::now();
    let response = next.run(request).await;
    record(route, method, response.status().as_str().to_owned(), started);
    response
}

/// Records one answered call; also used for gRPC, whose status is the gRPC code's name.
pub fn record(route: String, method: &'static str, status: String, started: Instant) {
    metrics::histogram!(DURATION, "route" => route.clone(), "method" => method)
        .record(started.elapsed().as_secs_f64());
    metrics::counter!(REQUESTS, "route" => route, "method" => method, "status" => status).increment(1);
}

/// The method as a label: the methods the API uses by name, anything else as `other`.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use axum::http::Method;

    #[test]
    fn unusual_methods_share_one_label() {
        assert_eq!(super::method_label(&Method::DELETE), "DELETE");
        assert_eq!(super::method_label(&Method::from_bytes(b"BREW").unwrap_or(Method::TRACE)), "other");
        assert_eq!(super::method_label(&Method::TRACE), "other");
    }
}
