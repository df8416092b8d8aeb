//! OTLP over gRPC (`TraceService/Export` on `LANGFUSE_OTEL_GRPC_PORT`): the same authentication,
//! SDK headers, validation and acceptance as the HTTP endpoint, read from gRPC metadata.
//!
//! The key is checked before tonic reads the body (`authenticated`): an unknown caller costs a
//! key lookup, never a decompression or a decode of up to `LANGFUSE_INGESTION_MAX_BODY_BYTES`.
//! Every call is counted there too, with the HTTP requests (`route="grpc:…/Export"`).

use std::time::Instant;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use tonic::codec::CompressionEncoding;
use tonic::service::Routes;
use tonic::{Code, Status};

use ingestion::error::IngestError;

use crate::auth::{ProjectAuth, authenticate_project};
use crate::error::ApiError;
use crate::ingest;
use crate::prometheus::GRPC_EXPORT_ROUTE;
use crate::state::AppState;

/// The OTLP trace service behind its key check, as a router `server::run` serves.
pub fn router(state: AppState) -> Router {
    let limit = state.config.ingestion.max_body_bytes;
    // tonic caps the message before and after gzip: it stops inflating at the limit.
    let service = TraceServiceServer::new(OtlpTraces { state: state.clone() })
        .accept_compressed(CompressionEncoding::Gzip)
        .max_decoding_message_size(limit);
    Routes::new(service)
        .prepare()
        .into_axum_router()
        .layer(axum::middleware::from_fn_with_state(state, authenticated))
}

/// Authenticates from the metadata (the request head) and hands the project to the handler; a bad
/// key is answered UNAUTHENTICATED without a byte of the body read.
async fn authenticated(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let started = Instant::now();
    let response = match authenticate_project(&state, request.headers()).await {
        Ok(auth) => {
            request.extensions_mut().insert(auth);
            message_too_large_is_resource_exhausted(next.run(request).await)
        }
        Err(error) => status(error).into_http(),
    };
    if state.metrics.is_some() {
        crate::prometheus::record(GRPC_EXPORT_ROUTE.to_owned(), "POST", code_label(&response), started);
    }
    response
}

/// The call's gRPC status as the `status` label, named as gRPC's own tools print it (`OK`,
/// `InvalidArgument`, `Unauthenticated`, …). A refusal is answered "trailers-only", its status in
/// the head; a success carries it in the trailers, after the body, so no status in the head is OK.
fn code_label(response: &Response) -> String {
    let code = response
        .headers()
        .get("grpc-status")
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.parse::<i32>().ok())
        .map_or(Code::Ok, Code::from_i32);
    match code {
        Code::Ok => "OK".to_owned(),
        other => format!("{other:?}"),
    }
}

/// tonic refuses a message above the size limit before reading it with OUT_OF_RANGE, a code OTLP
/// exporters retry; too large is RESOURCE_EXHAUSTED, as for a message that inflates past the
/// limit, and as HTTP's 413. The handler answers no OUT_OF_RANGE of its own (`ingest_status`).
fn message_too_large_is_resource_exhausted(response: Response) -> Response {
    match response.extensions().get::<Status>() {
        Some(refusal) if refusal.code() == Code::OutOfRange => {
            Status::resource_exhausted(refusal.message().to_owned()).into_http()
        }
        _ => response,
    }
}

struct OtlpTraces {
    state: AppState,
}

#[tonic::async_trait]
impl TraceService for OtlpTraces {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, Status> {
        // Put there by `authenticated`, which every call passes through.
        let auth = request
            .extensions()
            .get::<ProjectAuth>()
            .cloned()
            .ok_or_else(|| Status::unauthenticated("not authenticated"))?;
        let headers = request.metadata().clone().into_headers();
        let sender = ingest::sender(&auth, &headers, false).map_err(status)?;
        let accepted =
            self.state.ingestion.export(&sender, request.into_inner()).await.map_err(ingest_status)?;
        let partial_success = accepted.rejected.map(|rejected| ExportTracePartialSuccess {
            rejected_spans: i64::try_from(rejected.count).unwrap_or(i64::MAX),
            error_message: rejected.first,
        });
        Ok(tonic::Response::new(ExportTraceServiceResponse { partial_success }))
    }
}

/// An ingestion refusal in gRPC terms: the code its kind names.
fn ingest_status(error: IngestError) -> Status {
    Status::new(tonic::Code::from_i32(error.kind.grpc_code() as i32), error.message)
}

/// An authentication or header error (answered before ingestion), in gRPC terms.
fn status(error: ApiError) -> Status {
    let message = error.message;
    match error.status {
        StatusCode::UNAUTHORIZED => Status::unauthenticated(message),
        StatusCode::FORBIDDEN => Status::permission_denied(message),
        StatusCode::BAD_REQUEST | StatusCode::UNSUPPORTED_MEDIA_TYPE => Status::invalid_argument(message),
        StatusCode::PAYLOAD_TOO_LARGE => Status::resource_exhausted(message),
        StatusCode::SERVICE_UNAVAILABLE => Status::unavailable(message),
        _ => Status::internal(message),
    }
}
