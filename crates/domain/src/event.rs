//! The v4 observation-centric record: one [`Event`] per span, generation, tool call, … with the
//! trace-level attributes denormalised onto it (spec/v4-migration-spec.md §2). It mirrors the insertable columns of
//! `events_full`; the storage crate turns it into a ClickHouse row.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// Microseconds since the Unix epoch, UTC (the events tables store DateTime64(6)).
pub type Micros = i64;

/// A money amount with 12 decimal places, as ClickHouse's Decimal(18, 12) stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Decimal12(pub i64);

impl Decimal12 {
    const SCALE: f64 = 1e12;

    /// `None` for NaN, infinities, negatives and amounts beyond Decimal(18, 12)'s range (±999 999).
    pub fn from_f64(value: f64) -> Option<Self> {
        let scaled = (value * Self::SCALE).round();
        (value.is_finite() && value >= 0.0 && scaled < 1e18).then_some(Self(scaled as i64))
    }

    pub fn to_f64(self) -> f64 {
        self.0 as f64 / Self::SCALE
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObservationType {
    Span,
    Generation,
    Event,
    Agent,
    Tool,
    Chain,
    Retriever,
    Evaluator,
    Embedding,
    Guardrail,
}

impl ObservationType {
    pub const ALL: [Self; 10] = [
        Self::Span,
        Self::Generation,
        Self::Event,
        Self::Agent,
        Self::Tool,
        Self::Chain,
        Self::Retriever,
        Self::Evaluator,
        Self::Embedding,
        Self::Guardrail,
    ];

    /// The stored spelling (upper case), a stable wire and storage value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Span => "SPAN",
            Self::Generation => "GENERATION",
            Self::Event => "EVENT",
            Self::Agent => "AGENT",
            Self::Tool => "TOOL",
            Self::Chain => "CHAIN",
            Self::Retriever => "RETRIEVER",
            Self::Evaluator => "EVALUATOR",
            Self::Embedding => "EMBEDDING",
            Self::Guardrail => "GUARDRAIL",
        }
    }

    /// Case-insensitive, as SDKs send `generation` and `GENERATION` alike.
    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str().eq_ignore_ascii_case(raw.trim()))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Level {
    Debug,
    #[default]
    Default,
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Debug => "DEBUG",
            Self::Default => "DEFAULT",
            Self::Warning => "WARNING",
            Self::Error => "ERROR",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        [Self::Debug, Self::Default, Self::Warning, Self::Error]
            .into_iter()
            .find(|l| l.as_str().eq_ignore_ascii_case(raw.trim()))
    }
}

impl fmt::Display for ObservationType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Text that every event of a request (or of a scope) carries alike: shared by reference count
/// instead of copied into each event (an allocation and a free per field per span otherwise).
pub type SharedText = Arc<str>;

/// Flat metadata: dotted paths to string values, in the order they should be stored.
pub type Metadata = BTreeMap<String, String>;

/// Experiment fields carried by spans of an experiment run (`langfuse.experiment.*`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Experiment {
    pub id: String,
    pub name: String,
    pub description: String,
    pub metadata: Metadata,
    pub dataset_id: String,
    pub item_id: String,
    pub item_version: Option<Micros>,
    pub item_expected_output: String,
    pub item_metadata: Metadata,
    pub item_root_span_id: String,
}

/// Where a span came from in OTel terms (resource and instrumentation scope).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OtelOrigin {
    pub service_name: String,
    pub service_version: String,
    pub scope_name: String,
    pub scope_version: String,
    pub telemetry_sdk_language: String,
    pub telemetry_sdk_name: String,
    pub telemetry_sdk_version: String,
}

/// One row of `events_full` (and, truncated, of `events_core`).
/// Tools an observation offered the model and the calls it made, as the `tool_*` columns hold
/// them: definitions by name (`{"description","parameters"}` JSON), calls as
/// `{"id","arguments","type","index"}` JSON with their names at the same positions.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tools {
    pub definitions: BTreeMap<String, String>,
    pub calls: Vec<String>,
    pub call_names: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub project_id: String,
    pub trace_id: String,
    pub span_id: String,
    /// Empty for a root.
    pub parent_span_id: String,
    pub start_time: Micros,
    pub end_time: Option<Micros>,
    pub name: String,
    pub observation_type: ObservationType,
    pub environment: String,
    pub version: String,
    pub release: String,
    pub trace_name: String,
    pub user_id: String,
    pub session_id: String,
    pub tags: Vec<String>,
    pub level: Level,
    pub status_message: String,
    pub completion_start_time: Option<Micros>,
    pub is_app_root: bool,
    pub bookmarked: bool,
    pub public: bool,
    pub prompt_id: String,
    pub prompt_name: String,
    pub prompt_version: Option<u16>,
    pub model_id: String,
    pub provided_model_name: String,
    /// JSON object text; `{}` when none.
    pub model_parameters: String,
    pub provided_usage_details: BTreeMap<String, u64>,
    pub usage_details: BTreeMap<String, u64>,
    pub provided_cost_details: BTreeMap<String, Decimal12>,
    pub cost_details: BTreeMap<String, Decimal12>,
    /// The pricing tier the cost was computed with, when it was computed here.
    pub usage_pricing_tier_id: Option<String>,
    pub usage_pricing_tier_name: Option<String>,
    pub tool_definitions: BTreeMap<String, String>,
    pub tool_calls: Vec<String>,
    pub tool_call_names: Vec<String>,
    /// JSON (or plain) text; empty when absent.
    pub input: String,
    pub output: String,
    pub metadata: Metadata,
    /// Boxed: few spans carry one, and inline it would add a quarter of a kilobyte to every event
    /// each time an event moves (into the request's list, the payload's, the batch's).
    pub experiment: Option<Box<Experiment>>,
    /// `otel` (the other sources, `otel-dual-write`, `ingestion-api-dual-write`, `…-backfill`,
    /// are written by SQL, never through this type).
    pub source: &'static str,
    /// Shared by every span of a scope.
    pub origin: Arc<OtelOrigin>,
    /// The request's; shared by its events like the fields below.
    pub blob_storage_file_path: SharedText,
    pub event_bytes: u64,
    pub created_at: Micros,
    pub updated_at: Micros,
    /// The version column: the newest write wins.
    pub event_ts: Micros,
    pub is_deleted: bool,
    pub ingestion_api_key: SharedText,
    pub ingestion_sdk_name: SharedText,
    pub ingestion_sdk_version: SharedText,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_spellings_are_stable() {
        // These strings are stored; changing one orphans existing rows.
        let names: Vec<_> = ObservationType::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(
            names,
            [
                "SPAN",
                "GENERATION",
                "EVENT",
                "AGENT",
                "TOOL",
                "CHAIN",
                "RETRIEVER",
                "EVALUATOR",
                "EMBEDDING",
                "GUARDRAIL"
            ]
        );
        assert_eq!(ObservationType::parse("generation"), Some(ObservationType::Generation));
        assert_eq!(Level::parse("warning"), Some(Level::Warning));
        assert_eq!(Level::parse("loud"), None);
    }

    #[test]
    fn decimal12_rounds_and_refuses_bad_amounts() {
        assert_eq!(Decimal12::from_f64(0.000123), Some(Decimal12(123_000_000)));
        assert_eq!(Decimal12::from_f64(1.5).map(Decimal12::to_f64), Some(1.5));
        assert_eq!(Decimal12::from_f64(-1.0), None);
        assert_eq!(Decimal12::from_f64(f64::NAN), None);
        assert_eq!(Decimal12::from_f64(2e6), None);
    }
}
