-- 0003_scores: v3 table `scores` (still read by the v3 Scores API in v4).
-- Source: /work/shared/reference/storage.md section 1.3.
--
-- Creates the table with the CURRENT v3 column set in the order a real Langfuse v3
-- table has after all upstream ALTERs:
--   environment after project_id (0008), trace_id Nullable (0014), session_id after
--   trace_id (0012), dataset_run_id after session_id (0017), metadata after comment
--   (0010), evaluator_id / evaluation_rule_id after metadata (0047), then appended at the
--   end: execution_trace_id (0030), long_string_value (0034), ingestion attribution (0035).
-- Skip indexes as of upstream 0050: idx_project_trace_observation_v2 (GRANULARITY 2)
-- replaces idx_project_trace_observation. Block number/offset columns on (0048), needed
-- for lightweight UPDATE.
-- If the table already exists the CREATE is skipped and the additive ALTERs below bring
-- an older revision up to date.
--
-- Deviations from upstream:
-- * An older table keeps its idx_project_trace_observation (GRANULARITY 1) next to the
--   new idx_project_trace_observation_v2: upstream 0050 dropped it, we never DROP.
--   It costs some write amplification only. The runner or an operator may drop it.
-- * A table older than upstream 0014 keeps trace_id as String (not Nullable): making it
--   Nullable is a MODIFY COLUMN, which these migrations never do.
-- * Indexes added to an existing table are NOT materialized (upstream materialized
--   idx_created_at and idx_project_trace_observation_v2). No mutations here.
-- * ALTERs carry SETTINGS alter_sync = 2 unconditionally (no-op when unclustered).

CREATE TABLE IF NOT EXISTS scores {ON_CLUSTER}
(
    `id` String,
    `timestamp` DateTime64(3),
    `project_id` String,
    `environment` LowCardinality(String) DEFAULT 'default',
    `trace_id` Nullable(String),
    `session_id` Nullable(String),
    `dataset_run_id` Nullable(String),
    `observation_id` Nullable(String),
    `name` String,
    `value` Float64,
    `source` String,
    `comment` Nullable(String) CODEC(ZSTD(1)),
    `metadata` Map(LowCardinality(String), String),
    `evaluator_id` String DEFAULT metadata['evaluator_id'],
    `evaluation_rule_id` String DEFAULT if(notEmpty(metadata['evaluation_rule_id']), metadata['evaluation_rule_id'], metadata['job_configuration_id']),
    `author_user_id` Nullable(String),
    `config_id` Nullable(String),
    `data_type` String,
    `string_value` Nullable(String),
    `queue_id` Nullable(String),
    `created_at` DateTime64(3) DEFAULT now(),
    `updated_at` DateTime64(3) DEFAULT now(),
    `event_ts` DateTime64(3),
    `is_deleted` UInt8,
    `execution_trace_id` Nullable(String),
    `long_string_value` String CODEC(ZSTD(3)),
    `ingestion_api_key` String DEFAULT '',
    `ingestion_sdk_name` LowCardinality(String) DEFAULT 'unknown',
    `ingestion_sdk_version` LowCardinality(String) DEFAULT 'unknown',
    INDEX idx_id id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_project_session (project_id, session_id) TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_project_dataset_run (project_id, dataset_run_id) TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_created_at created_at TYPE minmax GRANULARITY 1,
    INDEX idx_evaluator_id evaluator_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_evaluation_rule_id evaluation_rule_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_project_trace_observation_v2 (project_id, trace_id, observation_id) TYPE bloom_filter(0.001) GRANULARITY 2
)
ENGINE = {REPLICATED}ReplacingMergeTree(event_ts, is_deleted)
PARTITION BY toYYYYMM(timestamp)
PRIMARY KEY (project_id, toDate(timestamp), name)
ORDER BY (project_id, toDate(timestamp), name, id)
SETTINGS enable_block_number_column = 1, enable_block_offset_column = 1;

-- Upgrade path for tables created by an older Langfuse v3 revision.
-- upstream 0008
ALTER TABLE scores {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `environment` LowCardinality(String) DEFAULT 'default' AFTER project_id
    SETTINGS alter_sync = 2;

-- upstream 0012
ALTER TABLE scores {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `session_id` Nullable(String) AFTER trace_id
    SETTINGS alter_sync = 2;

-- upstream 0017
ALTER TABLE scores {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `dataset_run_id` Nullable(String) AFTER session_id
    SETTINGS alter_sync = 2;

-- upstream 0010
ALTER TABLE scores {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `metadata` Map(LowCardinality(String), String) AFTER comment
    SETTINGS alter_sync = 2;

-- upstream 0047 (columns)
ALTER TABLE scores {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `evaluator_id` String DEFAULT metadata['evaluator_id'] AFTER metadata
    SETTINGS alter_sync = 2;

ALTER TABLE scores {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `evaluation_rule_id` String DEFAULT if(notEmpty(metadata['evaluation_rule_id']), metadata['evaluation_rule_id'], metadata['job_configuration_id']) AFTER evaluator_id
    SETTINGS alter_sync = 2;

-- upstream 0030
ALTER TABLE scores {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `execution_trace_id` Nullable(String)
    SETTINGS alter_sync = 2;

-- upstream 0034
ALTER TABLE scores {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `long_string_value` String CODEC(ZSTD(3))
    SETTINGS alter_sync = 2;

-- upstream 0035
ALTER TABLE scores {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `ingestion_api_key` String DEFAULT ''
    SETTINGS alter_sync = 2;

ALTER TABLE scores {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `ingestion_sdk_name` LowCardinality(String) DEFAULT 'unknown'
    SETTINGS alter_sync = 2;

ALTER TABLE scores {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `ingestion_sdk_version` LowCardinality(String) DEFAULT 'unknown'
    SETTINGS alter_sync = 2;

-- upstream 0016
ALTER TABLE scores {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_project_session (project_id, session_id) TYPE bloom_filter(0.001) GRANULARITY 1
    SETTINGS alter_sync = 2;

-- upstream 0018
ALTER TABLE scores {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_project_dataset_run (project_id, dataset_run_id) TYPE bloom_filter(0.001) GRANULARITY 1
    SETTINGS alter_sync = 2;

-- upstream 0037
ALTER TABLE scores {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_created_at created_at TYPE minmax GRANULARITY 1
    SETTINGS alter_sync = 2;

-- upstream 0047 (indexes)
ALTER TABLE scores {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_evaluator_id evaluator_id TYPE bloom_filter(0.001) GRANULARITY 1
    SETTINGS alter_sync = 2;

ALTER TABLE scores {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_evaluation_rule_id evaluation_rule_id TYPE bloom_filter(0.001) GRANULARITY 1
    SETTINGS alter_sync = 2;

-- upstream 0050 (the old idx_project_trace_observation is left in place, see header)
ALTER TABLE scores {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_project_trace_observation_v2 (project_id, trace_id, observation_id) TYPE bloom_filter(0.001) GRANULARITY 2
    SETTINGS alter_sync = 2;

-- upstream 0048: metadata-only, existing parts are not rewritten
ALTER TABLE scores {ON_CLUSTER}
    MODIFY SETTING enable_block_number_column = 1, enable_block_offset_column = 1
    SETTINGS alter_sync = 2;
