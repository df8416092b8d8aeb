//! From one accepted payload to the rows of the configured write mode (spec §3.1, DESIGN.md §5).

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;

use domain::config::{MigrationSettings, WriteMode};
use domain::event::Event;
use domain::sdk::SdkInfo;
use storage::queue::{IngestionJob, PayloadKind};

use super::ProcessError;
use crate::otel::{ConvertContext, convert};

/// The rows one payload produces.
#[derive(Debug, Default)]
pub struct Prepared {
    pub events: Vec<Event>,
}

pub fn prepare(
    job: &IngestionJob,
    payload: &[u8],
    migration: &MigrationSettings,
) -> Result<Prepared, ProcessError> {
    match job.kind {
        PayloadKind::OtlpTraces => prepare_otlp(job, payload, migration),
        PayloadKind::IngestionBatch => Err(ProcessError::Permanent(
            "legacy ingestion batches are not processed by this build yet; the payload is kept for replay"
                .into(),
        )),
    }
}

pub fn prepare_otlp(
    job: &IngestionJob,
    payload: &[u8],
    migration: &MigrationSettings,
) -> Result<Prepared, ProcessError> {
    let request = ExportTraceServiceRequest::decode(payload).map_err(|e| {
        ProcessError::Permanent(format!("stored OTLP payload {} does not decode: {e}", job.blob_key))
    })?;
    let sdk = SdkInfo {
        name: job.sdk_name.clone(),
        version: job.sdk_version.clone(),
        ingestion_version: job.ingestion_version,
    };
    let direct = sdk.otel_direct_write(migration.otel_behaviour);
    match (migration.write_mode, direct) {
        (WriteMode::EventsOnly, _) | (WriteMode::Dual, true)
            if !migration.write_mode.writes_legacy_tables() => {}
        (mode, _) => {
            return Err(ProcessError::Permanent(format!(
                "write mode {mode} needs the v3 table writers, which this build does not have yet; \
                 the payload is kept for replay"
            )));
        }
    }
    let context = ConvertContext {
        project_id: job.project_id.clone(),
        received_at: job.received_at_micros,
        blob_storage_file_path: job.blob_key.clone(),
        sdk,
        public_key: job.public_key.clone(),
    };
    Ok(Prepared { events: convert(&request, &context).into_iter().map(|span| span.event).collect() })
}
