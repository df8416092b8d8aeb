//! `events_full` rows: the ClickHouse shape of `domain::event::Event`. `events_core` is filled
//! from it by the materialized view, never written directly.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use bytes::{Bytes, BytesMut};
use clickhouse::Row;
use serde::{Serialize, Serializer};

use domain::event::{Decimal12, Event, Metadata};

use super::partitions::{month_of_micros, parts_by_month};
use super::rowbinary;
use super::{ClickHouse, Work};
use crate::{Error, ErrorKind, Result};

/// Field names are column names; columns left out (MATERIALIZED, ALIAS, the evaluator and skills
/// defaults) are computed by the server.
#[derive(Debug, Row, Serialize)]
pub struct EventRow<'a> {
    project_id: &'a str,
    trace_id: &'a str,
    span_id: &'a str,
    parent_span_id: &'a str,
    start_time: i64,
    end_time: Option<i64>,
    name: &'a str,
    r#type: &'static str,
    environment: &'a str,
    version: &'a str,
    release: &'a str,
    trace_name: &'a str,
    user_id: &'a str,
    session_id: &'a str,
    tags: &'a [String],
    level: &'static str,
    status_message: &'a str,
    completion_start_time: Option<i64>,
    is_app_root: bool,
    bookmarked: bool,
    public: bool,
    prompt_id: &'a str,
    prompt_name: &'a str,
    prompt_version: Option<u16>,
    model_id: &'a str,
    provided_model_name: &'a str,
    model_parameters: &'a str,
    provided_usage_details: &'a BTreeMap<String, u64>,
    usage_details: &'a BTreeMap<String, u64>,
    provided_cost_details: Costs<'a>,
    cost_details: Costs<'a>,
    usage_pricing_tier_id: Option<&'a str>,
    usage_pricing_tier_name: Option<&'a str>,
    tool_definitions: &'a BTreeMap<String, String>,
    tool_calls: &'a [String],
    tool_call_names: &'a [String],
    input: &'a str,
    output: &'a str,
    metadata_names: Keys<'a>,
    metadata_values: Values<'a>,
    experiment_id: &'a str,
    experiment_name: &'a str,
    experiment_metadata_names: Keys<'a>,
    experiment_metadata_values: Values<'a>,
    experiment_description: &'a str,
    experiment_dataset_id: &'a str,
    experiment_item_id: &'a str,
    experiment_item_version: Option<i64>,
    experiment_item_expected_output: &'a str,
    experiment_item_metadata_names: Keys<'a>,
    experiment_item_metadata_values: Values<'a>,
    experiment_item_root_span_id: &'a str,
    source: &'a str,
    service_name: &'a str,
    service_version: &'a str,
    scope_name: &'a str,
    scope_version: &'a str,
    telemetry_sdk_language: &'a str,
    telemetry_sdk_name: &'a str,
    telemetry_sdk_version: &'a str,
    blob_storage_file_path: &'a str,
    event_bytes: u64,
    created_at: i64,
    updated_at: i64,
    event_ts: i64,
    is_deleted: u8,
    ingestion_api_key: &'a str,
    ingestion_sdk_name: &'a str,
    ingestion_sdk_version: &'a str,
}

// The map-shaped columns are written straight from the event's maps. RowBinary encodes a
// `Map(K, V)` as its length and then each key and value, exactly as an array of (key, value)
// tuples, and `metadata_names`/`metadata_values` are the keys and values of one map in key order:
// building a vector of each per row was a good part of the insert's allocations.

static NO_METADATA: Metadata = Metadata::new();

/// Cost amounts: a map of `Decimal12` written as their raw `Int64` values (`Decimal(18, 12)`).
#[derive(Debug)]
struct Costs<'a>(&'a BTreeMap<String, Decimal12>);

impl Serialize for Costs<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v.0)))
    }
}

/// The names of a metadata map, as an `Array(String)`.
#[derive(Debug)]
struct Keys<'a>(&'a Metadata);

impl Serialize for Keys<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.keys())
    }
}

/// The values of a metadata map, in the order of its [`Keys`].
#[derive(Debug)]
struct Values<'a>(&'a Metadata);

impl Serialize for Values<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.values())
    }
}

