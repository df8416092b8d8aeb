-- 0006_events_core: v4 table `events_core`, the lightweight projection of events_full
-- used by tables, charts and list APIs. It is filled only by events_core_mv (0007).
-- Source: /work/shared/reference/storage.md section 2.2.
--
-- Same column set and order as events_full (0005) except that input and output are
-- plain String without the ZSTD(3) codec. The MATERIALIZED cost and length columns and
-- the ALIAS total_cost are recomputed here (the view does not select them), so
-- input_length / output_length describe the truncated 200-character values.
-- Engine, PARTITION BY, PRIMARY KEY, ORDER BY and SAMPLE BY identical to events_full.
-- Settings as section 2.2 (no index_granularity_bytes / merge_max_block_size_bytes).
-- Skip indexes as section 2.2, including the two full-text `text` indexes on the
-- metadata arrays, the metadata ngram index (0043) and the evaluator indexes (0047).
-- No input/output full-text indexes and no name ngram indexes, as upstream.
-- If the table already exists (an earlier preview) the CREATE is skipped and the
-- additive ALTERs below add what later upstream migrations added.
--
-- Deviations from upstream:
-- * Fresh installs get the final column order directly (skills at the very end).
-- * ALTERs carry alter_sync = 2 unconditionally (no-op when unclustered).
-- Verified on chdb-core 26.9 (ClickHouse 26.9.2.1): nothing was dropped.

