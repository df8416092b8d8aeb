//! The scratch table `observations_pid_tid_sorting` (reference/storage.md §2.5): created by M2, dropped by M5.

use storage::clickhouse::render;

use super::{StepEnd, StepRun};

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

pub(crate) async fn create(run: &StepRun<'_>) -> storage::Result<()> {
    let ch = run.clickhouse();
    ch.client().query(&render(CREATE, ch.cluster())).execute().await?;
    Ok(())
}

/// M5: idempotent, so a re-run after a crash is harmless.
pub(crate) async fn drop(run: &StepRun<'_>) -> storage::Result<StepEnd> {
    let ch = run.clickhouse();
    let statement =
        render(&format!("DROP TABLE IF EXISTS {SCRATCH_TABLE} {{ON_CLUSTER}} SYNC"), ch.cluster());
    ch.client().query(&statement).execute().await?;
    Ok(StepEnd::Done)
}
