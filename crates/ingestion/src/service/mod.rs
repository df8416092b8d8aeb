//! The one ingestion service behind every entry point. OTLP over HTTP, OTLP over gRPC, the batch
//! endpoint and the single-object POSTs are thin adapters in `web`: they authenticate, read the
//! body, and hand it here with who sent it. Here each body is decoded once (off the async threads:
//! a 4 MB batch is real CPU work), validated, checked against the project's score configs, made
//! durable (`accept`), and answered for event by event.

mod legacy;
mod scores;

use std::sync::Arc;

use bytes::Bytes;
use prost::Message;
use sqlx::PgPool;

use domain::config::WriteMode;
use domain::sdk::SdkInfo;

pub use legacy::{BatchAnswer, ScoresAnswer};

use crate::accept::{Acceptor, Sender};
use crate::batch::{BatchContext, PERSON_KEY_PREFIX};
use crate::error::IngestError;
use crate::otel::{ExportTraceServiceRequest, Parsed, RejectedSpans};

pub struct IngestionService {
    acceptor: Arc<Acceptor>,
    /// For the score configs that scores name.
    postgres: PgPool,
    write_mode: WriteMode,
    /// The cap on an OTLP body once decompressed.
    max_decoded_bytes: usize,
    /// The most bytes of resource attributes an export may have copied into its spans.
    max_resource_copied_bytes: usize,
}

/// `LANGFUSE_OTEL_RESOURCE_ATTRIBUTES_MAX_COPIED_BYTES`'s default, for a service built without it.
pub const DEFAULT_MAX_RESOURCE_COPIED_BYTES: usize = 64 * 1024 * 1024;

/// The SDK headers as sent (`x-langfuse-sdk-name`, `-sdk-version`, `-ingestion-version`).
#[derive(Debug, Clone, Copy, Default)]
pub struct SdkHeaders<'a> {
    pub name: Option<&'a str>,
    pub version: Option<&'a str>,
    pub ingestion_version: Option<&'a str>,
}

/// What became of an export's spans.
#[derive(Debug)]
pub struct Accepted {
    pub spans: usize,
    /// Spans dropped for invalid ids, answered as OTLP partial success.
    pub rejected: Option<RejectedSpans>,
}

impl IngestionService {
    pub fn new(
        acceptor: Arc<Acceptor>,
        postgres: PgPool,
        write_mode: WriteMode,
        max_decoded_bytes: usize,
    ) -> Self {
        Self {
            acceptor,
            postgres,
            write_mode,
            max_decoded_bytes,
            max_resource_copied_bytes: DEFAULT_MAX_RESOURCE_COPIED_BYTES,
        }
    }

    /// Sets the budget of resource attributes copied into spans (`crate::otel::check_resource_budget`).
    pub fn with_max_resource_copied_bytes(mut self, max: usize) -> Self {
        self.max_resource_copied_bytes = max;
        self
    }

    pub fn write_mode(&self) -> WriteMode {
        self.write_mode
    }

    /// Who sends a request: the authenticated project and key, and the client the headers name.
    /// `scores_only` is a public-key-only caller (browser SDK).
    pub fn sender(
        project_id: &str,
        public_key: &str,
        headers: SdkHeaders<'_>,
        scores_only: bool,
    ) -> Result<Sender, IngestError> {
        // A key never speaks for a person (`batch::PERSON_KEY_PREFIX`); none is created this way, and
        // one that was would be refused rather than author scores in someone's name.
        if public_key.starts_with(PERSON_KEY_PREFIX) {
            return Err(IngestError::invalid(format!(
                "API keys starting with {PERSON_KEY_PREFIX:?} are not accepted"
            )));
        }
        let sdk = SdkInfo::from_headers(headers.name, headers.version, headers.ingestion_version)
            .map_err(|e| IngestError::invalid(e.to_string()))?;
        Ok(Sender { project_id: project_id.to_owned(), public_key: public_key.to_owned(), sdk, scores_only })
    }

    /// A signed-in person writing through the UI's routes: the scores they send are theirs
    /// (`authorUserId`), whatever the body says.
    pub fn person_sender(project_id: &str, user_id: &str) -> Sender {
        Sender {
            project_id: project_id.to_owned(),
            public_key: format!("{PERSON_KEY_PREFIX}{user_id}"),
            // The UI writes scores only, which need no trace attributes propagated: it counts as a
            // v4 producer, so the cutover readiness check (`sdk_usage`) never waits on it.
            sdk: SdkInfo {
                name: Some("loupe-ui".to_owned()),
                version: Some(env!("CARGO_PKG_VERSION").to_owned()),
                ingestion_version: Some(domain::sdk::MAX_INGESTION_VERSION),
            },
            scores_only: false,
        }
    }

