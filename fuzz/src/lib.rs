//! What the fuzz targets share: the property every accepted export must keep, and the generator of
//! structured exports for the `convert` target. Nothing of ingestion's logic is repeated here: the
//! targets call the functions web and the worker call.

use std::collections::HashMap;
use std::sync::OnceLock;

use bytes::Bytes;
use libfuzzer_sys::arbitrary::{Arbitrary, Result, Unstructured};
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::common::v1::{
    AnyValue, ArrayValue, InstrumentationScope, KeyValue, KeyValueList,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::span::{Event, Link};
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span, Status};

use domain::config::{MigrationSettings, OtelBehaviour, WriteMode};
use domain::sdk::SdkInfo;
use ingestion::batch::BatchContext;
use ingestion::otel::{ConvertContext, ExportTraceServiceRequest};
use storage::queue::{IngestionJob, PayloadKind};

const PROJECT: &str = "project-fuzz";
const RECEIVED_AT_MICROS: i64 = 1_800_000_000_000_000;

fn sdk() -> SdkInfo {
    SdkInfo { name: Some("python".into()), version: Some("3.15.0".into()), ingestion_version: None }
}

/// What a client's request carries besides its body, as web fills it in.
pub fn batch_context() -> BatchContext {
    BatchContext {
        project_id: PROJECT.into(),
        received_at_millis: RECEIVED_AT_MICROS / 1000,
        write_mode: WriteMode::Dual,
        scores_only: false,
        public_key: "pk-lf-fuzz".into(),
        sdk: sdk(),
    }
}

pub fn convert_context() -> ConvertContext {
    ConvertContext {
        project_id: PROJECT.into(),
        received_at: RECEIVED_AT_MICROS,
        blob_storage_file_path: "otel/fuzz".into(),
        sdk: sdk(),
        public_key: "pk-lf-fuzz".into(),
        events_only: false,
    }
}

/// Dual writes with direct OTel writes: both data models, so both conversions run.
fn migration() -> MigrationSettings {
    MigrationSettings {
        write_mode: WriteMode::Dual,
        otel_behaviour: OtelBehaviour::Direct,
        allow_preview_opt_in: false,
        enable_historic_backfill: false,
        drop_pid_tid_sorting_tables: false,
        propagation_stuck_threshold: std::time::Duration::from_secs(600),
    }
}

/// The default budget of resource attributes copied into spans (64 MiB), as web applies it.
pub const RESOURCE_BUDGET: usize = 64 * 1024 * 1024;

/// An export web decoded: what web keeps of it (`export_payload`) must be what the worker reads
/// back and converts, one event per kept span. A failure here is an acknowledged export lost.
pub fn accept_and_process(request: ExportTraceServiceRequest, as_sent: Option<Bytes>) {
    let Ok((accepted, Some(payload))) = ingestion::service::export_payload(request, as_sent, RESOURCE_BUDGET)
    else {
        return;
    };
    process_accepted(&payload, accepted.spans);
}

/// The worker's side of an export web accepted with `spans` spans: it must convert every one.
pub fn process_accepted(payload: &[u8], spans: usize) {
    let job = IngestionJob {
        kind: PayloadKind::OtlpTraces,
        project_id: PROJECT.into(),
        blob_key: "otel/fuzz".into(),
        part: None,
        public_key: "pk-lf-fuzz".into(),
        sdk_name: Some("python".into()),
        sdk_version: Some("3.15.0".into()),
        ingestion_version: None,
        scores_only: false,
        received_at_micros: RECEIVED_AT_MICROS,
    };
    let mut prepared = ingestion::process::prepare_otlp(&job, payload, &migration())
        .unwrap_or_else(|e| panic!("the worker cannot process an accepted export: {e}"));
    assert_eq!(prepared.events.len(), spans, "one event per accepted span");
    // Then, as the worker does on the same thread: priced and encoded for the insert.
    prepared
        .encode_events(&domain::pricing::PriceBook::default())
        .unwrap_or_else(|e| panic!("the worker cannot encode an accepted export's rows: {e}"));
    let rows: usize = prepared.encoded.iter().map(|segment| segment.rows()).sum();
    assert_eq!(rows, spans, "one row per event");
}

