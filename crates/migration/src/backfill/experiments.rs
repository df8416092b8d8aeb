//! M4: experiment traces (those a dataset run item points at) into `events_full`, with the
//! experiment fields of reference/storage.md §4.5 on each run item's span and its descendants.
//!
//! Batches of traces, newest run item first. For each batch the worker loads only the span tree
//! (ids and parents, bounded by the memory cap), decides which run item each span belongs to —
//! the nearest run-item root above it, the newest item when two share a root — and lets the engine
//! copy the rows. Enriched copies are versioned now so they win over plain copies; spans outside
//! every run item's tree are copied plainly with their source version.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use storage::background_migrations::BackgroundMigration;

use crate::columns::{
    EVENT_COLUMNS, EXPERIMENT_FROM_BINDS, NO_EXPERIMENT, ObservationMapping, Source, Version, latest_traces,
    trace_root_select,
};

use super::scratch::SCRATCH_TABLE;
use super::{StepEnd, StepRun, saved_state, with_retries};

/// Bytes a span of the tree costs in memory, for the cap: two ids, a parent and map overhead.
const BYTES_PER_SPAN: u64 = 256;

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    planned: bool,
    /// The last trace done: (newest run item's creation in ms, project id, trace id).
    cursor: Option<(i64, String, String)>,
}

#[derive(Debug, Clone, clickhouse::Row, Deserialize)]
struct RunItem {
    project_id: String,
    trace_id: String,
    observation: String,
    dataset_run_id: String,
    dataset_run_name: String,
    run_description: String,
    run_metadata_names: Vec<String>,
    run_metadata_values: Vec<String>,
    dataset_id: String,
    dataset_item_id: String,
    item_version: String,
    expected_output: String,
    item_metadata_names: Vec<String>,
    item_metadata_values: Vec<String>,
    created_ms: i64,
}

impl RunItem {
    fn root_span(&self) -> String {
        if self.observation.is_empty() { format!("t-{}", self.trace_id) } else { self.observation.clone() }
    }

    /// Values for [`EXPERIMENT_FROM_BINDS`], as the bind helper takes them (arrays as JSON).
    fn experiment_binds(&self) -> Vec<Bind> {
        vec![
            Bind::Text(self.dataset_run_id.clone()),
            Bind::Text(self.dataset_run_name.clone()),
            Bind::List(self.run_metadata_names.clone()),
            Bind::List(self.run_metadata_values.clone()),
            Bind::Text(self.run_description.clone()),
            Bind::Text(self.dataset_id.clone()),
            Bind::Text(self.dataset_item_id.clone()),
            Bind::Text(self.item_version.clone()),
            Bind::Text(self.item_version.clone()),
            Bind::Text(self.expected_output.clone()),
            Bind::List(self.item_metadata_names.clone()),
            Bind::List(self.item_metadata_values.clone()),
            Bind::Text(self.root_span()),
        ]
    }
}

#[derive(Debug, Clone)]
enum Bind {
    Text(String),
    List(Vec<String>),
}

pub(crate) async fn run(run: &mut StepRun<'_>, row: &BackgroundMigration) -> storage::Result<StepEnd> {
    let mut state = saved_state::<State>(row).unwrap_or_default();
    if !state.planned {
        let traces: u64 = run
            .query(
                "SELECT uniqExact(project_id, trace_id) FROM dataset_run_items_rmt FINAL WHERE is_deleted = 0",
                &[],
            )
            .fetch_one()
            .await?;
        state.planned = true;
        run.set_estimate(&state, i64::try_from(traces).unwrap_or(i64::MAX)).await?;
    }
    loop {
        if run.should_stop() {
            return Ok(StepEnd::Interrupted);
        }
        let batch = next_batch(run, state.cursor.as_ref()).await?;
        let Some(last) = batch.last().cloned() else {
            return Ok(StepEnd::Done);
        };
        with_retries(|_| copy_batch(run, &batch)).await?;
        state.cursor = Some(last);
        run.chunk_done(&state, batch.len() as u64).await?;
    }
}

async fn next_batch(
    run: &StepRun<'_>,
    cursor: Option<&(i64, String, String)>,
) -> storage::Result<Vec<(i64, String, String)>> {
    let (having, binds) = match cursor {
        Some((ms, project, trace)) => (
            "HAVING (newest, project_id, trace_id) < (toInt64(?), ?, ?)",
            vec![ms.to_string(), project.clone(), trace.clone()],
        ),
        None => ("", Vec::new()),
    };
    let sql = format!(
        "SELECT toUnixTimestamp64Milli(max(created_at)) AS newest, project_id, trace_id \
         FROM dataset_run_items_rmt FINAL WHERE is_deleted = 0 GROUP BY project_id, trace_id {having} \
         ORDER BY newest DESC, project_id DESC, trace_id DESC LIMIT {}",
        run.settings().experiment_batch_traces
    );
    Ok(run.query(&sql, &binds).fetch_all().await?)
}

