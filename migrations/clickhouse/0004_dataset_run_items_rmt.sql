-- 0004_dataset_run_items_rmt: v3 table `dataset_run_items_rmt` (dataset run items,
-- read by the experiments backfill and the experiments API).
-- Source: /work/shared/reference/storage.md section 1.4.
--
-- Creates the table with the CURRENT v3 column set (dataset_item_version appended at
-- the end by upstream 0032), idx_dataset_item and idx_trace_id (0026), no PARTITION BY
-- (system.parts reports partition_id 'all'), ORDER BY only (no separate PRIMARY KEY),
-- and the block number/offset columns on (0048).
-- The old non-replicated `dataset_run_items` table (upstream 0022, dropped in 0046) is
-- deliberately not created.
-- If the table already exists the CREATE is skipped and the additive ALTERs below bring
-- an older revision up to date.
--
-- Deviations from upstream:
-- * idx_trace_id added to an existing table is NOT materialized (no mutations here).
-- * ALTERs carry SETTINGS alter_sync = 2 unconditionally (no-op when unclustered).

CREATE TABLE IF NOT EXISTS dataset_run_items_rmt {ON_CLUSTER}
(
    `id` String,
    `project_id` String,
    `dataset_run_id` String,
    `dataset_item_id` String,
    `dataset_id` String,
    `trace_id` String,
    `observation_id` Nullable(String),
    `error` Nullable(String),
    `created_at` DateTime64(3) DEFAULT now(),
    `updated_at` DateTime64(3) DEFAULT now(),
    `dataset_run_name` String,
    `dataset_run_description` Nullable(String),
    `dataset_run_metadata` Map(LowCardinality(String), String),
    `dataset_run_created_at` DateTime64(3),
    `dataset_item_input` Nullable(String) CODEC(ZSTD(3)),
    `dataset_item_expected_output` Nullable(String) CODEC(ZSTD(3)),
    `dataset_item_metadata` Map(LowCardinality(String), String),
    `event_ts` DateTime64(3),
    `is_deleted` UInt8,
    `dataset_item_version` Nullable(DateTime64(3)),
    INDEX idx_dataset_item dataset_item_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1
)
ENGINE = {REPLICATED}ReplacingMergeTree(event_ts, is_deleted)
ORDER BY (project_id, dataset_id, dataset_run_id, id)
SETTINGS enable_block_number_column = 1, enable_block_offset_column = 1;

-- Upgrade path for tables created by an older Langfuse v3 revision.
-- upstream 0026
ALTER TABLE dataset_run_items_rmt {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1
    SETTINGS alter_sync = 2;

-- upstream 0032
ALTER TABLE dataset_run_items_rmt {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `dataset_item_version` Nullable(DateTime64(3))
    SETTINGS alter_sync = 2;

-- upstream 0048: metadata-only, existing parts are not rewritten
ALTER TABLE dataset_run_items_rmt {ON_CLUSTER}
    MODIFY SETTING enable_block_number_column = 1, enable_block_offset_column = 1
    SETTINGS alter_sync = 2;
