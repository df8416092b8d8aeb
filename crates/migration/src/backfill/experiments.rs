//! M4: experiment traces (those a dataset run item points at) into `events_full`, with the
//! experiment fields of reference/storage.md §4.5 on each run item's span and its descendants.
//!
//! Planning copies the live run items and the versions of their traces into scratch tables sorted
//! by (project_id, trace_id), like `observations_pid_tid_sorting`. Then the step walks that key in
//! chunks of about `LANGFUSE_BACKFILL_EXPERIMENT_BATCH_TRACES` run items, as M1–M3 walk theirs:
//! every read of a chunk is a key range of a sorted table, so a chunk costs the same however large
//! the tables are. For each chunk the worker loads the span trees (ids and parents, bounded by the
//! memory cap), decides which run item each span belongs to — the nearest run-item root above it,
//! the newest item when two share a root — and writes that decision to a third scratch table; two
//! `INSERT … SELECT`s then copy the chunk's roots and observations with the owner's experiment
//! columns joined in. Enriched copies are versioned now so they win over plain copies; spans outside
//! every run item's tree are copied plainly with their source version.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use storage::background_migrations::BackgroundMigration;

use crate::columns::{
    EVENT_COLUMNS, EXPERIMENT_FROM_JOIN, ObservationMapping, Source, Version, trace_root_select,
};
use crate::keyset::{self, Condition, KeyValues, SCRATCH_KEY};

use super::scratch::{self, ITEMS_TABLE, OWNERS_TABLE, SCRATCH_TABLE, TRACE_COLUMNS, TRACES_TABLE};
use super::{StepEnd, StepRun, chunked, lean, saved_state, with_retries};

/// Bytes a span of the tree costs in memory, for the cap: two ids, a parent and map overhead.
const BYTES_PER_SPAN: u64 = 256;

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    /// The month partitions of `traces` whose experiment traces are still to copy into
    /// [`TRACES_TABLE`]; `None` before the run items are copied.
    traces_to_copy: Option<Vec<String>>,
    /// The chunks below this (project_id, trace_id) are still to do; `None` at the start.
    below: Option<KeyValues>,
    /// The last chunk is done (a step that stopped before recording its end does not repeat it).
    done: bool,
}

#[derive(Debug, Clone, clickhouse::Row, Deserialize)]
struct RunItem {
    project_id: String,
    trace_id: String,
    id: String,
    root_span: String,
    created_ms: i64,
}

#[derive(Debug, clickhouse::Row, Serialize)]
struct SpanOwner {
    project_id: String,
    trace_id: String,
    span_id: String,
    item_id: String,
}

pub(crate) async fn run(run: &mut StepRun<'_>, row: &BackgroundMigration) -> storage::Result<StepEnd> {
    scratch::create_experiment_tables(run).await?;
    let mut state = match saved_state::<State>(row) {
        Some(state @ State { traces_to_copy: Some(_), .. }) => state,
        // Not planned, or planned by an earlier version of this step: from the start.
        _ => plan(run).await?,
    };
    while let Some(partition) = state.traces_to_copy.as_ref().and_then(|p| p.first()).cloned() {
        if run.should_stop() {
            return Ok(StepEnd::Interrupted);
        }
        with_retries(|attempt| copy_traces(run, &partition, attempt)).await?;
        if let Some(todo) = state.traces_to_copy.as_mut() {
            todo.remove(0);
        }
        // A chunk of its own (no traces done yet): saved, and counted against a pass's budget.
        run.chunk_done(&state, 0).await?;
    }
    let batch = run.settings().experiment_batch_traces.max(1);
    while !state.done {
        if run.should_stop() {
            return Ok(StepEnd::Interrupted);
        }
        let within = keyset::below(SCRATCH_KEY, "", state.below.as_ref());
        let boundary_sql = keyset::boundary_query(ITEMS_TABLE, SCRATCH_KEY, batch - 1, &within);
        let boundary: Option<KeyValues> = run.condition_query(&boundary_sql).fetch_optional().await?;
        let chunk = Chunk { below: state.below.clone(), boundary: boundary.clone() };
        let traces = with_retries(|attempt| copy_chunk(run, &chunk, attempt)).await?;
        match boundary {
            Some(boundary) => state.below = Some(boundary),
            None => state.done = true,
        }
        run.chunk_done(&state, traces).await?;
    }
    Ok(StepEnd::Done)
}

