//! The v3 records: one row each of `traces`, `observations` and `scores`, as legacy and dual write
//! modes store them (reference/storage.md §1). Timestamps are milliseconds (DateTime64(3)).
//!
//! Writes are upserts: a record carries every column, and a later `event_ts` replaces the earlier
//! row. Partial updates (a `span-update`, an OTel child span that only names the trace's user) are
//! merged onto the stored record before writing; [`TraceRecord::merge`] and
//! [`ObservationRecord::merge`] say which side wins.

use std::collections::BTreeMap;

use crate::event::{Decimal12, Level, ObservationType};

/// Milliseconds since the Unix epoch, UTC.
pub type Millis = i64;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct TraceRecord {
    pub id: String,
    pub project_id: String,
    pub timestamp: Millis,
    pub name: Option<String>,
    pub user_id: Option<String>,
    pub session_id: Option<String>,
    pub release: Option<String>,
    pub version: Option<String>,
    pub environment: String,
    pub public: bool,
    pub bookmarked: bool,
    pub tags: Vec<String>,
    pub metadata: BTreeMap<String, String>,
    pub input: Option<String>,
    pub output: Option<String>,
    pub created_at: Millis,
    pub updated_at: Millis,
    pub event_ts: Millis,
}

impl TraceRecord {
    /// Applies a newer partial record: every field the update states wins, tags add up (upstream
    /// keeps them as a sorted set), metadata merges key by key, and what the update only implies
    /// fills what the trace does not have yet ([`ImpliedTrace`]). `created_at` and the original
    /// `timestamp` stay (an update does not move a trace).
    pub fn merge(&mut self, update: &TraceUpdate) {
        let set = |target: &mut Option<String>, value: &Option<String>| {
            if value.is_some() {
                target.clone_from(value);
            }
        };
        set(&mut self.name, &update.name);
        set(&mut self.user_id, &update.user_id);
        set(&mut self.session_id, &update.session_id);
        set(&mut self.release, &update.release);
        set(&mut self.version, &update.version);
        set(&mut self.input, &update.input);
        set(&mut self.output, &update.output);
        if let Some(environment) = &update.environment {
            self.environment.clone_from(environment);
        }
        if let Some(public) = update.public {
            self.public = public;
        }
        if let Some(tags) = &update.tags {
            self.tags.extend(tags.iter().cloned());
            self.tags.sort();
            self.tags.dedup();
        }
        self.metadata.extend(update.metadata.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.fill(&update.implied);
        if let Some(timestamp) = update.timestamp
            && self.timestamp == 0
        {
            self.timestamp = timestamp;
        }
        self.updated_at = self.updated_at.max(update.event_ts);
        self.event_ts = self.event_ts.max(update.event_ts);
    }

    /// Implied values only where the trace has none: a stated value, stored or in this update,
    /// is never replaced by one.
    fn fill(&mut self, implied: &ImpliedTrace) {
        let fill = |target: &mut Option<String>, value: &Option<String>| {
            if target.as_deref().is_none_or(str::is_empty) && value.is_some() {
                target.clone_from(value);
            }
        };
        fill(&mut self.name, &implied.name);
        fill(&mut self.release, &implied.release);
        fill(&mut self.version, &implied.version);
        for (key, value) in &implied.metadata {
            self.metadata.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
}

/// What a span implies about its trace without stating it: an OTel root span names its trace
/// after itself, the resource's `service.version` and `langfuse.release` stand in for the span's
/// own, and a root span's observation metadata and context (`resourceAttributes.*`, `scope.*`)
/// are copied onto the trace. Each only fills a field the trace does not have yet, so a value a
/// span states (`langfuse.trace.name`, `langfuse.version`, `langfuse.trace.metadata.*`, …) wins
/// whichever span arrives first: a child flushed before its root keeps the trace name it set.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ImpliedTrace {
    pub name: Option<String>,
    pub release: Option<String>,
    pub version: Option<String>,
    pub metadata: BTreeMap<String, String>,
}

impl ImpliedTrace {
    /// Two implied updates of one trace: the first one's values stay, as on a stored record.
    pub fn fill_from(&mut self, other: ImpliedTrace) {
        self.name = self.name.take().or(other.name);
        self.release = self.release.take().or(other.release);
        self.version = self.version.take().or(other.version);
        for (key, value) in other.metadata {
            self.metadata.entry(key).or_insert(value);
        }
    }
}

/// What one event says about a trace; `None` means "not said".
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TraceUpdate {
    pub id: String,
    pub project_id: String,
    pub timestamp: Option<Millis>,
    pub name: Option<String>,
    pub user_id: Option<String>,
    pub session_id: Option<String>,
    pub release: Option<String>,
    pub version: Option<String>,
    pub environment: Option<String>,
    pub public: Option<bool>,
    pub tags: Option<Vec<String>>,
    pub metadata: BTreeMap<String, String>,
    pub input: Option<String>,
    pub output: Option<String>,
    /// What the event implies rather than states; never replaces a value.
    pub implied: ImpliedTrace,
    /// When the event was accepted; becomes the record's version.
    pub event_ts: Millis,
}

impl TraceUpdate {
    /// A record made from this update alone (nothing stored yet).
    pub fn into_record(self) -> TraceRecord {
        let mut record = TraceRecord {
            id: self.id.clone(),
            project_id: self.project_id.clone(),
            environment: "default".to_owned(),
            created_at: self.event_ts,
            updated_at: self.event_ts,
            event_ts: self.event_ts,
            ..TraceRecord::default()
        };
        record.merge(&self);
        record.timestamp = self.timestamp.unwrap_or(self.event_ts);
        record
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObservationRecord {
    pub id: String,
    pub trace_id: String,
    pub project_id: String,
    pub environment: String,
    pub observation_type: Option<ObservationType>,
    pub parent_observation_id: Option<String>,
    pub start_time: Millis,
    pub end_time: Option<Millis>,
    pub name: String,
    pub metadata: BTreeMap<String, String>,
    pub level: Level,
    pub status_message: Option<String>,
    pub version: Option<String>,
    pub input: Option<String>,
    pub output: Option<String>,
    pub provided_model_name: Option<String>,
    pub internal_model_id: Option<String>,
    /// JSON object text.
    pub model_parameters: Option<String>,
    pub provided_usage_details: BTreeMap<String, u64>,
    pub usage_details: BTreeMap<String, u64>,
    pub provided_cost_details: BTreeMap<String, Decimal12>,
    pub cost_details: BTreeMap<String, Decimal12>,
    pub total_cost: Option<Decimal12>,
    pub completion_start_time: Option<Millis>,
    pub prompt_id: Option<String>,
    pub prompt_name: Option<String>,
    pub prompt_version: Option<u16>,
    pub created_at: Millis,
    pub updated_at: Millis,
    pub event_ts: Millis,
    /// Derived from `input` and `output` once updates are merged, never sent by clients.
    pub tools: crate::event::Tools,
}

/// What one event says about an observation; `None` / empty means "not said".
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObservationUpdate {
    pub id: String,
    pub trace_id: Option<String>,
    pub project_id: String,
    pub environment: Option<String>,
    pub observation_type: Option<ObservationType>,
    pub parent_observation_id: Option<String>,
    pub start_time: Option<Millis>,
    pub end_time: Option<Millis>,
    pub name: Option<String>,
    pub metadata: BTreeMap<String, String>,
    pub level: Option<Level>,
    pub status_message: Option<String>,
    pub version: Option<String>,
    pub input: Option<String>,
    pub output: Option<String>,
    pub provided_model_name: Option<String>,
    pub model_parameters: Option<String>,
    pub provided_usage_details: BTreeMap<String, u64>,
    pub provided_cost_details: BTreeMap<String, Decimal12>,
    pub completion_start_time: Option<Millis>,
    pub prompt_name: Option<String>,
    pub prompt_version: Option<u16>,
    pub event_ts: Millis,
}

impl ObservationRecord {
    /// Applies a newer partial observation: set fields win, maps merge key by key, the type of a
    /// `*-create` is kept when an update does not say it.
    pub fn merge(&mut self, update: &ObservationUpdate) {
        fn set<T: Clone>(target: &mut Option<T>, value: &Option<T>) {
            if value.is_some() {
                target.clone_from(value);
            }
        }
        if let Some(trace_id) = &update.trace_id {
            self.trace_id.clone_from(trace_id);
        }
        if let Some(environment) = &update.environment {
            self.environment.clone_from(environment);
        }
        set(&mut self.observation_type, &update.observation_type);
        set(&mut self.parent_observation_id, &update.parent_observation_id);
        if let Some(start_time) = update.start_time {
            self.start_time = start_time;
        }
        set(&mut self.end_time, &update.end_time);
        if let Some(name) = &update.name {
            self.name.clone_from(name);
        }
        self.metadata.extend(update.metadata.iter().map(|(k, v)| (k.clone(), v.clone())));
        if let Some(level) = update.level {
            self.level = level;
        }
        set(&mut self.status_message, &update.status_message);
        set(&mut self.version, &update.version);
        set(&mut self.input, &update.input);
        set(&mut self.output, &update.output);
        set(&mut self.provided_model_name, &update.provided_model_name);
        set(&mut self.model_parameters, &update.model_parameters);
        self.provided_usage_details
            .extend(update.provided_usage_details.iter().map(|(k, v)| (k.clone(), *v)));
        self.provided_cost_details.extend(update.provided_cost_details.iter().map(|(k, v)| (k.clone(), *v)));
        set(&mut self.completion_start_time, &update.completion_start_time);
        set(&mut self.prompt_name, &update.prompt_name);
        set(&mut self.prompt_version, &update.prompt_version);
        self.updated_at = self.updated_at.max(update.event_ts);
        self.event_ts = self.event_ts.max(update.event_ts);
        self.settle_usage_and_cost();
    }

    /// The usage as the SDK provided it, keys as sent, with a `total` added when it sent none
    /// (`usage::usage_units`), and the cost as provided; `total_cost` is the `total` entry, or
    /// the sum of the others when the SDK sent parts only. The worker then prices a generation that
    /// sent usage without cost (`pricing::Pricer::price_observation`).
    fn settle_usage_and_cost(&mut self) {
        self.usage_details = crate::usage::usage_units(&self.provided_usage_details);
        self.cost_details.clone_from(&self.provided_cost_details);
        self.total_cost = match self.cost_details.get("total") {
            Some(total) => Some(*total),
            None if self.cost_details.is_empty() => None,
            None => Some(Decimal12(self.cost_details.values().map(|c| c.0).sum())),
        };
    }
}

impl ObservationUpdate {
    pub fn into_record(self) -> ObservationRecord {
        let mut record = ObservationRecord {
            id: self.id.clone(),
            project_id: self.project_id.clone(),
            trace_id: self.trace_id.clone().unwrap_or_default(),
            environment: "default".to_owned(),
            start_time: self.event_ts,
            created_at: self.event_ts,
            updated_at: self.event_ts,
            event_ts: self.event_ts,
            ..ObservationRecord::default()
        };
        record.merge(&self);
        record
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreDataType {
    Numeric,
    Categorical,
    Boolean,
    Correction,
    Text,
}

impl ScoreDataType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Numeric => "NUMERIC",
            Self::Categorical => "CATEGORICAL",
            Self::Boolean => "BOOLEAN",
            Self::Correction => "CORRECTION",
            Self::Text => "TEXT",
        }
    }
}

/// One row of `scores`; scores are written whole (no partial updates).
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreRecord {
    pub id: String,
    pub project_id: String,
    pub timestamp: Millis,
    pub environment: String,
    pub trace_id: Option<String>,
    pub session_id: Option<String>,
    pub dataset_run_id: Option<String>,
    pub observation_id: Option<String>,
    pub name: String,
    pub value: f64,
    /// `API`, `EVAL` or `ANNOTATION`.
    pub source: String,
    pub comment: Option<String>,
    pub metadata: BTreeMap<String, String>,
    pub author_user_id: Option<String>,
    pub config_id: Option<String>,
    pub data_type: ScoreDataType,
    pub string_value: Option<String>,
    pub queue_id: Option<String>,
    pub execution_trace_id: Option<String>,
    pub created_at: Millis,
    pub updated_at: Millis,
    pub event_ts: Millis,
    pub ingestion_api_key: String,
    pub ingestion_sdk_name: String,
    pub ingestion_sdk_version: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_updates_merge_in_any_order_to_the_same_record() {
        let create = TraceUpdate {
            id: "t".into(),
            project_id: "p".into(),
            timestamp: Some(1_000),
            name: Some("chat".into()),
            metadata: [("a".to_owned(), "1".to_owned())].into(),
            event_ts: 10,
            ..Default::default()
        };
        let update = TraceUpdate {
            id: "t".into(),
            project_id: "p".into(),
            user_id: Some("u".into()),
            metadata: [("b".to_owned(), "2".to_owned())].into(),
            event_ts: 20,
            ..Default::default()
        };
        let mut forward = create.clone().into_record();
        forward.merge(&update);
        let mut backward = update.clone().into_record();
        backward.merge(&create);
        for record in [&forward, &backward] {
            assert_eq!(record.name.as_deref(), Some("chat"));
            assert_eq!(record.user_id.as_deref(), Some("u"));
            assert_eq!(record.metadata.len(), 2);
            assert_eq!(record.event_ts, 20);
        }
        assert_eq!(forward.timestamp, 1_000);
    }

    /// An OTel root span (its name only implied) and a child that states the trace's attributes,
    /// merged in either order onto nothing stored, and onto what the first one stored.
    #[test]
    fn stated_trace_attributes_win_over_implied_ones_in_either_order() {
        let root = TraceUpdate {
            id: "t".into(),
            project_id: "p".into(),
            tags: Some(vec!["root-tag".into()]),
            implied: ImpliedTrace {
                name: Some("root-span".into()),
                version: Some("service-1.0".into()),
                metadata: [
                    ("batchIndex".to_owned(), "\"root\"".to_owned()),
                    ("route".to_owned(), "/chat".to_owned()),
                ]
                .into(),
                ..Default::default()
            },
            event_ts: 10,
            ..Default::default()
        };
        let child = TraceUpdate {
            id: "t".into(),
            project_id: "p".into(),
            name: Some("explicit".into()),
            version: Some("v2".into()),
            tags: Some(vec!["child-tag".into(), "root-tag".into()]),
            metadata: [("batchIndex".to_owned(), "0".to_owned())].into(),
            event_ts: 20,
            ..Default::default()
        };
        let mut root_first = root.clone().into_record();
        root_first.merge(&child);
        let mut child_first = child.clone().into_record();
        child_first.merge(&root);
        for record in [&root_first, &child_first] {
            assert_eq!(record.name.as_deref(), Some("explicit"), "{record:?}");
            assert_eq!(record.version.as_deref(), Some("v2"));
            assert_eq!(record.tags, ["child-tag", "root-tag"], "a sorted union");
            assert_eq!(record.metadata["batchIndex"], "0");
            assert_eq!(record.metadata["route"], "/chat", "implied keys fill what is missing");
        }
        // Alone, the root still names its trace.
        assert_eq!(root.into_record().name.as_deref(), Some("root-span"));
    }

    #[test]
    fn the_first_implied_value_stays() {
        let mut implied = ImpliedTrace { name: Some("a".into()), ..Default::default() };
        implied.fill_from(ImpliedTrace {
            name: Some("b".into()),
            version: Some("1".into()),
            metadata: [("k".to_owned(), "v".to_owned())].into(),
            ..Default::default()
        });
        assert_eq!((implied.name.as_deref(), implied.version.as_deref()), (Some("a"), Some("1")));
        assert_eq!(implied.metadata["k"], "v");
    }

    #[test]
    fn provided_usage_and_cost_are_what_the_record_carries() {
        let record = ObservationUpdate {
            id: "o".into(),
            project_id: "p".into(),
            provided_usage_details: [("input".to_owned(), 10), ("output".to_owned(), 20)].into(),
            provided_cost_details: [("input".to_owned(), Decimal12(1)), ("output".to_owned(), Decimal12(2))]
                .into(),
            ..Default::default()
        }
        .into_record();
        let with_total: BTreeMap<String, u64> =
            [("input".to_owned(), 10), ("output".to_owned(), 20), ("total".to_owned(), 30)].into();
        assert_eq!(record.usage_details, with_total, "a total is added to what was sent");
        assert_eq!(record.cost_details, record.provided_cost_details);
        assert_eq!(record.total_cost, Some(Decimal12(3)));
        let without = ObservationUpdate { id: "o".into(), ..Default::default() }.into_record();
        assert_eq!(without.total_cost, None);
    }

    #[test]
    fn observation_update_keeps_what_it_does_not_say() {
        let mut record = ObservationUpdate {
            id: "o".into(),
            trace_id: Some("t".into()),
            project_id: "p".into(),
            observation_type: Some(ObservationType::Generation),
            name: Some("llm".into()),
            provided_usage_details: [("input".to_owned(), 42)].into(),
            event_ts: 10,
            ..Default::default()
        }
        .into_record();
        record.merge(&ObservationUpdate {
            id: "o".into(),
            project_id: "p".into(),
            end_time: Some(99),
            provided_usage_details: [("output".to_owned(), 9)].into(),
            event_ts: 20,
            ..Default::default()
        });
        assert_eq!(record.observation_type, Some(ObservationType::Generation));
        assert_eq!(record.name, "llm");
        assert_eq!(record.end_time, Some(99));
        assert_eq!(record.provided_usage_details.len(), 2);
        assert_eq!(record.trace_id, "t");
    }
}
