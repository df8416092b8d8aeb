//! OTLP over gRPC (`TraceService/Export` on `LANGFUSE_OTEL_GRPC_PORT`): the same authentication,
//! SDK headers, validation and acceptance as the HTTP endpoint, read from gRPC metadata. Each call
//! that reaches the handler is counted with the HTTP requests (`route="grpc:…/Export"`).

use std::net::SocketAddr;
use std::time::Instant;

use anyhow::Context;
use axum::http::StatusCode;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use tokio_util::sync::CancellationToken;
use tonic::codec::CompressionEncoding;
use tonic::{Request, Response, Status};

use ingestion::error::IngestError;

use crate::auth::authenticate_project;
use crate::error::ApiError;
use crate::ingest;
use crate::prometheus::GRPC_EXPORT_ROUTE;
use crate::state::AppState;

struct OtlpTraces {
    state: AppState,
}

#[tonic::async_trait]
impl TraceService for OtlpTraces {
    async fn export(
        &self,
        request: Request<ExportTraceServiceRequest>,
    ) -> Result<Response<ExportTraceServiceResponse>, Status> {
        let started = Instant::now();
        let answer = self.answer(request).await;
        if self.state.metrics.is_some() {
            let code = answer.as_ref().map_or_else(Status::code, |_| tonic::Code::Ok);
            crate::prometheus::record(GRPC_EXPORT_ROUTE.to_owned(), "POST", code_label(code), started);
        }
        answer
    }
}

impl OtlpTraces {
    async fn answer(
        &self,
        request: Request<ExportTraceServiceRequest>,
    ) -> Result<Response<ExportTraceServiceResponse>, Status> {
        let headers = request.metadata().clone().into_headers();
        let auth = authenticate_project(&self.state, &headers).await.map_err(status)?;
        let sender = ingest::sender(&auth, &headers, false).map_err(status)?;
        let accepted =
            self.state.ingestion.export(&sender, request.into_inner()).await.map_err(ingest_status)?;
        let partial_success = accepted.rejected.map(|rejected| ExportTracePartialSuccess {
            rejected_spans: i64::try_from(rejected.count).unwrap_or(i64::MAX),
            error_message: rejected.first,
        });
        Ok(Response::new(ExportTraceServiceResponse { partial_success }))
    }
}

/// A gRPC status as the `status` label: the code's name as gRPC's own tools print it (`OK`,
/// `InvalidArgument`, `Unauthenticated`, …).
fn code_label(code: tonic::Code) -> String {
    match code {
        tonic::Code::Ok => "OK".to_owned(),
        other => format!("{other:?}"),
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

pub async fn serve(state: AppState, shutdown: CancellationToken) -> anyhow::Result<()> {
    let server = &state.config.server;
    let address = SocketAddr::new(server.listen_address, server.otel_grpc_port);
    let limit = state.config.ingestion.max_body_bytes;
    let service = TraceServiceServer::new(OtlpTraces { state })
        .accept_compressed(CompressionEncoding::Gzip)
        .max_decoding_message_size(limit);
    tracing::info!(%address, "otlp grpc listening");
    tonic::transport::Server::builder()
        .add_service(service)
        .serve_with_shutdown(address, shutdown.cancelled_owned())
        .await
        .with_context(|| format!("otlp grpc server on {address}"))
}
