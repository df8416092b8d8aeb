//! The v3 half of ingestion: trace and observation updates merged onto what is stored and written
//! whole to `traces` / `observations` (legacy and dual modes), staged for propagation (dual mode,
//! producers that do not propagate trace attributes themselves), and scores.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use domain::event::{Event, Level, ObservationType};
use domain::v3::{ObservationRecord, ObservationUpdate, ScoreRecord, TraceRecord, TraceUpdate};
use storage::clickhouse::{ClickHouse, v3};

use super::enrich::Enrichment;
use crate::otel::ConvertedSpan;

/// v3 rows of one or more payloads, not yet merged with what is stored.
#[derive(Debug, Default, Clone)]
pub struct V3Updates {
    pub traces: Vec<TraceUpdate>,
    pub observations: Vec<ObservationUpdate>,
    pub scores: Vec<ScoreRecord>,
    /// (project, observation or trace id) to copy into the staging table after merging.
    pub staged: BTreeSet<(String, String)>,
}

impl V3Updates {
    pub fn is_empty(&self) -> bool {
        self.traces.is_empty() && self.observations.is_empty() && self.scores.is_empty()
    }

    pub fn rows(&self) -> usize {
        self.traces.len() + self.observations.len() + self.scores.len()
    }

    /// Empties the updates, keeping the vectors' capacity (see `Batch::clear`).
    pub fn clear(&mut self) {
        self.traces.clear();
        self.observations.clear();
        self.scores.clear();
        self.staged.clear();
    }

    pub fn extend(&mut self, other: V3Updates) {
        self.traces.extend(other.traces);
        self.observations.extend(other.observations);
        self.scores.extend(other.scores);
        self.staged.extend(other.staged);
    }

    /// Marks every trace and observation of these updates for staging.
    pub fn stage_all(&mut self) {
        let traces = self.traces.iter().map(|t| (t.project_id.clone(), staged_trace_id(&t.id)));
        let observations = self.observations.iter().map(|o| (o.project_id.clone(), o.id.clone()));
        let all: Vec<_> = traces.chain(observations).collect();
        self.staged.extend(all);
    }
}

/// The id a trace has in the staging table: a virtual root span (spec/v4-migration-spec.md §2.2).
fn staged_trace_id(trace_id: &str) -> String {
    format!("t-{trace_id}")
}

fn millis(micros: i64) -> i64 {
    micros.div_euclid(1000)
}

fn non_empty(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_owned())
}

/// OTel spans as v3 updates: an observation per span, and a trace update from root spans and
/// spans that carry trace attributes (a bare child only makes sure its trace exists).
pub fn from_spans(spans: &[ConvertedSpan]) -> V3Updates {
    let mut updates = V3Updates::default();
    for span in spans {
        let e: &Event = &span.event;
        let event_ts = millis(e.event_ts);
        let mut trace = TraceUpdate {
            id: e.trace_id.clone(),
            project_id: e.project_id.clone(),
            timestamp: Some(millis(span.trace.timestamp)),
            event_ts,
            ..TraceUpdate::default()
        };
        if span.is_root || span.has_trace_update {
            let t = &span.trace;
            trace.name.clone_from(&t.name);
            trace.user_id.clone_from(&t.user_id);
            trace.session_id.clone_from(&t.session_id);
            trace.release.clone_from(&t.release);
            trace.version.clone_from(&t.version);
            trace.environment = Some(t.environment.clone());
            trace.public = t.public;
            trace.tags.clone_from(&t.tags);
            trace.metadata.clone_from(&t.metadata);
            trace.input.clone_from(&t.input);
            trace.output.clone_from(&t.output);
            trace.implied.clone_from(&t.implied);
        }
        updates.traces.push(trace);
        updates.observations.push(ObservationUpdate {
            id: e.span_id.clone(),
            trace_id: Some(e.trace_id.clone()),
            project_id: e.project_id.clone(),
            environment: Some(e.environment.clone()),
            observation_type: Some(e.observation_type),
            parent_observation_id: non_empty(&e.parent_span_id),
            start_time: Some(millis(e.start_time)),
            end_time: e.end_time.map(millis),
            name: Some(e.name.clone()),
            metadata: e.metadata.clone(),
            level: Some(e.level),
            status_message: non_empty(&e.status_message),
            version: non_empty(&e.version),
            input: non_empty(&e.input),
            output: non_empty(&e.output),
            provided_model_name: non_empty(&e.provided_model_name),
            model_parameters: non_empty(&e.model_parameters).filter(|p| p != "{}"),
            provided_usage_details: e.provided_usage_details.clone(),
            provided_cost_details: e.provided_cost_details.clone(),
            completion_start_time: e.completion_start_time.map(millis),
            prompt_name: non_empty(&e.prompt_name),
            prompt_version: e.prompt_version,
            event_ts,
        });
    }
    updates
}

/// Merges the updates onto the stored records and writes the v3 tables (and the staging table
/// for the marked ids). `staging_clock_millis` partitions staged rows (reference/storage.md §2.4).
pub async fn write(
    ch: &ClickHouse,
    updates: &V3Updates,
    staging_clock_millis: i64,
    enrichment: &Enrichment,
) -> storage::Result<()> {
    // Scores are written whole, merged onto nothing: their insert need not wait for the merge
    // reads of traces and observations, and runs beside them.
    tokio::try_join!(
        write_merged(ch, updates, staging_clock_millis, enrichment),
        v3::insert_scores(ch, &updates.scores),
    )?;
    Ok(())
}