impl<'a> From<&'a Event> for EventRow<'a> {
    fn from(e: &'a Event) -> Self {
        let experiment = e.experiment.as_deref();
        let text = |f: fn(&'a domain::event::Experiment) -> &'a str| experiment.map(f).unwrap_or("");
        let experiment_metadata = experiment.map_or(&NO_METADATA, |x| &x.metadata);
        let experiment_item_metadata = experiment.map_or(&NO_METADATA, |x| &x.item_metadata);
        Self {
            project_id: &e.project_id,
            trace_id: &e.trace_id,
            span_id: &e.span_id,
            parent_span_id: &e.parent_span_id,
            start_time: e.start_time,
            end_time: e.end_time,
            name: &e.name,
            r#type: e.observation_type.as_str(),
            environment: &e.environment,
            version: &e.version,
            release: &e.release,
            trace_name: &e.trace_name,
            user_id: &e.user_id,
            session_id: &e.session_id,
            tags: &e.tags,
            level: e.level.as_str(),
            status_message: &e.status_message,
            completion_start_time: e.completion_start_time,
            is_app_root: e.is_app_root,
            bookmarked: e.bookmarked,
            public: e.public,
            prompt_id: &e.prompt_id,
            prompt_name: &e.prompt_name,
            prompt_version: e.prompt_version,
            model_id: &e.model_id,
            provided_model_name: &e.provided_model_name,
            model_parameters: &e.model_parameters,
            provided_usage_details: &e.provided_usage_details,
            usage_details: &e.usage_details,
            provided_cost_details: Costs(&e.provided_cost_details),
            cost_details: Costs(&e.cost_details),
            usage_pricing_tier_id: e.usage_pricing_tier_id.as_deref(),
            usage_pricing_tier_name: e.usage_pricing_tier_name.as_deref(),
            tool_definitions: &e.tool_definitions,
            tool_calls: &e.tool_calls,
            tool_call_names: &e.tool_call_names,
            input: &e.input,
            output: &e.output,
            metadata_names: Keys(&e.metadata),
            metadata_values: Values(&e.metadata),
            experiment_id: text(|x| &x.id),
            experiment_name: text(|x| &x.name),
            experiment_metadata_names: Keys(experiment_metadata),
            experiment_metadata_values: Values(experiment_metadata),
            experiment_description: text(|x| &x.description),
            experiment_dataset_id: text(|x| &x.dataset_id),
            experiment_item_id: text(|x| &x.item_id),
            experiment_item_version: experiment.and_then(|x| x.item_version),
            experiment_item_expected_output: text(|x| &x.item_expected_output),
            experiment_item_metadata_names: Keys(experiment_item_metadata),
            experiment_item_metadata_values: Values(experiment_item_metadata),
            experiment_item_root_span_id: text(|x| &x.item_root_span_id),
            source: e.source,
            service_name: &e.origin.service_name,
            service_version: &e.origin.service_version,
            scope_name: &e.origin.scope_name,
            scope_version: &e.origin.scope_version,
            telemetry_sdk_language: &e.origin.telemetry_sdk_language,
            telemetry_sdk_name: &e.origin.telemetry_sdk_name,
            telemetry_sdk_version: &e.origin.telemetry_sdk_version,
            blob_storage_file_path: &e.blob_storage_file_path,
            event_bytes: e.event_bytes,
            created_at: e.created_at,
            updated_at: e.updated_at,
            event_ts: e.event_ts,
            is_deleted: u8::from(e.is_deleted),
            ingestion_api_key: &e.ingestion_api_key,
            ingestion_sdk_name: &e.ingestion_sdk_name,
            ingestion_sdk_version: &e.ingestion_sdk_version,
        }
    }
}

/// One payload's `events_full` rows of one calendar month, encoded (`rowbinary`): what the worker
/// keeps of its events between their conversion and their insert. Cheap to clone (shared bytes).
#[derive(Debug, Clone)]
pub struct EventSegment {
    month: i32,
    rows: usize,
    bytes: Bytes,
}