/// Copies the live run items into [`ITEMS_TABLE`] (emptied first, as the other two), counts their
/// traces for the estimate and lists the partitions of `traces` to copy from.
async fn plan(run: &mut StepRun<'_>) -> storage::Result<State> {
    scratch::empty_experiment_tables(run).await?;
    let copy = format!(
        "INSERT INTO {ITEMS_TABLE} (project_id, trace_id, id, root_span, created_at, dataset_run_id, \
         dataset_run_name, dataset_run_description, dataset_run_metadata, dataset_id, dataset_item_id, \
         dataset_item_version, dataset_item_expected_output, dataset_item_metadata, event_ts) \
         SELECT project_id, trace_id, id, \
         if(coalesce(observation_id, '') = '', concat('t-', trace_id), coalesce(observation_id, '')), created_at, \
         dataset_run_id, dataset_run_name, coalesce(dataset_run_description, ''), dataset_run_metadata, dataset_id, \
         dataset_item_id, dataset_item_version, coalesce(dataset_item_expected_output, ''), dataset_item_metadata, \
         event_ts FROM dataset_run_items_rmt FINAL WHERE is_deleted = 0"
    );
    let shared: &StepRun<'_> = run;
    with_retries(|attempt| {
        let query = lean(shared.query(&copy, &[]), attempt);
        async move { Ok(query.execute().await?) }
    })
    .await?;
    let traces: u64 = run
        .query(&format!("SELECT uniqExact(project_id, trace_id) FROM {ITEMS_TABLE}"), &[])
        .fetch_one()
        .await?;
    let (partitions, _) = chunked::plan(run, "traces").await?;
    let state = State { traces_to_copy: Some(partitions), below: None, done: false };
    run.rows_done = 0;
    run.set_estimate(&state, i64::try_from(traces).unwrap_or(i64::MAX)).await?;
    Ok(state)
}

/// Copies one month of `traces` restricted to the experiment traces into [`TRACES_TABLE`].
async fn copy_traces(run: &StepRun<'_>, partition: &str, attempt: u32) -> storage::Result<()> {
    let sql = format!(
        "INSERT INTO {TRACES_TABLE} (project_id, trace_id, {TRACE_COLUMNS}) SELECT project_id, id, {TRACE_COLUMNS} \
         FROM traces WHERE _partition_id = ? AND (project_id, id) IN (SELECT project_id, trace_id FROM {ITEMS_TABLE})"
    );
    lean(run.query(&sql, &[partition.to_owned()]), attempt).execute().await?;
    Ok(())
}

/// The key range of one chunk: below the cursor, at or above the boundary (to the end without one).
struct Chunk {
    below: Option<KeyValues>,
    boundary: Option<KeyValues>,
}

impl Chunk {
    /// The key range, for the tables that hold experiment traces alone.
    fn condition(&self, alias: &str) -> Condition {
        let condition = keyset::below(SCRATCH_KEY, alias, self.below.as_ref());
        match &self.boundary {
            Some(boundary) => condition.and(keyset::at_or_above(SCRATCH_KEY, alias, boundary)),
            None => condition,
        }
    }

    /// The key range and, within it, the experiment traces: for `observations_pid_tid_sorting`,
    /// whose range also holds other traces (M3 copies those).
    fn experiment_traces(&self, alias: &str) -> Condition {
        let items = self.condition("");
        self.condition(alias).and(Condition {
            sql: format!(
                "({alias}project_id, {alias}trace_id) IN (SELECT project_id, trace_id FROM {ITEMS_TABLE} WHERE {})",
                items.sql
            ),
            binds: items.binds,
        })
    }
}

/// Copies one chunk; returns the experiment traces it covered.
async fn copy_chunk(run: &StepRun<'_>, chunk: &Chunk, attempt: u32) -> storage::Result<u64> {
    let range = chunk.condition("");
    let items: Vec<RunItem> = run
        .query(
            &format!(
                "SELECT project_id, trace_id, id, root_span, toUnixTimestamp64Milli(created_at) AS created_ms \
                 FROM {ITEMS_TABLE} FINAL WHERE {}",
                range.sql
            ),
            &range.binds,
        )
        .fetch_all()
        .await?;
    let mut traces: BTreeMap<(String, String), Vec<RunItem>> = BTreeMap::new();
    for item in items {
        traces.entry((item.project_id.clone(), item.trace_id.clone())).or_default().push(item);
    }
    if traces.is_empty() {
        return Ok(0);
    }
    let max_spans = run.settings().max_memory_bytes / BYTES_PER_SPAN;
    let range = chunk.experiment_traces("");
    let spans: Vec<(String, String, String, String)> = run
        .query(
            &format!(
                "SELECT project_id, trace_id, id, coalesce(parent_observation_id, '') FROM {SCRATCH_TABLE} \
                 WHERE {} LIMIT 1 BY project_id, trace_id, id LIMIT {}",
                range.sql,
                max_spans + 1
            ),
            &range.binds,
        )
        .fetch_all()
        .await?;
    if spans.len() as u64 > max_spans {
        return Err(storage::Error::new(
            storage::ErrorKind::Internal,
            format!(
                "a chunk of {} experiment traces holds over {max_spans} spans, over the memory cap \
                 (LANGFUSE_BACKFILL_MAX_MEMORY_MB); lower LANGFUSE_BACKFILL_EXPERIMENT_BATCH_TRACES or raise the cap",
                traces.len()
            ),
        ));
    }
    let mut trees: HashMap<(String, String), Vec<(String, String)>> = HashMap::new();
    for (project, trace, id, parent) in spans {
        trees.entry((project, trace)).or_default().push((id, parent));
    }
    let mut owners = Vec::new();
    for ((project, trace), items) in &traces {
        let tree = trees.remove(&(project.clone(), trace.clone())).unwrap_or_default();
        for (span, owner) in assign(trace, items, &tree) {
            if let Some(index) = owner {
                owners.push(SpanOwner {
                    project_id: project.clone(),
                    trace_id: trace.clone(),
                    span_id: span,
                    item_id: items[index].id.clone(),
                });
            }
        }
    }
    run.clickhouse().insert_rows(OWNERS_TABLE, owners).await?;
    for statement in [copy_roots(chunk), copy_observations(chunk)] {
        lean(run.condition_query(&statement), attempt).with_setting("join_use_nulls", "0").execute().await?;
    }
    Ok(traces.len() as u64)
}