/// Traces and observations: merged onto their stored records, then written with the staged copies.
async fn write_merged(
    ch: &ClickHouse,
    updates: &V3Updates,
    staging_clock_millis: i64,
    enrichment: &Enrichment,
) -> storage::Result<()> {
    // One read of both tables, then their inserts together.
    let (traces, mut observations) = merge(ch, &updates.traces, &updates.observations).await?;
    enrichment.observations(&mut observations);
    for observation in &mut observations {
        // From the merged record: a later update may have brought the output with the calls.
        observation.tools =
            crate::tools::extract(observation.input.as_deref(), observation.output.as_deref());
    }
    let mut staged: Vec<ObservationRecord> = observations
        .iter()
        .filter(|o| updates.staged.contains(&(o.project_id.clone(), o.id.clone())))
        .cloned()
        .collect();
    staged.extend(
        traces
            .iter()
            .filter(|t| updates.staged.contains(&(t.project_id.clone(), staged_trace_id(&t.id))))
            .map(trace_as_staged_observation),
    );
    tokio::try_join!(
        v3::insert_traces(ch, &traces),
        v3::insert_observations(ch, &observations),
        v3::insert_staging(ch, &staged, staging_clock_millis),
    )?;
    Ok(())
}

/// A trace as the staging table holds it: a virtual root span `t-<id>`.
fn trace_as_staged_observation(t: &TraceRecord) -> ObservationRecord {
    ObservationRecord {
        id: staged_trace_id(&t.id),
        trace_id: t.id.clone(),
        project_id: t.project_id.clone(),
        environment: t.environment.clone(),
        observation_type: Some(ObservationType::Span),
        start_time: t.timestamp,
        name: t.name.clone().unwrap_or_default(),
        metadata: t.metadata.clone(),
        level: Level::Default,
        version: t.version.clone(),
        input: t.input.clone(),
        output: t.output.clone(),
        created_at: t.created_at,
        updated_at: t.updated_at,
        event_ts: t.event_ts,
        ..ObservationRecord::default()
    }
}

/// A stored record and the partial updates that apply to it.
trait Upsert: Sized {
    type Update: Clone;
    fn create(update: Self::Update) -> Self;
    fn apply(&mut self, update: &Self::Update);
    fn key(update: &Self::Update) -> (String, String);
}

impl Upsert for TraceRecord {
    type Update = TraceUpdate;
    fn create(update: TraceUpdate) -> Self {
        update.into_record()
    }
    fn apply(&mut self, update: &TraceUpdate) {
        self.merge(update);
    }
    fn key(update: &TraceUpdate) -> (String, String) {
        (update.project_id.clone(), update.id.clone())
    }
}

impl Upsert for ObservationRecord {
    type Update = ObservationUpdate;
    fn create(update: ObservationUpdate) -> Self {
        update.into_record()
    }
    fn apply(&mut self, update: &ObservationUpdate) {
        self.merge(update);
    }
    fn key(update: &ObservationUpdate) -> (String, String) {
        (update.project_id.clone(), update.id.clone())
    }
}

/// Applies each entity's updates, in arrival order, onto its stored record (or onto a record
/// made from its first update when nothing is stored).
fn upsert<R: Upsert>(updates: &[R::Update], mut stored: HashMap<(String, String), R>) -> Vec<R> {
    let mut groups: BTreeMap<(String, String), Vec<&R::Update>> = BTreeMap::new();
    for update in updates {
        groups.entry(R::key(update)).or_default().push(update);
    }
    groups
        .into_iter()
        .filter_map(|(key, updates)| {
            let mut updates = updates.into_iter();
            let mut record = match stored.remove(&key) {
                Some(record) => record,
                None => R::create(updates.next()?.clone()),
            };
            for update in updates {
                record.apply(update);
            }
            Some(record)
        })
        .collect()
}

/// Traces and observations merged onto what is stored: one read per project for both tables (the
/// inserts wait for it; `storage::clickhouse::v3::existing` reads whole rows only of the ids
/// stored), counted in `loupe_ingestion_merge_reads_total`.
async fn merge(
    ch: &ClickHouse,
    traces: &[TraceUpdate],
    observations: &[ObservationUpdate],
) -> storage::Result<(Vec<TraceRecord>, Vec<ObservationRecord>)> {
    let mut by_project: BTreeMap<String, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for (project, ids) in ids_by_project(traces.iter().map(TraceRecord::key)) {
        by_project.entry(project).or_default().0 = ids;
    }
    for (project, ids) in ids_by_project(observations.iter().map(ObservationRecord::key)) {
        by_project.entry(project).or_default().1 = ids;
    }
    let (mut stored_traces, mut stored_observations) = (HashMap::new(), HashMap::new());
    for (project, (trace_ids, observation_ids)) in by_project {
        let stored = v3::existing(ch, &project, &trace_ids, &observation_ids).await?;
        metrics::counter!("loupe_ingestion_merge_reads_total").increment(1);
        for record in stored.traces {
            stored_traces.insert((record.project_id.clone(), record.id.clone()), record);
        }
        for record in stored.observations {
            stored_observations.insert((record.project_id.clone(), record.id.clone()), record);
        }
    }
    Ok((upsert(traces, stored_traces), upsert(observations, stored_observations)))
}

fn ids_by_project(keys: impl Iterator<Item = (String, String)>) -> BTreeMap<String, Vec<String>> {
    let mut by_project: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (project, id) in keys {
        by_project.entry(project).or_default().insert(id);
    }
    by_project.into_iter().map(|(project, ids)| (project, ids.into_iter().collect())).collect()
}

#[cfg(test)]
mod tests;
