//! M1–M3: one `INSERT … SELECT` per chunk of at most `LANGFUSE_BACKFILL_CHUNK_ROWS` source rows,
//! month partitions newest first, each walked down its sorting key (see `keyset`). The engine
//! does the copying; the worker holds only a cursor, so its memory does not grow with the data.

use serde::{Deserialize, Serialize};

use storage::background_migrations::BackgroundMigration;

use crate::columns::{
    EVENT_COLUMNS, NO_EXPERIMENT, ObservationMapping, SCRATCH_COLUMNS, Source, Version, trace_root_select,
    traces_near,
};
use crate::keyset::{
    self, ChunkCursor, Condition, KeyPart, KeyValues, OBSERVATIONS_KEY, SCRATCH_KEY, TRACES_KEY,
};

use super::scratch::{self, EXPERIMENT_OBSERVATIONS_TABLE, EXPERIMENT_TRACES_TABLE, SCRATCH_TABLE};
use super::{Step, StepEnd, StepRun, lean, saved_state, with_retries};

/// Traces referenced by a live dataset run item belong to M4 alone (reference/storage.md §4.2),
/// which copies only live ones: a trace whose run items were all deleted is a plain trace here, or
/// no step would copy it. Which traces those are is planned once per step into a scratch table
/// sorted like the step's source (`scratch::plan_experiments`); a chunk reads only its own partition
/// and key range of it, so a chunk costs the same however many run items there are.
fn experiments(step: Step, partition: &str, key: &[KeyPart], chunk: &ChunkRange) -> Condition {
    let (table, id) = match step {
        Step::RootSpans => (EXPERIMENT_TRACES_TABLE, "id"),
        _ => (EXPERIMENT_OBSERVATIONS_TABLE, "trace_id"),
    };
    let range = Condition { sql: "e.part = ?".to_owned(), binds: vec![partition.to_owned()] }
        .and(chunk.condition(key, "e."));
    Condition {
        sql: format!("NOT IN (SELECT e.project_id, e.{id} FROM {table} AS e WHERE {})", range.sql),
        binds: range.binds,
    }
}

/// A chunk's key range in its partition: below the cursor, at or above the boundary.
struct ChunkRange {
    below: Option<KeyValues>,
    boundary: Option<KeyValues>,
}

impl ChunkRange {
    fn condition(&self, key: &[KeyPart], alias: &str) -> Condition {
        let condition = keyset::below(key, alias, self.below.as_ref());
        match &self.boundary {
            Some(boundary) => condition.and(keyset::at_or_above(key, alias, boundary)),
            None => condition,
        }
    }
}

struct Source3 {
    table: &'static str,
    key: &'static [KeyPart],
    /// The time column, for the chunk's time range.
    time: &'static str,
}

