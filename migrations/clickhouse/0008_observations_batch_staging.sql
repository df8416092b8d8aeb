-- 0008_observations_batch_staging: v4 dual-write staging table. Ingestion writes every
-- observation (and every trace as a synthetic observation with id 't-' || trace id)
-- here while the write mode is dual, and the propagation job moves closed 3-minute
-- partitions into events_full.
-- Source: /work/shared/reference/storage.md section 2.4.
--
-- Columns as in section 2.4 (v3 observation record plus s3_first_seen_timestamp), in the
-- order an upgraded upstream table has: environment after s3_first_seen_timestamp
-- (upstream 0038), then the ingestion attribution columns (0042) and the skills
-- columns (0052) appended.
-- PARTITION BY toStartOfInterval(s3_first_seen_timestamp, INTERVAL 3 MINUTE),
-- TTL toDateTime(s3_first_seen_timestamp) + INTERVAL 48 HOUR with ttl_only_drop_parts = 1
-- (whole parts are dropped, never single rows). No skip indexes.
-- observations_pid_tid_sorting (section 2.5) is NOT a migration: the backfill creates it.
-- If the table already exists (an earlier preview) the CREATE is skipped and the
-- additive ALTERs below add the later columns.
--
-- Deviations from upstream: ALTERs carry alter_sync = 2 unconditionally (no-op when
-- unclustered). Nothing else.

CREATE TABLE IF NOT EXISTS observations_batch_staging {ON_CLUSTER}
(
    `id` String,
    `trace_id` String,
    `project_id` String,
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
    `usage_pricing_tier_id` Nullable(String),
    `usage_pricing_tier_name` Nullable(String),
    `tool_definitions` Map(String, String),
    `tool_calls` Array(String),
    `tool_call_names` Array(String),
    `completion_start_time` Nullable(DateTime64(3)),
    `prompt_id` Nullable(String),
    `prompt_name` Nullable(String),
    `prompt_version` Nullable(UInt16),
    `created_at` DateTime64(3) DEFAULT now(),
    `updated_at` DateTime64(3) DEFAULT now(),
    `event_ts` DateTime64(3),
    `is_deleted` UInt8,
    `s3_first_seen_timestamp` DateTime64(3),
    `environment` LowCardinality(String) DEFAULT 'default',
    `ingestion_api_key` String DEFAULT '',
    `ingestion_sdk_name` LowCardinality(String) DEFAULT 'unknown',
    `ingestion_sdk_version` LowCardinality(String) DEFAULT 'unknown',
    `skills_available` Array(JSON(langfuseSkillId Nullable(String), langfuseSkillVersion Nullable(UInt32), skillName String)) DEFAULT [],
    `skills_resource_loaded` Array(JSON(langfuseSkillId Nullable(String), langfuseSkillVersion Nullable(UInt32), skillName String, filePath String)) DEFAULT []
)
ENGINE = {REPLICATED}ReplacingMergeTree(event_ts, is_deleted)
PARTITION BY toStartOfInterval(s3_first_seen_timestamp, INTERVAL 3 MINUTE)
PRIMARY KEY (project_id, toDate(s3_first_seen_timestamp))
ORDER BY (project_id, toDate(s3_first_seen_timestamp), trace_id, id)
TTL toDateTime(s3_first_seen_timestamp) + INTERVAL 48 HOUR
SETTINGS ttl_only_drop_parts = 1;

-- Upgrade path for a staging table created by an earlier preview.
-- upstream 0042
ALTER TABLE observations_batch_staging {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `ingestion_api_key` String DEFAULT ''
    SETTINGS alter_sync = 2;

ALTER TABLE observations_batch_staging {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `ingestion_sdk_name` LowCardinality(String) DEFAULT 'unknown'
    SETTINGS alter_sync = 2;

ALTER TABLE observations_batch_staging {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `ingestion_sdk_version` LowCardinality(String) DEFAULT 'unknown'
    SETTINGS alter_sync = 2;

-- upstream 0052
ALTER TABLE observations_batch_staging {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `skills_available` Array(JSON(langfuseSkillId Nullable(String), langfuseSkillVersion Nullable(UInt32), skillName String)) DEFAULT []
    SETTINGS alter_sync = 2;

ALTER TABLE observations_batch_staging {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `skills_resource_loaded` Array(JSON(langfuseSkillId Nullable(String), langfuseSkillVersion Nullable(UInt32), skillName String, filePath String)) DEFAULT []
    SETTINGS alter_sync = 2;
