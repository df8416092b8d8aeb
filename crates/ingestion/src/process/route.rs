//! From one accepted payload to the rows of the configured write mode (spec/v4-migration-spec.md §3.1, DESIGN.md §5):
//!
//! | payload | legacy | dual | events_only |
//! |---|---|---|---|
//! | OTel, direct producer | v3 tables | v3 tables + `events_full` | `events_full` |
//! | OTel, other producer | v3 tables | v3 tables + staging | `events_full` |
//! | legacy batch | v3 tables + scores | v3 tables + staging + scores | scores (the rest was refused at the door) |

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;

use domain::config::{MigrationSettings, WriteMode};
use domain::event::Event;
use domain::pricing::PriceBook;
use domain::sdk::SdkInfo;
use storage::clickhouse::EventSegment;
use storage::queue::{IngestionJob, PayloadKind};

use domain::experiment::ExperimentLink;

use super::ProcessError;
use super::enrich::price_events;
use super::experiments;
use super::v3::{self, V3Updates};
use crate::batch::{BatchContext, parse_batch};
use crate::otel::{ConvertContext, convert_owned};

/// The rows one payload produces.
#[derive(Debug, Default)]
pub struct Prepared {
    /// v4 events as converted, until they are priced and encoded into `encoded`; those of a
    /// payload naming prompts stay here, and are enriched and encoded by the flush, which looks
    /// the prompts' ids up in PostgreSQL.
    pub events: Vec<Event>,
    /// The events, priced and encoded for their insert (`encode_events`).
    pub encoded: Vec<EventSegment>,
    pub v3: V3Updates,
    /// Dataset run items to record for experiment spans, while the v3 tables are written.
    pub experiment_links: Vec<ExperimentLink>,
}

impl Prepared {
    /// Whether an event names a prompt by name and version, whose id is looked up before encoding.
    fn names_prompts(&self) -> bool {
        self.events.iter().any(|event| !event.prompt_name.is_empty() && event.prompt_version.is_some())
    }

    /// [`Self::encode_events`], unless an event names a prompt: those events stay for the flush.
    pub fn encode_unless_named(&mut self, prices: &PriceBook) -> Result<(), ProcessError> {
        if self.names_prompts() {
            return Ok(());
        }
        self.encode_events(prices)
    }

    /// Prices the events and encodes them for their insert, then frees them, on the calling thread:
    /// the one that converted them, while they are still in its caches. Encoding fails only for a
    /// row type the format cannot carry, a bug: the payload is dead-lettered, as a conversion that
    /// panics.
    pub fn encode_events(&mut self, prices: &PriceBook) -> Result<(), ProcessError> {
        price_events(prices, &mut self.events);
        let segments = EventSegment::encode(&self.events)
            .map_err(|error| ProcessError::Permanent(format!("encoding the rows failed: {error}")))?;
        self.encoded.extend(segments);
        self.events = Vec::new();
        Ok(())
    }
}

pub fn prepare(
    job: &IngestionJob,
    payload: &[u8],
    migration: &MigrationSettings,
) -> Result<Prepared, ProcessError> {
    match job.kind {
        PayloadKind::OtlpTraces => prepare_otlp(job, payload, migration),
        PayloadKind::IngestionBatch => prepare_batch(job, payload, migration),
    }
}

fn sdk(job: &IngestionJob) -> SdkInfo {
    SdkInfo {
        name: job.sdk_name.clone(),
        version: job.sdk_version.clone(),
        ingestion_version: job.ingestion_version,
    }
}

pub fn prepare_otlp(
    job: &IngestionJob,
    payload: &[u8],
    migration: &MigrationSettings,
) -> Result<Prepared, ProcessError> {
    let request = ExportTraceServiceRequest::decode(payload).map_err(|e| {
        ProcessError::Permanent(format!("stored OTLP payload {} does not decode: {e}", job.payload_place()))
    })?;
    let sdk = sdk(job);
    let direct = sdk.otel_direct_write(migration.otel_behaviour);
    let mode = migration.write_mode;
    let context = ConvertContext {
        project_id: job.project_id.clone(),
        received_at: job.received_at_micros,
        blob_storage_file_path: job.blob_key.clone(),
        sdk,
        public_key: job.public_key.clone(),
        events_only: !mode.writes_legacy_tables(),
    };
    let spans = convert_owned(request, &context);
    let (mut v3, experiment_links) = if mode.writes_legacy_tables() {
        (v3::from_spans(&spans), spans.iter().filter_map(|span| experiments::link_of(&span.event)).collect())
    } else {
        (V3Updates::default(), Vec::new())
    };
    if mode == WriteMode::Dual && !direct {
        v3.stage_all();
    }
    let events = if mode == WriteMode::EventsOnly || (mode == WriteMode::Dual && direct) {
        spans.into_iter().map(|span| span.event).collect()
    } else {
        Vec::new()
    };
    Ok(Prepared { events, v3, experiment_links, ..Prepared::default() })
}

fn prepare_batch(
    job: &IngestionJob,
    payload: &[u8],
    migration: &MigrationSettings,
) -> Result<Prepared, ProcessError> {
    let context = BatchContext {
        project_id: job.project_id.clone(),
        received_at_millis: job.received_at_micros.div_euclid(1000),
        write_mode: migration.write_mode,
        scores_only: job.scores_only,
        public_key: job.public_key.clone(),
        sdk: sdk(job),
    };
    // Web parsed the same bytes with the same context before accepting them, so this yields the
    // records it acknowledged; a failure here means the stored payload is not what was accepted.
    let parsed = parse_batch(payload, &context).map_err(|e| {
        ProcessError::Permanent(format!("stored batch {} does not parse: {e}", job.payload_place()))
    })?;
    let mut v3 = V3Updates {
        traces: parsed.traces,
        observations: parsed.observations,
        scores: parsed.scores,
        ..V3Updates::default()
    };
    // Legacy-batch SDKs never propagate trace attributes themselves.
    if migration.write_mode == WriteMode::Dual {
        v3.stage_all();
    }
    Ok(Prepared { v3, ..Prepared::default() })
}