fn source_of(step: Step) -> Source3 {
    match step {
        Step::RootSpans => Source3 { table: "traces", key: TRACES_KEY, time: "timestamp" },
        Step::RewriteObservations => {
            Source3 { table: "observations", key: OBSERVATIONS_KEY, time: "start_time" }
        }
        _ => Source3 { table: SCRATCH_TABLE, key: SCRATCH_KEY, time: "start_time" },
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    #[serde(flatten)]
    cursor: ChunkCursor,
    /// The set of experiment traces is planned (a step saved by an earlier version plans it when it
    /// resumes).
    #[serde(default)]
    experiments_planned: bool,
}

pub(crate) async fn run(run: &mut StepRun<'_>, row: &BackgroundMigration) -> storage::Result<StepEnd> {
    let step = run.step;
    let source = source_of(step);
    if step == Step::RewriteObservations {
        scratch::create(run).await?;
    }
    let mut state = match saved_state::<State>(row) {
        Some(state) => state,
        None => {
            let (partitions, rows) = plan(run, source.table).await?;
            let state =
                State { cursor: ChunkCursor { partitions, ..Default::default() }, ..State::default() };
            run.set_estimate(&state, i64::try_from(rows).unwrap_or(i64::MAX)).await?;
            state
        }
    };
    if step != Step::RewriteObservations && !state.experiments_planned {
        scratch::plan_experiments(run, step == Step::RootSpans).await?;
        state.experiments_planned = true;
    }
    let chunk_rows = run.settings().chunk_rows.max(1);
    while let Some(partition) = state.cursor.current_partition().map(str::to_owned) {
        if run.should_stop() {
            return Ok(StepEnd::Interrupted);
        }
        let below = state.cursor.below.clone();
        let within = in_partition("", &partition).and(keyset::below(source.key, "", below.as_ref()));
        let boundary_sql = keyset::boundary_query(source.table, source.key, chunk_rows - 1, &within);
        let boundary: Option<KeyValues> = run.condition_query(&boundary_sql).fetch_optional().await?;
        let range = ChunkRange { below, boundary };
        let chunk = |alias: &str| in_partition(alias, &partition).and(range.condition(source.key, alias));
        let skip = experiments(step, &partition, source.key, &range);
        let alias = if step == Step::RootSpans { "t" } else { "o" };
        let rows = with_retries(|attempt| {
            copy_chunk(run, step, &source, alias, chunk(&format!("{alias}.")), &skip, attempt)
        })
        .await?;
        state.cursor.advance(range.boundary);
        run.chunk_done(&state, rows).await?;
    }
    Ok(StepEnd::Done)
}

fn in_partition(alias: &str, partition: &str) -> Condition {
    Condition { sql: format!("{alias}_partition_id = ?"), binds: vec![partition.to_owned()] }
}

/// The month partitions of a table, newest first, and the rows they hold.
pub(crate) async fn plan(run: &StepRun<'_>, table: &str) -> storage::Result<(Vec<String>, u64)> {
    let parts: Vec<(String, u64)> = run
        .query(
            "SELECT partition_id, sum(rows) FROM system.parts \
             WHERE database = currentDatabase() AND table = ? AND active GROUP BY partition_id \
             ORDER BY partition_id DESC",
            &[table.to_owned()],
        )
        .fetch_all()
        .await?;
    let rows = parts.iter().map(|(_, rows)| rows).sum();
    Ok((parts.into_iter().map(|(id, _)| id).collect(), rows))
}

/// Copies one chunk; returns the source rows it covered.
async fn copy_chunk(
    run: &StepRun<'_>,
    step: Step,
    source: &Source3,
    alias: &str,
    chunk: Condition,
    skip: &Condition,
    attempt: u32,
) -> storage::Result<u64> {
    let stats_sql = format!(
        "SELECT count(), toString(min({alias}.{time})), toString(max({alias}.{time})) FROM {table} AS {alias} \
         WHERE {chunk}",
        time = source.time,
        table = source.table,
        chunk = chunk.sql
    );
    let (rows, min_time, max_time): (u64, String, String) =
        run.query(&stats_sql, &chunk.binds).fetch_one().await?;
    if rows == 0 {
        return Ok(0);
    }
    let statement = match step {
        Step::RootSpans => Condition {
            sql: format!(
                "INSERT INTO events_full ({EVENT_COLUMNS}) SELECT {select} FROM traces AS t \
                 WHERE ({chunk}) AND (t.project_id, t.id) {skip}",
                select = trace_root_select(NO_EXPERIMENT, Version::Source),
                chunk = chunk.sql,
                skip = skip.sql
            ),
            binds: chunk.binds.into_iter().chain(skip.binds.iter().cloned()).collect(),
        },
        Step::RewriteObservations => Condition {
            sql: format!(
                "INSERT INTO {SCRATCH_TABLE} ({SCRATCH_COLUMNS}) SELECT {SCRATCH_COLUMNS} FROM observations AS o \
                 WHERE {chunk}",
                chunk = chunk.sql
            ),
            binds: chunk.binds,
        },
        _ => {
            // Traces are read only for this chunk's trace ids, near its observations' times.
            let traces = traces_near(&format!(
                "SELECT o.project_id, o.trace_id FROM {SCRATCH_TABLE} AS o WHERE {chunk}",
                chunk = chunk.sql
            ));
            let select = ObservationMapping {
                source: Source::Backfill,
                experiment: NO_EXPERIMENT,
                version: Version::Source,
            }
            .select();
            let mut binds = vec![min_time, max_time];
            binds.extend(chunk.binds.iter().cloned());
            binds.extend(chunk.binds.iter().cloned());
            binds.extend(skip.binds.iter().cloned());
            Condition {
                sql: format!(
                    "INSERT INTO events_full ({EVENT_COLUMNS}) SELECT {select} FROM {SCRATCH_TABLE} AS o \
                     LEFT ANY JOIN {traces} AS t ON o.project_id = t.project_id AND o.trace_id = t.id \
                     WHERE ({chunk}) AND (o.project_id, o.trace_id) {skip}",
                    chunk = chunk.sql,
                    skip = skip.sql
                ),
                binds,
            }
        }
    };
    lean(run.condition_query(&statement), attempt).execute().await?;
    Ok(rows)
}