/// The entries of `dict/otlp.dict` named `name` (`attribute="…"`): the attribute keys, scope
/// names and values the conversion rules look for, shared with libFuzzer's `-dict`.
fn vocabulary(name: &str) -> &'static [String] {
    static WORDS: OnceLock<HashMap<&'static str, Vec<String>>> = OnceLock::new();
    let words = WORDS.get_or_init(|| {
        let mut words = HashMap::<&str, Vec<String>>::new();
        for line in include_str!("../dict/otlp.dict").lines() {
            let Some((name, quoted)) = line.split_once('=') else { continue };
            let Some(text) = quoted.strip_prefix('"').and_then(|q| q.strip_suffix('"')) else { continue };
            words.entry(name).or_default().push(text.replace("\\\"", "\""));
        }
        words
    });
    words.get(name).map_or(&[], Vec::as_slice)
}

fn word(u: &mut Unstructured<'_>, name: &str) -> Result<String> {
    Ok(u.choose(vocabulary(name))?.clone())
}

/// Short text, mostly from the vocabulary: libFuzzer mutates the choices, not the spelling.
fn text(u: &mut Unstructured<'_>) -> Result<String> {
    match u.int_in_range(0..=9)? {
        0..=2 => String::arbitrary(u),
        3..=6 => word(u, "text"),
        7 => word(u, "attribute"),
        _ => Ok(json_text(u, 0)?),
    }
}

/// JSON text, the way SDKs put objects into string attributes (messages, metadata, tool calls).
fn json_text(u: &mut Unstructured<'_>, depth: usize) -> Result<String> {
    Ok(match u.int_in_range(0..=7)? {
        0 => "null".into(),
        1 => bool::arbitrary(u)?.to_string(),
        2 => i64::arbitrary(u)?.to_string(),
        3 => format!("{:?}", String::arbitrary(u)?),
        4 => format!("{:?}", word(u, "text")?),
        5 | 6 if depth < 6 => {
            let fields = (0..u.int_in_range(0..=4)?)
                .map(|_| Ok(format!("{:?}:{}", word(u, "json_field")?, json_text(u, depth + 1)?)))
                .collect::<Result<Vec<_>>>()?;
            format!("{{{}}}", fields.join(","))
        }
        _ if depth < 6 => {
            let items =
                (0..u.int_in_range(0..=3)?).map(|_| json_text(u, depth + 1)).collect::<Result<Vec<_>>>()?;
            format!("[{}]", items.join(","))
        }
        _ => "{}".into(),
    })
}

/// A known key, a known prefix with dotted segments (`gen_ai.prompt.0.role`,
/// `langfuse.trace.metadata.a.b`), or anything.
fn key(u: &mut Unstructured<'_>) -> Result<String> {
    match u.int_in_range(0..=9)? {
        0 => String::arbitrary(u),
        1..=3 => {
            let mut key = word(u, "attribute")?;
            for _ in 0..u.int_in_range(1..=3)? {
                key.push('.');
                key.push_str(&match u.int_in_range(0..=2)? {
                    0 => u.int_in_range(0..=3u8)?.to_string(),
                    1 => word(u, "json_field")?,
                    _ => String::arbitrary(u)?,
                });
            }
            Ok(key)
        }
        _ => word(u, "attribute"),
    }
}

fn any_value(u: &mut Unstructured<'_>, depth: usize) -> Result<AnyValue> {
    let nested = depth < 8;
    let value = match u.int_in_range(0..=11)? {
        0..=3 => Some(Any::StringValue(text(u)?)),
        4 => Some(Any::BoolValue(bool::arbitrary(u)?)),
        5 => Some(Any::IntValue(i64::arbitrary(u)?)),
        6 => Some(Any::DoubleValue(f64::arbitrary(u)?)),
        7 => Some(Any::BytesValue(Vec::arbitrary(u)?)),
        8 if nested => Some(Any::ArrayValue(ArrayValue {
            values: (0..u.int_in_range(0..=3)?).map(|_| any_value(u, depth + 1)).collect::<Result<_>>()?,
        })),
        9 if nested => Some(Any::KvlistValue(KeyValueList { values: attributes(u, 3, depth + 1)? })),
        10 => Some(Any::StringValue(json_text(u, 0)?)),
        _ => None,
    };
    Ok(AnyValue { value })
}

