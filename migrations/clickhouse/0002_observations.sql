-- 0002_observations: v3 table `observations` (Langfuse v3 legacy observation table).
-- Source: /work/shared/reference/storage.md section 1.2.
--
-- Creates the table with the CURRENT v3 column set in the order a real Langfuse v3
-- table has after all upstream ALTERs: environment right after project_id (0008),
-- then the columns appended at the end in upstream order: pricing tier (0031),
-- tool columns (0033), skills columns (0052).
-- Skip indexes: idx_id, idx_trace_id, the metadata bloom indexes (0025) and
-- idx_created_at (0037). idx_project_id is not created (upstream dropped it in 0004).
-- If the table already exists the CREATE is skipped and the additive ALTERs below bring
-- an older revision up to date.
--
-- Deviations from upstream:
-- * An old table that still has idx_project_id (pre-0004) keeps it: we never DROP.
-- * Indexes added to an existing table are NOT materialized (no mutations here).
--   Old parts are not pruned by them until merged. Results stay correct.
-- * ALTERs carry SETTINGS alter_sync = 2 unconditionally (no-op when unclustered).
-- * The skills columns use the JSON type, which needs ClickHouse 25.3 or newer without
--   experimental flags. Loupe's minimum is 25.12 (v4 requirement), so no flag is set.

CREATE TABLE IF NOT EXISTS observations {ON_CLUSTER}
(
    `id` String,
    `trace_id` String,
    `project_id` String,
    `environment` LowCardinality(String) DEFAULT 'default',
    `type` LowCardinality(String),
    `parent_observation_id` Nullable(String),
    `start_time` DateTime64(3),
    `end_time` Nullable(DateTime64(3)),
    `name` String,
    `metadata` Map(LowCardinality(String), String),
    `level` LowCardinality(String),
    `status_message` Nullable(String),
    `version` Nullable(String),
    `input` Nullable(String) CODEC(ZSTD(3)),
    `output` Nullable(String) CODEC(ZSTD(3)),
    `provided_model_name` Nullable(String),
    `internal_model_id` Nullable(String),
    `model_parameters` Nullable(String),
    `provided_usage_details` Map(LowCardinality(String), UInt64),
    `usage_details` Map(LowCardinality(String), UInt64),
    `provided_cost_details` Map(LowCardinality(String), Decimal64(12)),
    `cost_details` Map(LowCardinality(String), Decimal64(12)),
    `total_cost` Nullable(Decimal64(12)),
    `completion_start_time` Nullable(DateTime64(3)),
    `prompt_id` Nullable(String),
    `prompt_name` Nullable(String),
    `prompt_version` Nullable(UInt16),
    `created_at` DateTime64(3) DEFAULT now(),
    `updated_at` DateTime64(3) DEFAULT now(),
    `event_ts` DateTime64(3),
    `is_deleted` UInt8,
    `usage_pricing_tier_id` Nullable(String),
    `usage_pricing_tier_name` Nullable(String),
    `tool_definitions` Map(String, String) DEFAULT map(),
    `tool_calls` Array(String) DEFAULT [],
    `tool_call_names` Array(String) DEFAULT [],
    `skills_available` Array(JSON(langfuseSkillId Nullable(String), langfuseSkillVersion Nullable(UInt32), skillName String)) DEFAULT [],
    `skills_resource_loaded` Array(JSON(langfuseSkillId Nullable(String), langfuseSkillVersion Nullable(UInt32), skillName String, filePath String)) DEFAULT [],
    INDEX idx_id id TYPE bloom_filter() GRANULARITY 1,
    INDEX idx_trace_id trace_id TYPE bloom_filter() GRANULARITY 1,
    INDEX idx_res_metadata_key mapKeys(metadata) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_metadata_value mapValues(metadata) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_created_at created_at TYPE minmax GRANULARITY 1
)
ENGINE = {REPLICATED}ReplacingMergeTree(event_ts, is_deleted)
PARTITION BY toYYYYMM(start_time)
PRIMARY KEY (project_id, `type`, toDate(start_time))
ORDER BY (project_id, `type`, toDate(start_time), id);

-- Upgrade path for tables created by an older Langfuse v3 revision.
-- upstream 0008
ALTER TABLE observations {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `environment` LowCardinality(String) DEFAULT 'default' AFTER project_id
    SETTINGS alter_sync = 2;

-- upstream 0025
ALTER TABLE observations {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_res_metadata_key mapKeys(metadata) TYPE bloom_filter(0.01) GRANULARITY 1
    SETTINGS alter_sync = 2;

ALTER TABLE observations {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_res_metadata_value mapValues(metadata) TYPE bloom_filter(0.01) GRANULARITY 1
    SETTINGS alter_sync = 2;

-- upstream 0031 (appended at the end, no AFTER, as upstream did)
ALTER TABLE observations {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `usage_pricing_tier_id` Nullable(String)
    SETTINGS alter_sync = 2;

ALTER TABLE observations {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `usage_pricing_tier_name` Nullable(String)
    SETTINGS alter_sync = 2;

-- upstream 0033
ALTER TABLE observations {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `tool_definitions` Map(String, String) DEFAULT map()
    SETTINGS alter_sync = 2;

ALTER TABLE observations {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `tool_calls` Array(String) DEFAULT []
    SETTINGS alter_sync = 2;

ALTER TABLE observations {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `tool_call_names` Array(String) DEFAULT []
    SETTINGS alter_sync = 2;

-- upstream 0037
ALTER TABLE observations {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_created_at created_at TYPE minmax GRANULARITY 1
    SETTINGS alter_sync = 2;

-- upstream 0052 (skills, recent)
ALTER TABLE observations {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `skills_available` Array(JSON(langfuseSkillId Nullable(String), langfuseSkillVersion Nullable(UInt32), skillName String)) DEFAULT []
    SETTINGS alter_sync = 2;

ALTER TABLE observations {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `skills_resource_loaded` Array(JSON(langfuseSkillId Nullable(String), langfuseSkillVersion Nullable(UInt32), skillName String, filePath String)) DEFAULT []
    SETTINGS alter_sync = 2;
