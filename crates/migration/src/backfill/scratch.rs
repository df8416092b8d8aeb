//! The scratch tables: `observations_pid_tid_sorting` (reference/storage.md §2.5), created by M2,
//! the two sets of experiment traces M1 and M3 leave to M4, and the three M4 adds to walk
//! experiment traces by key range; all dropped by M5.

use storage::clickhouse::render;

use super::{StepEnd, StepRun, lean, with_retries};

pub const SCRATCH_TABLE: &str = "observations_pid_tid_sorting";

/// v3 `observations` columns, re-sorted by (project_id, trace_id, id) so each trace's rows sit
/// together for the join with `traces` and for M4's tree walks.
const CREATE: &str = "CREATE TABLE IF NOT EXISTS observations_pid_tid_sorting {ON_CLUSTER} (
    id String, trace_id String, project_id String,
    environment LowCardinality(String) DEFAULT 'default', type LowCardinality(String),
    parent_observation_id Nullable(String), start_time DateTime64(3), end_time Nullable(DateTime64(3)),
    name String, metadata Map(LowCardinality(String), String), level LowCardinality(String),
    status_message Nullable(String), version Nullable(String),
    input Nullable(String) CODEC(ZSTD(3)), output Nullable(String) CODEC(ZSTD(3)),
    provided_model_name Nullable(String), internal_model_id Nullable(String), model_parameters Nullable(String),
    provided_usage_details Map(LowCardinality(String), UInt64), usage_details Map(LowCardinality(String), UInt64),
    provided_cost_details Map(LowCardinality(String), Decimal64(12)),
    cost_details Map(LowCardinality(String), Decimal64(12)), total_cost Nullable(Decimal64(12)),
    completion_start_time Nullable(DateTime64(3)), prompt_id Nullable(String), prompt_name Nullable(String),
    prompt_version Nullable(UInt16), usage_pricing_tier_id Nullable(String), usage_pricing_tier_name Nullable(String),
    tool_definitions Map(String, String) DEFAULT map(), tool_calls Array(String) DEFAULT [],
    tool_call_names Array(String) DEFAULT [], created_at DateTime64(3) DEFAULT now(),
    updated_at DateTime64(3) DEFAULT now(), event_ts DateTime64(3), is_deleted UInt8
)
ENGINE = {REPLICATED}ReplacingMergeTree(event_ts, is_deleted)
PARTITION BY toYYYYMM(start_time)
PRIMARY KEY (project_id, trace_id)
ORDER BY (project_id, trace_id, id)";

/// M4: the live dataset run items, sorted by trace, with what the experiment columns need (the run
/// item's root span worked out: `t-<trace>` for a trace-level item).
pub const ITEMS_TABLE: &str = "dataset_run_items_pid_tid_sorting";
const CREATE_ITEMS: &str = "CREATE TABLE IF NOT EXISTS dataset_run_items_pid_tid_sorting {ON_CLUSTER} (
    project_id String, trace_id String, id String, root_span String, created_at DateTime64(3),
    dataset_run_id String, dataset_run_name String, dataset_run_description String,
    dataset_run_metadata Map(LowCardinality(String), String), dataset_id String, dataset_item_id String,
    dataset_item_version Nullable(DateTime64(3)), dataset_item_expected_output String CODEC(ZSTD(3)),
    dataset_item_metadata Map(LowCardinality(String), String), event_ts DateTime64(3)
)
ENGINE = {REPLICATED}ReplacingMergeTree(event_ts)
ORDER BY (project_id, trace_id, id)";

/// M4: every version of the experiment traces, sorted by (project_id, trace_id), so a chunk of
/// traces reads its rows through the primary index instead of `traces`' (project, day, id) key.
pub const TRACES_TABLE: &str = "traces_pid_tid_sorting";
const CREATE_TRACES: &str = "CREATE TABLE IF NOT EXISTS traces_pid_tid_sorting {ON_CLUSTER} (
    project_id String, trace_id String, timestamp DateTime64(3), name String, user_id Nullable(String),
    metadata Map(LowCardinality(String), String), release Nullable(String), version Nullable(String),
    environment LowCardinality(String), public Bool, bookmarked Bool, tags Array(String),
    input Nullable(String) CODEC(ZSTD(3)), output Nullable(String) CODEC(ZSTD(3)), session_id Nullable(String),
    created_at DateTime64(3), updated_at DateTime64(3), event_ts DateTime64(3), is_deleted UInt8
)
ENGINE = {REPLICATED}ReplacingMergeTree(event_ts)
ORDER BY (project_id, trace_id)";

/// The columns of [`TRACES_TABLE`] besides the key, as `traces` names them too.
pub const TRACE_COLUMNS: &str = "timestamp, name, user_id, metadata, release, version, environment, public, \
    bookmarked, tags, input, output, session_id, created_at, updated_at, event_ts, is_deleted";

