//! Ordering and merging the accepted events of one batch (reference/public-api.md §2.5): creates first,
//! then updates, each group by timestamp; every entity id then yields ONE update, later events
//! winning field by field, so a writer applies a batch with one upsert per entity.

use std::collections::HashMap;

use domain::v3::{ObservationUpdate, ScoreRecord, TraceUpdate};
use serde_json::Value;

use super::observation::ParsedObservation;

/// A valid event, ready to merge.
#[derive(Debug)]
pub struct Accepted {
    pub update: bool,
    pub at_micros: i64,
    pub entity: Entity,
}

#[derive(Debug)]
pub enum Entity {
    Trace(TraceUpdate),
    Observation(ParsedObservation),
    Score(ScoreRecord),
    Log(Value),
}

#[derive(Debug, Default)]
pub struct Merged {
    pub traces: Vec<TraceUpdate>,
    pub observations: Vec<ObservationUpdate>,
    pub scores: Vec<ScoreRecord>,
    pub logs: Vec<Value>,
}

pub fn merge(mut accepted: Vec<Accepted>) -> Merged {
    // A stable sort: events with equal timestamps (JavaScript SDKs stamp in milliseconds) keep
    // the order the client sent them in, which is the order they happened in.
    accepted.sort_by_key(|event| (event.update, event.at_micros));
    let mut traces = Keyed::default();
    let mut observations = Keyed::default();
    let mut scores = Keyed::default();
    let mut logs = Vec::new();
    for event in accepted {
        match event.entity {
            Entity::Trace(trace) => traces.upsert(trace.id.clone(), trace, merge_trace),
            Entity::Observation(parsed) => {
                observations.upsert(parsed.update.id.clone(), parsed, merge_observation);
            }
            // Scores are written whole: a later score-create with the same id replaces it.
            Entity::Score(score) => scores.upsert(score.id.clone(), score, |old, new| *old = new),
            Entity::Log(log) => logs.push(log),
        }
    }
    let mut merged = Merged { scores: scores.items, logs, ..Merged::default() };
    for parsed in observations.items {
        let (observation, wrapper) = finish_observation(parsed);
        if let Some(wrapper) = wrapper
            && !traces.index.contains_key(&wrapper.id)
        {
            traces.upsert(wrapper.id.clone(), wrapper, merge_trace);
        }
        merged.observations.push(observation);
    }
    merged.traces = traces.items;
    merged
}

/// Items in order of first appearance, one per key.
struct Keyed<T> {
    items: Vec<T>,
    index: HashMap<String, usize>,
}

impl<T> Default for Keyed<T> {
    fn default() -> Self {
        Self { items: Vec::new(), index: HashMap::new() }
    }
}

impl<T> Keyed<T> {
    fn upsert(&mut self, key: String, item: T, merge: impl FnOnce(&mut T, T)) {
        match self.index.get(&key).and_then(|&i| self.items.get_mut(i)) {
            Some(existing) => merge(existing, item),
            None => {
                self.index.insert(key, self.items.len());
                self.items.push(item);
            }
        }
    }
}

fn later<T>(target: &mut Option<T>, value: Option<T>) {
    if value.is_some() {
        *target = value;
    }
}

fn merge_trace(base: &mut TraceUpdate, next: TraceUpdate) {
    // A trace keeps its first timestamp (upstream treats it as immutable).
    base.timestamp = base.timestamp.or(next.timestamp);
    later(&mut base.name, next.name);
    later(&mut base.user_id, next.user_id);
    later(&mut base.session_id, next.session_id);
    later(&mut base.release, next.release);
    later(&mut base.version, next.version);
    later(&mut base.environment, next.environment);
    later(&mut base.public, next.public);
    later(&mut base.input, next.input);
    later(&mut base.output, next.output);
    // Upstream merges tags as a sorted set rather than replacing them.
    base.tags = match (base.tags.take(), next.tags) {
        (Some(mut tags), Some(more)) => {
            tags.extend(more);
            tags.sort();
            tags.dedup();
            Some(tags)
        }
        (tags, more) => tags.or(more),
    };
    base.metadata.extend(next.metadata);
    base.implied.fill_from(next.implied);
    base.event_ts = base.event_ts.max(next.event_ts);
}

fn merge_observation(base: &mut ParsedObservation, next: ParsedObservation) {
    base.is_create |= next.is_create;
    base.type_hint = next.type_hint;
    let (o, n) = (&mut base.update, next.update);
    later(&mut o.trace_id, n.trace_id);
    later(&mut o.environment, n.environment);
    later(&mut o.observation_type, n.observation_type);
    later(&mut o.parent_observation_id, n.parent_observation_id);
    later(&mut o.start_time, n.start_time);
    later(&mut o.end_time, n.end_time);
    later(&mut o.name, n.name);
    later(&mut o.level, n.level);
    later(&mut o.status_message, n.status_message);
    later(&mut o.version, n.version);
    later(&mut o.input, n.input);
    later(&mut o.output, n.output);
    later(&mut o.provided_model_name, n.provided_model_name);
    later(&mut o.model_parameters, n.model_parameters);
    later(&mut o.completion_start_time, n.completion_start_time);
    later(&mut o.prompt_name, n.prompt_name);
    later(&mut o.prompt_version, n.prompt_version);
    // Maps merge key by key, as `ObservationRecord::merge` does across batches.
    o.metadata.extend(n.metadata);
    o.provided_usage_details.extend(n.provided_usage_details);
    o.provided_cost_details.extend(n.provided_cost_details);
    o.event_ts = o.event_ts.max(n.event_ts);
}

/// The final update of one observation, plus the wrapper trace of a created observation without
/// a trace id (reference/storage.md §1.2: old SDKs sent observations without traces; the observation becomes
/// its own trace).
fn finish_observation(parsed: ParsedObservation) -> (ObservationUpdate, Option<TraceUpdate>) {
    let ParsedObservation { mut update, type_hint, is_create } = parsed;
    if update.observation_type.is_none() {
        // Only updates of this observation in the batch: they name its type (`span-update`).
        update.observation_type = Some(type_hint);
    }
    if let (Some(start), Some(end)) = (update.start_time, update.end_time)
        && end < start
    {
        // Upstream clamps an end before the start to the start.
        update.end_time = Some(start);
    }
    let mut wrapper = None;
    // An update-only group may belong to an observation stored earlier with a trace; giving it a
    // wrapper here would move it to a new trace, so only creates get one.
    if update.trace_id.is_none() && is_create {
        update.trace_id = Some(update.id.clone());
        wrapper = Some(TraceUpdate {
            id: update.id.clone(),
            project_id: update.project_id.clone(),
            timestamp: update.start_time,
            environment: update.environment.clone(),
            event_ts: update.event_ts,
            ..TraceUpdate::default()
        });
    }
    (update, wrapper)
}
