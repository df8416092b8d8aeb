-- 0001_traces: v3 table `traces` (Langfuse v3 legacy trace table).
-- Source: /work/shared/reference/storage.md section 1.1.
--
-- Creates the table with the CURRENT v3 column set, in the column order a real
-- Langfuse v3 table has after all upstream ALTERs (environment right after
-- project_id), and with all current skip indexes.
-- If the table already exists (a real v3 database created by Langfuse) the CREATE is
-- skipped and the additive ALTERs below bring an older revision up to date:
--   environment column (upstream 0008), idx_session_id (0005), idx_user_id (0006),
--   idx_created_at (0037).
--
-- Deviations from upstream:
-- * Indexes added to an existing table are NOT materialized (upstream ran
--   MATERIALIZE INDEX for idx_session_id, idx_user_id, idx_created_at). Materializing is a
--   mutation that rewrites every part, which these migrations never do. Old parts are
--   simply not pruned by these indexes until they are merged. Results stay correct.
-- * ALTERs carry SETTINGS alter_sync = 2 unconditionally (upstream only when clustered).
--   Unclustered it is a no-op.

CREATE TABLE IF NOT EXISTS traces {ON_CLUSTER}
(
    `id` String,
    `timestamp` DateTime64(3),
    `name` String,
    `user_id` Nullable(String),
    `metadata` Map(LowCardinality(String), String),
    `release` Nullable(String),
    `version` Nullable(String),
    `project_id` String,
    `environment` LowCardinality(String) DEFAULT 'default',
    `public` Bool,
    `bookmarked` Bool,
    `tags` Array(String),
    `input` Nullable(String) CODEC(ZSTD(3)),
    `output` Nullable(String) CODEC(ZSTD(3)),
    `session_id` Nullable(String),
    `created_at` DateTime64(3) DEFAULT now(),
    `updated_at` DateTime64(3) DEFAULT now(),
    `event_ts` DateTime64(3),
    `is_deleted` UInt8,
    INDEX idx_id id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_res_metadata_key mapKeys(metadata) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_metadata_value mapValues(metadata) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_session_id session_id TYPE bloom_filter() GRANULARITY 1,
    INDEX idx_user_id user_id TYPE bloom_filter() GRANULARITY 1,
    INDEX idx_created_at created_at TYPE minmax GRANULARITY 1
)
ENGINE = {REPLICATED}ReplacingMergeTree(event_ts, is_deleted)
PARTITION BY toYYYYMM(timestamp)
PRIMARY KEY (project_id, toDate(timestamp))
ORDER BY (project_id, toDate(timestamp), id);

-- Upgrade path for tables created by an older Langfuse v3 revision.
ALTER TABLE traces {ON_CLUSTER}
    ADD COLUMN IF NOT EXISTS `environment` LowCardinality(String) DEFAULT 'default' AFTER project_id
    SETTINGS alter_sync = 2;

ALTER TABLE traces {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_session_id session_id TYPE bloom_filter() GRANULARITY 1
    SETTINGS alter_sync = 2;

ALTER TABLE traces {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_user_id user_id TYPE bloom_filter() GRANULARITY 1
    SETTINGS alter_sync = 2;

ALTER TABLE traces {ON_CLUSTER}
    ADD INDEX IF NOT EXISTS idx_created_at created_at TYPE minmax GRANULARITY 1
    SETTINGS alter_sync = 2;