fn attributes(u: &mut Unstructured<'_>, max: usize, depth: usize) -> Result<Vec<KeyValue>> {
    (0..u.int_in_range(0..=max)?)
        .map(|_| {
            Ok(KeyValue {
                key: key(u)?,
                value: if u.ratio(1, 16)? { None } else { Some(any_value(u, depth)?) },
                ..Default::default()
            })
        })
        .collect()
}

/// Mostly valid ids (so spans reach conversion), sometimes any bytes.
fn id(u: &mut Unstructured<'_>, len: usize) -> Result<Vec<u8>> {
    if u.ratio(1, 16)? {
        return Vec::arbitrary(u);
    }
    let mut bytes = u.bytes(len)?.to_vec();
    bytes.resize(len, 0);
    bytes[0] |= 1;
    Ok(bytes)
}

fn span(u: &mut Unstructured<'_>, trace_id: &[u8]) -> Result<Span> {
    Ok(Span {
        trace_id: if u.ratio(1, 4)? { id(u, 16)? } else { trace_id.to_vec() },
        span_id: id(u, 8)?,
        parent_span_id: if bool::arbitrary(u)? { Vec::new() } else { id(u, 8)? },
        name: text(u)?,
        kind: u.int_in_range(0..=6)?,
        start_time_unix_nano: u64::arbitrary(u)?,
        end_time_unix_nano: u64::arbitrary(u)?,
        attributes: attributes(u, 16, 0)?,
        events: (0..u.int_in_range(0..=3)?)
            .map(|_| {
                Ok(Event {
                    name: word(u, "text")?,
                    time_unix_nano: u64::arbitrary(u)?,
                    attributes: attributes(u, 4, 0)?,
                    ..Default::default()
                })
            })
            .collect::<Result<_>>()?,
        links: (0..u.int_in_range(0..=1)?)
            .map(|_| {
                Ok(Link {
                    trace_id: id(u, 16)?,
                    span_id: id(u, 8)?,
                    attributes: attributes(u, 2, 0)?,
                    ..Default::default()
                })
            })
            .collect::<Result<_>>()?,
        status: if bool::arbitrary(u)? {
            Some(Status { code: u.int_in_range(0..=3)?, message: text(u)? })
        } else {
            None
        },
        ..Default::default()
    })
}

/// An export built from the fuzzer's bytes, in the shapes SDKs send.
#[derive(Debug)]
pub struct Export(pub ExportTraceServiceRequest);

impl<'a> Arbitrary<'a> for Export {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let trace_id = id(u, 16)?;
        let resource_spans = (0..u.int_in_range(1..=2)?)
            .map(|_| {
                Ok(ResourceSpans {
                    resource: Some(Resource { attributes: attributes(u, 4, 0)?, ..Default::default() }),
                    scope_spans: (0..u.int_in_range(1..=2)?)
                        .map(|_| {
                            Ok(ScopeSpans {
                                scope: Some(InstrumentationScope {
                                    name: if u.ratio(1, 8)? {
                                        String::arbitrary(u)?
                                    } else {
                                        word(u, "scope")?
                                    },
                                    version: text(u)?,
                                    attributes: attributes(u, 2, 0)?,
                                    ..Default::default()
                                }),
                                spans: (0..u.int_in_range(1..=4)?)
                                    .map(|_| span(u, &trace_id))
                                    .collect::<Result<_>>()?,
                                ..Default::default()
                            })
                        })
                        .collect::<Result<_>>()?,
                    ..Default::default()
                })
            })
            .collect::<Result<_>>()?;
        Ok(Export(ExportTraceServiceRequest { resource_spans }))
    }
}

impl Export {
    pub fn spans(&self) -> usize {
        self.0.resource_spans.iter().flat_map(|r| &r.scope_spans).map(|s| s.spans.len()).sum()
    }
}