/// The chunk's span owners joined with their run items, as `x` (see [`EXPERIMENT_FROM_JOIN`]).
fn owned_spans(chunk: &Chunk) -> Condition {
    let (owners, items) = (chunk.condition(""), chunk.condition(""));
    let mut binds = owners.binds;
    binds.extend(items.binds);
    Condition {
        sql: format!(
            "(SELECT w.project_id AS project_id, w.trace_id AS trace_id, w.span_id AS span_id, 1 AS owned, \
             r.dataset_run_id AS dataset_run_id, r.dataset_run_name AS dataset_run_name, \
             r.dataset_run_metadata AS dataset_run_metadata, r.dataset_run_description AS dataset_run_description, \
             r.dataset_id AS dataset_id, r.dataset_item_id AS dataset_item_id, \
             r.dataset_item_version AS dataset_item_version, \
             r.dataset_item_expected_output AS dataset_item_expected_output, \
             r.dataset_item_metadata AS dataset_item_metadata, r.root_span AS root_span \
             FROM (SELECT * FROM {OWNERS_TABLE} WHERE {} LIMIT 1 BY project_id, trace_id, span_id) AS w \
             INNER JOIN (SELECT * FROM {ITEMS_TABLE} FINAL WHERE {}) AS r \
             ON r.project_id = w.project_id AND r.trace_id = w.trace_id AND r.id = w.item_id)",
            owners.sql, items.sql
        ),
        binds,
    }
}

/// The newest version of each of the chunk's traces, as `traces` names its columns.
fn latest_traces(chunk: &Chunk) -> Condition {
    let range = chunk.condition("");
    Condition {
        sql: format!(
            "(SELECT project_id, trace_id AS id, {TRACE_COLUMNS} FROM {TRACES_TABLE} WHERE {} \
             ORDER BY event_ts DESC LIMIT 1 BY project_id, trace_id)",
            range.sql
        ),
        binds: range.binds,
    }
}

/// Each trace of the chunk as its virtual root span `t-<trace>`.
fn copy_roots(chunk: &Chunk) -> Condition {
    let traces = latest_traces(chunk);
    let owned = owned_spans(chunk);
    let mut binds = traces.binds;
    binds.extend(owned.binds);
    Condition {
        sql: format!(
            "INSERT INTO events_full ({EVENT_COLUMNS}) SELECT {} FROM {} AS t LEFT ANY JOIN {} AS x \
             ON x.project_id = t.project_id AND x.trace_id = t.id AND x.span_id = concat('t-', t.id)",
            trace_root_select(EXPERIMENT_FROM_JOIN, Version::FreshWhenOwned),
            traces.sql,
            owned.sql
        ),
        binds,
    }
}

/// Every observation row of the chunk's traces, with its trace's attributes and its owner's experiment.
fn copy_observations(chunk: &Chunk) -> Condition {
    let select = ObservationMapping {
        source: Source::Backfill,
        experiment: EXPERIMENT_FROM_JOIN,
        version: Version::FreshWhenOwned,
    }
    .select();
    let traces = latest_traces(chunk);
    let owned = owned_spans(chunk);
    let range = chunk.experiment_traces("o.");
    let mut binds = traces.binds;
    binds.extend(owned.binds);
    binds.extend(range.binds);
    Condition {
        sql: format!(
            "INSERT INTO events_full ({EVENT_COLUMNS}) SELECT {select} FROM {SCRATCH_TABLE} AS o \
             LEFT ANY JOIN {} AS t ON o.project_id = t.project_id AND o.trace_id = t.id \
             LEFT ANY JOIN {} AS x ON o.project_id = x.project_id AND o.trace_id = x.trace_id AND o.id = x.span_id \
             WHERE {}",
            traces.sql, owned.sql, range.sql
        ),
        binds,
    }
}