    /// `POST /api/public/otel/v1/traces`: decodes the export (protobuf or JSON, gzip or not),
    /// drops spans with invalid ids, stores and queues the rest.
    pub async fn otlp(
        &self,
        sender: &Sender,
        body: Bytes,
        content_type: Option<&str>,
        content_encoding: Option<&str>,
    ) -> Result<Accepted, IngestError> {
        let (limit, budget) = (self.max_decoded_bytes, self.max_resource_copied_bytes);
        let (content_type, content_encoding) =
            (content_type.map(str::to_owned), content_encoding.map(str::to_owned));
        let parsed = blocking(move || {
            crate::otel::parse_or_check(
                body,
                content_type.as_deref(),
                content_encoding.as_deref(),
                limit,
                budget,
            )
            .map_err(IngestError::from)
        })
        .await?;
        match parsed {
            Parsed::Plain { spans, protobuf } => {
                self.store_export(sender, spans, protobuf).await?;
                Ok(Accepted { spans, rejected: None })
            }
            Parsed::Decoded(request, protobuf) => self.accept_export(sender, request, protobuf).await,
        }
    }

    /// OTLP over gRPC: tonic has decoded the export already.
    pub async fn export(
        &self,
        sender: &Sender,
        request: ExportTraceServiceRequest,
    ) -> Result<Accepted, IngestError> {
        self.accept_export(sender, request, None).await
    }

    /// Stores and queues a decoded export. `protobuf` is its encoding as the client sent it, when it
    /// sent protobuf (see `export_payload`).
    async fn accept_export(
        &self,
        sender: &Sender,
        request: ExportTraceServiceRequest,
        protobuf: Option<Bytes>,
    ) -> Result<Accepted, IngestError> {
        let (accepted, payload) = export_payload(request, protobuf, self.max_resource_copied_bytes)?;
        if let Some(payload) = payload {
            self.store_export(sender, accepted.spans, payload).await?;
        }
        Ok(accepted)
    }

    async fn store_export(&self, sender: &Sender, spans: usize, payload: Bytes) -> Result<(), IngestError> {
        self.acceptor.accept_otlp(sender, payload).await?;
        tracing::debug!(project_id = %sender.project_id, spans, "otlp export accepted");
        Ok(())
    }

    fn context(&self, sender: &Sender) -> BatchContext {
        BatchContext {
            project_id: sender.project_id.clone(),
            received_at_millis: chrono::Utc::now().timestamp_millis(),
            write_mode: self.write_mode,
            scores_only: sender.scores_only,
            public_key: sender.public_key.clone(),
            sdk: sender.sdk.clone(),
        }
    }
}

/// Events a request carried that were refused while the rest of it was accepted (an OTLP partial
/// success, a batch's 207 errors), which the request's own status does not show.
fn count_rejected(kind: &'static str, count: usize) {
    metrics::counter!("loupe_ingestion_rejected_events_total", "kind" => kind).increment(count as u64);
}

/// What is kept of a decoded export: spans with invalid ids are dropped, and the payload to store
/// is the protobuf as sent unless spans had to be dropped from it (then the export encoded again).
/// No payload for an export without spans; an export whose every span is invalid is refused, and
/// so is one whose resource attributes, copied into its spans, would exceed `max_resource_copied_bytes`.
/// No I/O (only a counter), so the fuzz targets (`fuzz/`) check that the worker reads back whatever
/// this keeps.
pub fn export_payload(
    mut request: ExportTraceServiceRequest,
    protobuf: Option<Bytes>,
    max_resource_copied_bytes: usize,
) -> Result<(Accepted, Option<Bytes>), IngestError> {
    let rejected = crate::otel::reject_invalid_spans(&mut request);
    if let Some(rejected) = &rejected {
        count_rejected("otlp_span", rejected.count);
    }
    let spans =
        request.resource_spans.iter().flat_map(|r| &r.scope_spans).map(|s| s.spans.len()).sum::<usize>();
    if spans == 0 {
        return match rejected {
            Some(rejected) => Err(IngestError::invalid(format!(
                "Invalid OTLP trace export: all {} spans rejected; first: {}",
                rejected.count, rejected.first
            ))),
            None => Ok((Accepted { spans, rejected }, None)),
        };
    }
    crate::otel::check_resource_budget(&request, max_resource_copied_bytes)?;
    let payload = match (protobuf, &rejected) {
        (Some(as_sent), None) => as_sent,
        _ => Bytes::from(request.encode_to_vec()),
    };
    Ok((Accepted { spans, rejected }, Some(payload)))
}

/// Runs CPU work (decoding, validating) on the blocking pool, off the threads serving requests.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, IngestError> + Send + 'static,
) -> Result<T, IngestError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| IngestError::internal(format!("parser task failed: {e}")))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_speaks_for_a_person() {
        let headers = SdkHeaders::default();
        assert!(IngestionService::sender("p", "user:u-1", headers, false).is_err());
        assert!(IngestionService::sender("p", "pk-lf-1", headers, false).is_ok());
        let person = IngestionService::person_sender("p", "u-1");
        assert_eq!(person.public_key, "user:u-1");
        assert!(person.sdk.propagates_trace_attributes(), "the UI never holds up the cutover check");
    }
}
