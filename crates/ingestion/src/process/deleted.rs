//! Traces deleted while some of their spans were still queued.
//!
//! `DELETE /api/public/traces` removes the rows already stored, but an export acknowledged just
//! before it may not be processed yet; stored afterwards, it would bring the trace back. web
//! records each deletion's time beside the queue, and the worker drops the rows of a payload
//! accepted no later than the deletion of their trace. A payload accepted after it is new data and
//! is kept.
//!
//! Two questions, so that most payloads need no second one: before a read's payloads are
//! converted, which of their projects deleted any trace since the oldest was accepted (one round
//! trip; usually none, and those payloads' events are encoded as they are converted); after
//! conversion, for the payloads of the projects that did, which of their traces. A deletion made
//! between the question and the insert is not seen; asking before conversion rather than after
//! widens that window by the conversion's milliseconds.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use storage::queue::{Delivery, IngestionJob};

use super::{Converted, Prepared, ProcessError, Processor};

impl Processor {
    /// The projects of these deliveries that deleted no trace since the oldest of them was
    /// accepted: their events are priced and encoded as they are converted. When the queue
    /// cannot say, no project is, and each payload's traces are asked about after conversion.
    pub(super) async fn projects_without_deletions(&self, live: &[(Delivery, u32)]) -> BTreeSet<String> {
        let jobs = || live.iter().filter_map(|(delivery, _)| delivery.job.as_ref().ok());
        let projects: BTreeSet<&str> = jobs().map(|job| job.project_id.as_str()).collect();
        let oldest = jobs().map(|job| job.received_at_micros).min().unwrap_or_default();
        let now = chrono::Utc::now().timestamp_micros();
        match self.queue.projects_with_deletions(&projects, oldest, now).await {
            Ok(deleting) => {
                projects.into_iter().filter(|p| !deleting.contains(*p)).map(str::to_owned).collect()
            }
            Err(error) => {
                tracing::debug!(%error, "cannot read which projects deleted traces; asking after conversion");
                BTreeSet::new()
            }
        }
    }

    /// Drops the rows of traces deleted after their payload was accepted, for the
    /// payloads of projects not `cleared` before conversion. If the queue cannot say, those
    /// payloads are retried later rather than risk storing deleted traces.
    pub(super) async fn without_deleted_traces(
        &self,
        mut results: Vec<(Delivery, u32, Converted)>,
        cleared: &BTreeSet<String>,
    ) -> Vec<(Delivery, u32, Converted)> {
        let asks = |(job, _, _): &&(IngestionJob, Prepared, usize)| !cleared.contains(&job.project_id);
        let converted = || results.iter().filter_map(|(_, _, r)| r.as_ref().ok()).filter(asks);
        let asked = traces_written(converted().map(|(_, prepared, _)| prepared));
        let oldest = converted().map(|(job, _, _)| job.received_at_micros).min().unwrap_or_default();
        let now = chrono::Utc::now().timestamp_micros();
        let deletions = match self.queue.deleted_since(&asked, oldest, now).await {
            Ok(deletions) => deletions,
            Err(error) => {
                let reason = format!("cannot read trace deletions: {error}");
                for (_, _, result) in &mut results {
                    if result.is_ok() {
                        *result = Err(ProcessError::Transient(reason.clone()));
                    }
                }
                return results;
            }
        };
        for (delivery, _, result) in &mut results {
            if let Ok((job, prepared, _)) = result
                && !cleared.contains(&job.project_id)
            {
                let dropped = drop_deleted(job, prepared, &deletions);
                if dropped > 0 {
                    tracing::info!(entry = %delivery.entry.id, rows = dropped, "rows of deleted traces dropped");
                }
            }
        }
        results
    }
}

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