CREATE TABLE IF NOT EXISTS events_core {ON_CLUSTER}
(
    `project_id` String,
    `trace_id` String,
    `span_id` String,
    `parent_span_id` String,
    `start_time` DateTime64(6),
    `end_time` Nullable(DateTime64(6)),
    `name` String,
    `type` LowCardinality(String),
    `environment` LowCardinality(String) DEFAULT 'default',
    `version` String,
    `release` String,
    `trace_name` String,
    `user_id` String,
    `session_id` String,
    `tags` Array(String),
    `level` LowCardinality(String),
    `status_message` String,
    `completion_start_time` Nullable(DateTime64(6)),
    `is_app_root` Bool DEFAULT false,
    `bookmarked` Bool DEFAULT false,
    `public` Bool DEFAULT false,
    `prompt_id` String,
    `prompt_name` String,
    `prompt_version` Nullable(UInt16),
    `model_id` String,
    `provided_model_name` String,
    `model_parameters` String,
    `provided_usage_details` Map(LowCardinality(String), UInt64),
    `usage_details` Map(LowCardinality(String), UInt64),
    `provided_cost_details` Map(LowCardinality(String), Decimal(18, 12)),
    `cost_details` Map(LowCardinality(String), Decimal(18, 12)),
    `calculated_input_cost` Decimal(18, 12) MATERIALIZED arraySum(mapValues(mapFilter((k, v) -> positionCaseInsensitive(k, 'input') > 0, cost_details))),
    `calculated_output_cost` Decimal(18, 12) MATERIALIZED arraySum(mapValues(mapFilter((k, v) -> positionCaseInsensitive(k, 'output') > 0, cost_details))),
    `calculated_total_cost` Decimal(18, 12) MATERIALIZED arraySum(mapValues(mapFilter((k, v) -> (positionCaseInsensitive(k, 'input') > 0) OR (positionCaseInsensitive(k, 'output') > 0), cost_details))),
    `total_cost` Decimal(18, 12) ALIAS cost_details['total'],
    `usage_pricing_tier_id` Nullable(String),
    `usage_pricing_tier_name` Nullable(String),
    `tool_definitions` Map(String, String),
    `tool_calls` Array(String),
    `tool_call_names` Array(String),
    `input` String,
    `input_length` UInt64 MATERIALIZED lengthUTF8(input),
    `output` String,
    `output_length` UInt64 MATERIALIZED lengthUTF8(output),
    `metadata_names` Array(String),
    `metadata_values` Array(String),
    `evaluator_id` String DEFAULT arrayElement(metadata_values, indexOf(metadata_names, 'evaluator_id')),
    `evaluation_rule_id` String DEFAULT if(notEmpty(arrayElement(metadata_values, indexOf(metadata_names, 'evaluation_rule_id'))), arrayElement(metadata_values, indexOf(metadata_names, 'evaluation_rule_id')), arrayElement(metadata_values, indexOf(metadata_names, 'job_configuration_id'))),
    `evaluator_execution_is_test` Bool DEFAULT has(metadata_names, 'evaluator_test') AND (arrayElement(metadata_values, indexOf(metadata_names, 'evaluator_test')) = 'true'),
    `experiment_id` String,
    `experiment_name` String,
    `experiment_metadata_names` Array(String),
    `experiment_metadata_values` Array(String),
    `experiment_description` String,
    `experiment_dataset_id` String,
    `experiment_item_id` String,
    `experiment_item_version` Nullable(DateTime64(6)),
    `experiment_item_expected_output` String,
    `experiment_item_metadata_names` Array(String),
    `experiment_item_metadata_values` Array(String),
    `experiment_item_root_span_id` String,
    `source` LowCardinality(String),
    `service_name` String,
    `service_version` String,
    `scope_name` String,
    `scope_version` String,
    `telemetry_sdk_language` LowCardinality(String),
    `telemetry_sdk_name` String,
    `telemetry_sdk_version` String,
    `blob_storage_file_path` String,
    `event_bytes` UInt64,
    `created_at` DateTime64(6) DEFAULT now(),
    `updated_at` DateTime64(6) DEFAULT now(),
    `event_ts` DateTime64(6),
    `is_deleted` UInt8,
    `ingestion_api_key` String DEFAULT '',
    `ingestion_sdk_name` LowCardinality(String) DEFAULT 'unknown',
    `ingestion_sdk_version` LowCardinality(String) DEFAULT 'unknown',
    `skills_available` Array(JSON(langfuseSkillId Nullable(String), langfuseSkillVersion Nullable(UInt32), skillName String)) DEFAULT [],
    `skills_resource_loaded` Array(JSON(langfuseSkillId Nullable(String), langfuseSkillVersion Nullable(UInt32), skillName String, filePath String)) DEFAULT [],
    INDEX idx_span_id span_id TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_trace_id trace_id TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_user_id user_id TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_session_id session_id TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_created_at created_at TYPE minmax GRANULARITY 1,
    INDEX idx_updated_at updated_at TYPE minmax GRANULARITY 1,
    INDEX idx_provided_model_name provided_model_name TYPE bloom_filter(0.01) GRANULARITY 2,
    INDEX idx_experiment_id experiment_id TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_metadata_names metadata_names TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_fts_metadata_values metadata_values TYPE text(tokenizer = splitByNonAlpha),
    INDEX idx_fts_metadata_names metadata_names TYPE text(tokenizer = splitByNonAlpha),
    INDEX idx_ngram_metadata_values arrayStringConcat(metadata_values) TYPE ngrambf_v1(4, 32000, 3, 0) GRANULARITY 2,
    INDEX idx_evaluator_id evaluator_id TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_evaluation_rule_id evaluation_rule_id TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = {REPLICATED}ReplacingMergeTree(event_ts, is_deleted)
PARTITION BY toYYYYMM(start_time)
PRIMARY KEY (project_id, toStartOfMinute(start_time), xxHash32(trace_id))
ORDER BY (project_id, toStartOfMinute(start_time), xxHash32(trace_id), span_id, start_time)
SAMPLE BY xxHash32(trace_id)
SETTINGS
    enable_block_number_column = 1,
    enable_block_offset_column = 1,
    prewarm_mark_cache = 1,
    prewarm_primary_key_cache = 1,
    enable_full_text_index = 1;

-- Upgrade path for an events_core created by an earlier preview.
-- upstream 0042
ALTER TABLE events_core {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `ingestion_api_key` String DEFAULT ''
    SETTINGS enable_full_text_index = 1, alter_sync = 2;

ALTER TABLE events_core {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `ingestion_sdk_name` LowCardinality(String) DEFAULT 'unknown'
    SETTINGS enable_full_text_index = 1, alter_sync = 2;

ALTER TABLE events_core {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `ingestion_sdk_version` LowCardinality(String) DEFAULT 'unknown'
    SETTINGS enable_full_text_index = 1, alter_sync = 2;

-- upstream 0043 (not materialized on existing parts)
ALTER TABLE events_core {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_ngram_metadata_values arrayStringConcat(metadata_values) TYPE ngrambf_v1(4, 32000, 3, 0) GRANULARITY 2
    SETTINGS enable_full_text_index = 1, alter_sync = 2;

-- upstream 0047: existing parts resolve these through their DEFAULT expressions
ALTER TABLE events_core {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `evaluator_id` String DEFAULT arrayElement(metadata_values, indexOf(metadata_names, 'evaluator_id')) AFTER metadata_values
    SETTINGS enable_full_text_index = 1, alter_sync = 2;

ALTER TABLE events_core {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `evaluation_rule_id` String DEFAULT if(notEmpty(arrayElement(metadata_values, indexOf(metadata_names, 'evaluation_rule_id'))), arrayElement(metadata_values, indexOf(metadata_names, 'evaluation_rule_id')), arrayElement(metadata_values, indexOf(metadata_names, 'job_configuration_id'))) AFTER evaluator_id
    SETTINGS enable_full_text_index = 1, alter_sync = 2;

ALTER TABLE events_core {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `evaluator_execution_is_test` Bool DEFAULT has(metadata_names, 'evaluator_test') AND (arrayElement(metadata_values, indexOf(metadata_names, 'evaluator_test')) = 'true') AFTER evaluation_rule_id
    SETTINGS enable_full_text_index = 1, alter_sync = 2;

-- upstream 0047 (indexes, events_core only, not materialized on existing parts)
ALTER TABLE events_core {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_evaluator_id evaluator_id TYPE bloom_filter(0.01) GRANULARITY 1
    SETTINGS enable_full_text_index = 1, alter_sync = 2;

ALTER TABLE events_core {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_evaluation_rule_id evaluation_rule_id TYPE bloom_filter(0.01) GRANULARITY 1
    SETTINGS enable_full_text_index = 1, alter_sync = 2;

-- upstream 0052
ALTER TABLE events_core {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `skills_available` Array(JSON(langfuseSkillId Nullable(String), langfuseSkillVersion Nullable(UInt32), skillName String)) DEFAULT []
    SETTINGS enable_full_text_index = 1, alter_sync = 2;

ALTER TABLE events_core {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `skills_resource_loaded` Array(JSON(langfuseSkillId Nullable(String), langfuseSkillVersion Nullable(UInt32), skillName String, filePath String)) DEFAULT []
    SETTINGS enable_full_text_index = 1, alter_sync = 2;
