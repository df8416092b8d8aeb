-- The v3 -> v4 migration machinery (issue 5): the historic backfill steps, the leases that keep
-- each job to one worker at a time, and the dual-write propagation cursor.

-- The five steps of spec §3.3, in order. Names follow upstream's rows so operators recognise them.
INSERT INTO background_migrations (name, position, description) VALUES
    ('20260701_v4_step_1_create_root_spans_from_traces', 1,
     'Create a virtual root span (t-<trace id>) in events_full for every v3 trace'),
    ('20260701_v4_step_2_rewrite_observations_to_pid_tid_sorting', 2,
     'Copy v3 observations into the scratch table observations_pid_tid_sorting, sorted by project, trace, id'),
    ('20260701_v4_step_3_backfill_events_full_from_observations', 3,
     'Write every observation into events_full with its trace''s attributes (trace metadata not copied)'),
    ('20260701_v4_step_4_backfill_events_full_from_dataset_run_items', 4,
     'Write experiment traces into events_full with experiment fields on each run item''s span tree'),
    ('20260701_v4_step_5_drop_pid_tid_sorting_tables', 5,
     'Drop the scratch table (only with LANGFUSE_BACKGROUND_MIGRATION_V4_DROP_PID_TID_SORTING_TABLES=true)')
ON CONFLICT (name) DO NOTHING;

-- A lease per singleton job ('event-propagation', 'historic-backfill'): whoever holds an unexpired
-- lease runs the job; a crashed holder's lease simply runs out.
CREATE TABLE migration_leases (
    name         TEXT PRIMARY KEY,
    holder       TEXT NOT NULL,
    lease_until  TIMESTAMPTZ NOT NULL,
    acquired_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The dual-write propagation job's durable progress (a single row).
CREATE TABLE event_propagation (
    id                       BOOLEAN PRIMARY KEY DEFAULT true CHECK (id),
    -- start of the last staging partition copied into events_full
    last_partition           TIMESTAMPTZ,
    last_run_started_at      TIMESTAMPTZ,
    last_success_at          TIMESTAMPTZ,
    rows_propagated          BIGINT NOT NULL DEFAULT 0,
    partitions_propagated    BIGINT NOT NULL DEFAULT 0,
    last_error               TEXT,
    updated_at               TIMESTAMPTZ NOT NULL DEFAULT now()
);
INSERT INTO event_propagation (id) VALUES (true);

-- When each write mode was first seen by a worker: cutover readiness option B (spec §9.4) needs to
-- know how long dual write has been running.
CREATE TABLE write_mode_history (
    write_mode     TEXT PRIMARY KEY,
    first_seen_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_seen_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