/// `(project_id, trace_id) IN ((?, ?), …)` over the batch, with its binds.
fn traces_filter(prefix: &str, batch: &[(i64, String, String)]) -> (String, Vec<String>) {
    let tuples = vec!["(?, ?)"; batch.len()].join(", ");
    let binds = batch.iter().flat_map(|(_, project, trace)| [project.clone(), trace.clone()]).collect();
    (format!("({prefix}project_id, {prefix}trace_id) IN ({tuples})"), binds)
}

async fn copy_batch(run: &StepRun<'_>, batch: &[(i64, String, String)]) -> storage::Result<()> {
    let (filter, binds) = traces_filter("", batch);
    let items: Vec<RunItem> = run
        .query(
            &format!(
                "SELECT project_id, trace_id, coalesce(observation_id, '') AS observation, dataset_run_id, \
                 dataset_run_name, coalesce(dataset_run_description, '') AS run_description, \
                 mapKeys(dataset_run_metadata) AS run_metadata_names, \
                 mapValues(dataset_run_metadata) AS run_metadata_values, dataset_id, dataset_item_id, \
                 ifNull(toString(dataset_item_version), '') AS item_version, \
                 coalesce(dataset_item_expected_output, '') AS expected_output, \
                 mapKeys(dataset_item_metadata) AS item_metadata_names, \
                 mapValues(dataset_item_metadata) AS item_metadata_values, \
                 toUnixTimestamp64Milli(created_at) AS created_ms \
                 FROM dataset_run_items_rmt FINAL WHERE is_deleted = 0 AND {filter}"
            ),
            &binds,
        )
        .fetch_all()
        .await?;
    let spans_sql = format!("FROM {SCRATCH_TABLE} WHERE {filter}");
    let span_count: u64 = run
        .query(&format!("SELECT uniqExact(project_id, trace_id, id) {spans_sql}"), &binds)
        .fetch_one()
        .await?;
    let cap = run.settings().max_memory_bytes;
    if span_count.saturating_mul(BYTES_PER_SPAN) > cap {
        return Err(storage::Error::new(
            storage::ErrorKind::Internal,
            format!(
                "a batch of {} experiment traces holds {span_count} spans, over the memory cap \
                 (LANGFUSE_BACKFILL_MAX_MEMORY_MB); lower LANGFUSE_BACKFILL_EXPERIMENT_BATCH_TRACES or raise the cap",
                batch.len()
            ),
        ));
    }
    let spans: Vec<(String, String, String, String)> = run
        .query(
            &format!(
                "SELECT project_id, trace_id, id, coalesce(parent_observation_id, '') {spans_sql} \
                 LIMIT 1 BY project_id, trace_id, id"
            ),
            &binds,
        )
        .fetch_all()
        .await?;
    let mut trees: HashMap<(String, String), Vec<(String, String)>> = HashMap::new();
    for (project, trace, id, parent) in spans {
        trees.entry((project, trace)).or_default().push((id, parent));
    }
    for (_, project, trace) in batch {
        let trace_items: Vec<&RunItem> =
            items.iter().filter(|item| &item.project_id == project && &item.trace_id == trace).collect();
        let tree = trees.remove(&(project.clone(), trace.clone())).unwrap_or_default();
        copy_trace(run, project, trace, &trace_items, &tree).await?;
    }
    Ok(())
}

