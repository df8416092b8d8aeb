//! The event types of the batch API (reference/public-api.md §2.2) and what each implies.

use domain::event::ObservationType;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    TraceCreate,
    Observation(ObservationKind),
    ScoreCreate,
    SdkLog,
    /// Known, but refused on the public endpoint (upstream: internal use only).
    DatasetRunItemCreate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObservationKind {
    pub shape: Shape,
    pub update: bool,
    /// `None` for the legacy `observation-*` events, whose body names the type.
    pub observation_type: Option<ObservationType>,
}

/// Which body schema an observation event is validated with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Event,
    Span,
    /// Generation bodies; also the server-side agent/tool/chain/… types.
    Generation,
    /// `LegacyObservationBody` of `observation-create` / `observation-update`.
    Legacy,
}

pub const SCORE_CREATE: &str = "score-create";
pub const SDK_LOG: &str = "sdk-log";

const fn observation(shape: Shape, update: bool, t: Option<ObservationType>) -> EventKind {
    EventKind::Observation(ObservationKind { shape, update, observation_type: t })
}

const TYPES: [(&str, EventKind); 18] = [
    ("trace-create", EventKind::TraceCreate),
    ("span-create", observation(Shape::Span, false, Some(ObservationType::Span))),
    ("span-update", observation(Shape::Span, true, Some(ObservationType::Span))),
    ("generation-create", observation(Shape::Generation, false, Some(ObservationType::Generation))),
    ("generation-update", observation(Shape::Generation, true, Some(ObservationType::Generation))),
    ("event-create", observation(Shape::Event, false, Some(ObservationType::Event))),
    ("agent-create", observation(Shape::Generation, false, Some(ObservationType::Agent))),
    ("tool-create", observation(Shape::Generation, false, Some(ObservationType::Tool))),
    ("chain-create", observation(Shape::Generation, false, Some(ObservationType::Chain))),
    ("retriever-create", observation(Shape::Generation, false, Some(ObservationType::Retriever))),
    ("evaluator-create", observation(Shape::Generation, false, Some(ObservationType::Evaluator))),
    ("embedding-create", observation(Shape::Generation, false, Some(ObservationType::Embedding))),
    ("guardrail-create", observation(Shape::Generation, false, Some(ObservationType::Guardrail))),
    ("observation-create", observation(Shape::Legacy, false, None)),
    ("observation-update", observation(Shape::Legacy, true, None)),
    (SCORE_CREATE, EventKind::ScoreCreate),
    (SDK_LOG, EventKind::SdkLog),
    ("dataset-run-item-create", EventKind::DatasetRunItemCreate),
];

impl EventKind {
    pub fn parse(name: &str) -> Option<Self> {
        TYPES.iter().find(|(n, _)| *n == name).map(|(_, kind)| *kind)
    }

    /// The names an event `type` may have, for error messages.
    pub fn names() -> impl Iterator<Item = &'static str> {
        TYPES.iter().map(|(n, _)| *n)
    }

    /// Updates are applied after every create of the batch (upstream `sortBatch`).
    pub fn is_update(self) -> bool {
        matches!(self, Self::Observation(ObservationKind { update: true, .. }))
    }
}

/// Score and SDK-log events are the only ones public-key auth and events_only mode accept.
pub fn is_score_or_log(type_name: Option<&str>) -> bool {
    matches!(type_name, Some(SCORE_CREATE | SDK_LOG))
}
