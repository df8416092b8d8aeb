//! Traces deleted while some of their spans were still queued.
//!
//! `DELETE /api/public/traces` removes the rows already stored, but an export acknowledged just
//! before it may not be processed yet; stored afterwards, it would bring the trace back. web
//! records each deletion's time beside the queue, and the worker drops the rows of a payload
//! accepted no later than the deletion of their trace. A payload accepted after it is new data and
//! is kept.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use storage::queue::IngestionJob;

use super::Prepared;

/// The (project, trace) pairs these payloads write, per project: what to ask the queue about.
pub fn traces_written<'a>(
    prepared: impl Iterator<Item = &'a Prepared>,
) -> BTreeMap<&'a str, BTreeSet<&'a str>> {
    let mut traces: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut add = |project: &'a str, trace: &'a str| {
        traces.entry(project).or_default().insert(trace);
    };
    for p in prepared {
        p.events.iter().for_each(|e| add(&e.project_id, &e.trace_id));
        p.v3.traces.iter().for_each(|t| add(&t.project_id, &t.id));
        for o in &p.v3.observations {
            if let Some(trace) = &o.trace_id {
                add(&o.project_id, trace);
            }
        }
        for s in &p.v3.scores {
            if let Some(trace) = &s.trace_id {
                add(&s.project_id, trace);
            }
        }
        p.experiment_links.iter().for_each(|l| add(&l.project_id, &l.trace_id));
    }
    traces
}

/// Removes the rows of traces deleted at or after `job` was accepted. Returns how many went.
pub fn drop_deleted(
    job: &IngestionJob,
    prepared: &mut Prepared,
    deleted: &HashMap<(String, String), i64>,
) -> usize {
    if deleted.is_empty() {
        return 0;
    }
    let gone = |project: &str, trace: &str| {
        deleted.get(&(project.to_owned(), trace.to_owned())).is_some_and(|&at| job.received_at_micros <= at)
    };
    let before = prepared.events.len() + prepared.v3.rows() + prepared.experiment_links.len();
    prepared.events.retain(|e| !gone(&e.project_id, &e.trace_id));
    prepared.v3.traces.retain(|t| !gone(&t.project_id, &t.id));
    prepared.v3.observations.retain(|o| !o.trace_id.as_deref().is_some_and(|t| gone(&o.project_id, t)));
    prepared.v3.scores.retain(|s| !s.trace_id.as_deref().is_some_and(|t| gone(&s.project_id, t)));
    prepared.experiment_links.retain(|l| !gone(&l.project_id, &l.trace_id));
    // `v3.staged` only selects among the merged rows, so entries left for dropped rows select nothing.
    before - (prepared.events.len() + prepared.v3.rows() + prepared.experiment_links.len())
}

#[cfg(test)]
mod tests;