impl EventSegment {
    /// Encodes `events` into one segment per calendar month they start in, in month order. Rows
    /// keep their order within a month, which is all that order means: two versions of one
    /// span share its start, so its month.
    pub fn encode(events: &[Event]) -> Result<Vec<EventSegment>> {
        let month = |event: &Event| month_of_micros(event.start_time);
        let Some(first) = events.first().map(month) else {
            return Ok(Vec::new());
        };
        if events.iter().all(|event| month(event) == first) {
            return Ok(vec![Self::of(first, events.iter())?]);
        }
        let mut by_month: BTreeMap<i32, Vec<&Event>> = BTreeMap::new();
        for event in events {
            by_month.entry(month(event)).or_default().push(event);
        }
        by_month.into_iter().map(|(month, events)| Self::of(month, events.into_iter())).collect()
    }

    fn of<'e>(month: i32, events: impl ExactSizeIterator<Item = &'e Event> + Clone) -> Result<Self> {
        // Sized once: the texts plus what the other columns of a typical row take.
        let size: usize = events.clone().map(|e| e.input.len() + e.output.len() + ROW_OVERHEAD).sum();
        let mut bytes = Vec::with_capacity(size);
        let rows = events.len();
        for event in events {
            rowbinary::encode(&EventRow::from(event), &mut bytes)
                .map_err(|error| Error::new(ErrorKind::Internal, error.to_string()))?;
        }
        Ok(Self { month, rows, bytes: bytes.into() })
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }
}

/// What a row takes besides its input and output, about: ids, names, metadata, usage.
const ROW_OVERHEAD: usize = 768;

/// Segments are sent as they are when at least this large, and gathered into chunks of about
/// this size otherwise: each chunk is one compressed block of the request.
const CHUNK_BYTES: usize = 256 * 1024;

/// Encodes and inserts events (see [`insert_event_segments`]).
pub async fn insert_events(ch: &ClickHouse, events: &[Event]) -> Result<()> {
    insert_event_segments(ch, &EventSegment::encode(events)?).await
}

/// Inserts encoded rows in one statement; segments spread over more months than one insert may
/// touch go in several (`partitions`).
pub async fn insert_event_segments(ch: &ClickHouse, segments: &[EventSegment]) -> Result<()> {
    for part in parts_by_month(segments, |segment| segment.month) {
        send_segments(ch, part).await?;
    }
    Ok(())
}

async fn send_segments(ch: &ClickHouse, segments: Vec<&EventSegment>) -> Result<()> {
    static STATEMENT: LazyLock<String> = LazyLock::new(|| {
        let columns: Vec<String> = EventRow::COLUMN_NAMES.iter().map(|name| format!("`{name}`")).collect();
        format!("INSERT INTO events_full({}) FORMAT RowBinary", columns.join(","))
    });
    if segments.iter().all(|segment| segment.is_empty()) {
        return Ok(());
    }
    // `optimize_on_insert = 0`: the engine otherwise runs each insert block through the
    // ReplacingMergeTree merge (of events_full, and of events_core through the view) to collapse
    // rows sharing a key within the block: about 30 % of the insert's engine time, measured on
    // the local engine (README, "Ingestion"). Rows sharing a key across inserts exist anyway until
    // a merge, and every read collapses versions itself (`newest_by`), so keeping those within one
    // insert until the merge changes no answer. The rows are not checked against the table's
    // schema on the way (the client's RowBinaryWithNamesAndTypes): the tests of every field check
    // `EventRow` against it, and the store still refuses a row that does not fit.
    let client = ch.client().clone().with_setting("optimize_on_insert", "0");
    let work = async {
        let mut insert = client.insert_formatted_with(STATEMENT.as_str());
        let mut gathered = BytesMut::new();
        for segment in segments {
            if segment.bytes.len() >= CHUNK_BYTES {
                if !gathered.is_empty() {
                    insert.send(gathered.split().freeze()).await?;
                }
                insert.send(segment.bytes.clone()).await?;
                continue;
            }
            gathered.extend_from_slice(&segment.bytes);
            if gathered.len() >= CHUNK_BYTES {
                insert.send(gathered.split().freeze()).await?;
            }
        }
        if !gathered.is_empty() {
            insert.send(gathered.freeze()).await?;
        }
        insert.end().await
    };
    ch.bounded(Work::Write, "events_full", work).await
}