/// M4: which run item each span of an experiment trace belongs to, as the worker worked it out
/// (the trace's virtual root as `t-<trace>`); spans of no item have no row.
pub const OWNERS_TABLE: &str = "experiment_spans_pid_tid_sorting";
const CREATE_OWNERS: &str = "CREATE TABLE IF NOT EXISTS experiment_spans_pid_tid_sorting {ON_CLUSTER} (
    project_id String, trace_id String, span_id String, item_id String
)
ENGINE = {REPLICATED}ReplacingMergeTree
ORDER BY (project_id, trace_id, span_id)";

/// M1: the `traces` rows of the experiment traces (those a live dataset run item points at, which
/// M4 copies), by their partition and `traces`' own key, so a chunk of M1 finds the ones in its
/// partition and key range by reading just that range of this table.
pub const EXPERIMENT_TRACES_TABLE: &str = "experiment_traces_pid_tid_sorting";
const CREATE_EXPERIMENT_TRACES: &str =
    "CREATE TABLE IF NOT EXISTS experiment_traces_pid_tid_sorting {ON_CLUSTER} (
    part String, project_id String, timestamp DateTime64(3), id String
)
ENGINE = {REPLICATED}ReplacingMergeTree
ORDER BY (part, project_id, toDate(timestamp), id)";

/// M3: the same for [`SCRATCH_TABLE`]: each month partition's experiment traces, by (project_id,
/// trace_id) as M3's chunks walk it.
pub const EXPERIMENT_OBSERVATIONS_TABLE: &str = "experiment_observations_pid_tid_sorting";
const CREATE_EXPERIMENT_OBSERVATIONS: &str =
    "CREATE TABLE IF NOT EXISTS experiment_observations_pid_tid_sorting {ON_CLUSTER} (
    part String, project_id String, trace_id String
)
ENGINE = {REPLICATED}ReplacingMergeTree
ORDER BY (part, project_id, trace_id)";

/// The live run items' traces, the one read of `dataset_run_items_rmt` M1 and M3 make.
const LIVE_EXPERIMENTS: &str =
    "SELECT project_id, trace_id FROM dataset_run_items_rmt FINAL WHERE is_deleted = 0";

/// Plans M1's or M3's set of experiment traces (emptied first: a step that plans again starts from
/// the run items as they are now).
pub(crate) async fn plan_experiments(run: &StepRun<'_>, for_traces: bool) -> storage::Result<()> {
    let (table, create, fill) = if for_traces {
        (
            EXPERIMENT_TRACES_TABLE,
            CREATE_EXPERIMENT_TRACES,
            format!(
                "INSERT INTO {EXPERIMENT_TRACES_TABLE} (part, project_id, timestamp, id) \
                 SELECT DISTINCT _partition_id, project_id, timestamp, id FROM traces \
                 WHERE (project_id, id) IN ({LIVE_EXPERIMENTS})"
            ),
        )
    } else {
        (
            EXPERIMENT_OBSERVATIONS_TABLE,
            CREATE_EXPERIMENT_OBSERVATIONS,
            format!(
                "INSERT INTO {EXPERIMENT_OBSERVATIONS_TABLE} (part, project_id, trace_id) \
                 SELECT DISTINCT _partition_id, project_id, trace_id FROM {SCRATCH_TABLE} \
                 WHERE (project_id, trace_id) IN ({LIVE_EXPERIMENTS})"
            ),
        )
    };
    execute(run, create).await?;
    execute(run, &format!("TRUNCATE TABLE IF EXISTS {table} {{ON_CLUSTER}}")).await?;
    with_retries(|attempt| {
        let query = lean(run.query(&fill, &[]), attempt);
        async move { Ok(query.execute().await?) }
    })
    .await
}

pub(crate) async fn create(run: &StepRun<'_>) -> storage::Result<()> {
    execute(run, CREATE).await
}

/// M4's tables, created if missing.
pub(crate) async fn create_experiment_tables(run: &StepRun<'_>) -> storage::Result<()> {
    for statement in [CREATE_ITEMS, CREATE_TRACES, CREATE_OWNERS] {
        execute(run, statement).await?;
    }
    Ok(())
}

/// Empties M4's tables, for a step that plans from the start.
pub(crate) async fn empty_experiment_tables(run: &StepRun<'_>) -> storage::Result<()> {
    for table in [ITEMS_TABLE, TRACES_TABLE, OWNERS_TABLE] {
        execute(run, &format!("TRUNCATE TABLE IF EXISTS {table} {{ON_CLUSTER}}")).await?;
    }
    Ok(())
}

async fn execute(run: &StepRun<'_>, template: &str) -> storage::Result<()> {
    let ch = run.clickhouse();
    ch.client().query(&render(template, ch.cluster())).execute().await?;
    Ok(())
}

/// M5: idempotent, so a re-run after a crash is harmless.
pub(crate) async fn drop(run: &StepRun<'_>) -> storage::Result<StepEnd> {
    for table in [
        SCRATCH_TABLE,
        ITEMS_TABLE,
        TRACES_TABLE,
        OWNERS_TABLE,
        EXPERIMENT_TRACES_TABLE,
        EXPERIMENT_OBSERVATIONS_TABLE,
    ] {
        execute(run, &format!("DROP TABLE IF EXISTS {table} {{ON_CLUSTER}} SYNC")).await?;
    }
    Ok(StepEnd::Done)
}