/// Which run item each span of one trace belongs to (index into `items`), or `None` for spans
/// outside every item's tree. The trace's virtual root `t-<trace>` is included. Of items sharing a
/// root span the newest wins (the greater id on equal times, so a repeated chunk decides the same).
fn assign(trace: &str, items: &[RunItem], tree: &[(String, String)]) -> HashMap<String, Option<usize>> {
    let root = format!("t-{trace}");
    let mut roots: HashMap<&str, usize> = HashMap::new();
    for (index, item) in items.iter().enumerate() {
        let newer = roots
            .get(item.root_span.as_str())
            .is_none_or(|&other| (items[other].created_ms, &items[other].id) < (item.created_ms, &item.id));
        if newer {
            roots.insert(&item.root_span, index);
        }
    }
    let parents: HashMap<&str, &str> = tree
        .iter()
        .map(|(id, parent)| (id.as_str(), if parent.is_empty() { root.as_str() } else { parent.as_str() }))
        .collect();
    let mut owner: HashMap<String, Option<usize>> = HashMap::new();
    let mut spans: Vec<&str> = tree.iter().map(|(id, _)| id.as_str()).collect();
    spans.push(&root);
    for span in spans {
        // Walk up to the nearest run-item root; the step limit guards against cycles in bad data.
        let mut path = Vec::new();
        let mut current = span;
        let found = loop {
            if let Some(known) = owner.get(current) {
                break *known;
            }
            if let Some(&index) = roots.get(current) {
                break Some(index);
            }
            path.push(current);
            match parents.get(current) {
                Some(&parent) if path.len() <= tree.len() + 1 && parent != current => current = parent,
                _ => break None,
            }
        };
        if let Some(&index) = roots.get(current) {
            owner.insert(current.to_owned(), Some(index));
        }
        for id in path {
            owner.insert(id.to_owned(), found);
        }
    }
    owner
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(root_span: &str, id: &str, created_ms: i64) -> RunItem {
        RunItem {
            project_id: "p".into(),
            trace_id: "tr".into(),
            id: id.into(),
            root_span: if root_span.is_empty() { "t-tr".into() } else { root_span.into() },
            created_ms,
        }
    }

    fn tree() -> Vec<(String, String)> {
        // root-level a (children a1, a2 under a), b at top level, orphan o under a missing parent
        [("a", ""), ("a1", "a"), ("a2", "a1"), ("b", ""), ("o", "missing")]
            .iter()
            .map(|(id, parent)| (id.to_string(), parent.to_string()))
            .collect()
    }

    #[test]
    fn a_trace_level_item_owns_the_whole_tree_but_not_orphans() {
        let items = [item("", "run1", 1)];
        let owners = assign("tr", &items, &tree());
        for span in ["t-tr", "a", "a1", "a2", "b"] {
            assert_eq!(owners[span], Some(0), "{span}");
        }
        assert_eq!(owners["o"], None);
    }

    #[test]
    fn the_nearest_item_root_wins_and_the_newest_item_on_a_shared_root() {
        let items = [item("", "whole", 5), item("a1", "old", 1), item("a1", "new", 2)];
        let owners = assign("tr", &items, &tree());
        assert_eq!(owners["a"], Some(0));
        assert_eq!(owners["a1"], Some(2));
        assert_eq!(owners["a2"], Some(2));
        assert_eq!(owners["b"], Some(0));
    }

    #[test]
    fn on_a_shared_root_and_equal_times_the_greater_id_wins_whatever_the_order() {
        let items = [item("a1", "b", 1), item("a1", "c", 1), item("a1", "a", 1)];
        assert_eq!(assign("tr", &items, &tree())["a2"], Some(1));
        let reversed = [item("a1", "a", 1), item("a1", "c", 1), item("a1", "b", 1)];
        assert_eq!(assign("tr", &reversed, &tree())["a2"], Some(1));
    }

    #[test]
    fn an_observation_item_leaves_the_rest_plain_and_cycles_end() {
        let items = [item("b", "run", 1)];
        let mut cyclic = tree();
        cyclic.push(("x".into(), "y".into()));
        cyclic.push(("y".into(), "x".into()));
        let owners = assign("tr", &items, &cyclic);
        assert_eq!(owners["b"], Some(0));
        assert_eq!(owners["a"], None);
        assert_eq!(owners["t-tr"], None);
        assert_eq!(owners["x"], None);
    }
}