/// Which run item each span of one trace belongs to (index into `items`), or `None` for spans
/// outside every item's tree. The trace's virtual root `t-<trace>` is included.
fn assign(trace: &str, items: &[&RunItem], tree: &[(String, String)]) -> HashMap<String, Option<usize>> {
    let root = format!("t-{trace}");
    let mut roots: HashMap<String, usize> = HashMap::new();
    for (index, item) in items.iter().enumerate() {
        let span = item.root_span();
        let newer = roots.get(&span).is_none_or(|&other| items[other].created_ms < item.created_ms);
        if newer {
            roots.insert(span, index);
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

async fn copy_trace(
    run: &StepRun<'_>,
    project: &str,
    trace: &str,
    items: &[&RunItem],
    tree: &[(String, String)],
) -> storage::Result<()> {
    let owners = assign(trace, items, tree);
    let root = format!("t-{trace}");
    let mut groups: HashMap<Option<usize>, Vec<String>> = HashMap::new();
    for (span, owner) in owners {
        groups.entry(owner).or_default().push(span);
    }
    for (owner, mut spans) in groups {
        let has_root = spans.iter().any(|span| span == &root);
        spans.retain(|span| span != &root);
        let experiment = owner.map(|index| items[index].experiment_binds());
        if has_root {
            copy_root(run, project, trace, experiment.as_deref()).await?;
        }
        if !spans.is_empty() {
            copy_observations(run, project, trace, &spans, experiment.as_deref()).await?;
        }
    }
    Ok(())
}

fn with_binds(mut query: clickhouse::query::Query, binds: &[Bind]) -> clickhouse::query::Query {
    for bind in binds {
        query = match bind {
            Bind::Text(text) => query.bind(text),
            Bind::List(list) => query.bind(list),
        };
    }
    query
}

async fn copy_root(
    run: &StepRun<'_>,
    project: &str,
    trace: &str,
    experiment: Option<&[Bind]>,
) -> storage::Result<()> {
    let (columns, version) = match experiment {
        Some(_) => (EXPERIMENT_FROM_BINDS, Version::Fresh),
        None => (NO_EXPERIMENT, Version::Source),
    };
    let sql = format!(
        "INSERT INTO events_full ({EVENT_COLUMNS}) SELECT {} FROM \
         (SELECT * FROM traces WHERE project_id = ? AND id = ? ORDER BY event_ts DESC LIMIT 1) AS t",
        trace_root_select(columns, version)
    );
    let mut binds = experiment.map(<[Bind]>::to_vec).unwrap_or_default();
    binds.extend([Bind::Text(project.to_owned()), Bind::Text(trace.to_owned())]);
    with_binds(run.query(&sql, &[]), &binds).execute().await?;
    Ok(())
}

async fn copy_observations(
    run: &StepRun<'_>,
    project: &str,
    trace: &str,
    spans: &[String],
    experiment: Option<&[Bind]>,
) -> storage::Result<()> {
    let (columns, version) = match experiment {
        Some(_) => (EXPERIMENT_FROM_BINDS, Version::Fresh),
        None => (NO_EXPERIMENT, Version::Source),
    };
    let select = ObservationMapping { source: Source::Backfill, experiment: columns, version }.select();
    let traces = latest_traces("project_id = ? AND id = ?");
    // A trace's span ids go as bounded parameters: written into the text, a trace of some
    // thousands of spans would pass ClickHouse's `max_query_size`.
    let ids = storage::clickhouse::StringList::new("span_ids", spans);
    let sql = format!(
        "INSERT INTO events_full ({EVENT_COLUMNS}) SELECT {select} FROM {SCRATCH_TABLE} AS o \
         LEFT ANY JOIN {traces} AS t ON o.project_id = t.project_id AND o.trace_id = t.id \
         WHERE o.project_id = ? AND o.trace_id = ? AND o.id IN {}",
        ids.sql()
    );
    let mut binds = experiment.map(<[Bind]>::to_vec).unwrap_or_default();
    binds.extend([
        Bind::Text(project.to_owned()),
        Bind::Text(trace.to_owned()),
        Bind::Text(project.to_owned()),
        Bind::Text(trace.to_owned()),
    ]);
    ids.bind(with_binds(run.query(&sql, &[]), &binds)).execute().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(observation: &str, run: &str, created_ms: i64) -> RunItem {
        RunItem {
            project_id: "p".into(),
            trace_id: "tr".into(),
            observation: observation.into(),
            dataset_run_id: run.into(),
            dataset_run_name: run.into(),
            run_description: String::new(),
            run_metadata_names: vec![],
            run_metadata_values: vec![],
            dataset_id: "d".into(),
            dataset_item_id: "i".into(),
            item_version: String::new(),
            expected_output: String::new(),
            item_metadata_names: vec![],
            item_metadata_values: vec![],
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
        let refs: Vec<&RunItem> = items.iter().collect();
        let owners = assign("tr", &refs, &tree());
        for span in ["t-tr", "a", "a1", "a2", "b"] {
            assert_eq!(owners[span], Some(0), "{span}");
        }
        assert_eq!(owners["o"], None);
    }

    #[test]
    fn the_nearest_item_root_wins_and_the_newest_item_on_a_shared_root() {
        let items = [item("", "whole", 5), item("a1", "old", 1), item("a1", "new", 2)];
        let refs: Vec<&RunItem> = items.iter().collect();
        let owners = assign("tr", &refs, &tree());
        assert_eq!(owners["a"], Some(0));
        assert_eq!(owners["a1"], Some(2));
        assert_eq!(owners["a2"], Some(2));
        assert_eq!(owners["b"], Some(0));
    }

    #[test]
    fn an_observation_item_leaves_the_rest_plain_and_cycles_end() {
        let items = [item("b", "run", 1)];
        let refs: Vec<&RunItem> = items.iter().collect();
        let mut cyclic = tree();
        cyclic.push(("x".into(), "y".into()));
        cyclic.push(("y".into(), "x".into()));
        let owners = assign("tr", &refs, &cyclic);
        assert_eq!(owners["b"], Some(0));
        assert_eq!(owners["a"], None);
        assert_eq!(owners["t-tr"], None);
        assert_eq!(owners["x"], None);
    }
}
