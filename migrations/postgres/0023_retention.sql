-- Retention enforcement (docs/retention.md): what the worker's retention job removed, per project
-- and target (a ClickHouse table, a blob folder, a PostgreSQL table), and its passes.
CREATE TABLE retention_progress (
    project_id          TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    -- 'clickhouse:<table>', 'blobs:<folder>', 'postgres:<table>'
    target              TEXT NOT NULL,
    last_run_at         TIMESTAMPTZ NOT NULL,
    -- rows or objects older than this were removed by the last run
    last_cutoff         TIMESTAMPTZ NOT NULL,
    last_removed        BIGINT NOT NULL DEFAULT 0,
    removed_total       BIGINT NOT NULL DEFAULT 0,
    -- whole month partitions dropped that held rows of this project
    partitions_dropped  BIGINT NOT NULL DEFAULT 0,
    -- the last run's error, cleared by a run that succeeds
    last_error          TEXT,
    PRIMARY KEY (project_id, target)
);

-- One row: the job's passes over every project (the lease that keeps it to one worker is in
-- migration_leases, name 'retention').
CREATE TABLE retention_passes (
    name         TEXT PRIMARY KEY,
    holder       TEXT NOT NULL,
    started_at   TIMESTAMPTZ NOT NULL,
    finished_at  TIMESTAMPTZ,
    -- units that failed in the last finished pass
    errors       INTEGER NOT NULL DEFAULT 0
);
