-- Annotation queues: a project's lists of traces, observations and sessions for people to score
-- with the queue's score configs, one item at a time.
CREATE TABLE annotation_queues (
    id               TEXT PRIMARY KEY,
    project_id       TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name             TEXT NOT NULL,
    description      TEXT,
    -- ids of score configs of the same project (checked on create; configs are archived, never
    -- deleted, so the ids keep naming something)
    score_config_ids TEXT[] NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (project_id, name)
);
CREATE INDEX annotation_queues_project_created_idx ON annotation_queues (project_id, created_at);

-- One object to annotate. The object is named by id only (traces, observations and sessions live
-- in ClickHouse); `trace_id` is the trace it belongs to, looked up when the item is added, so the
-- work view can open it. `locked_by_user_id`/`locked_at` say who is working on it now (a lock older
-- than a few minutes is free again); `completed_by_user_id` counts toward that person's progress.
CREATE TABLE annotation_queue_items (
    id                   TEXT PRIMARY KEY,
    project_id           TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    queue_id             TEXT NOT NULL REFERENCES annotation_queues (id) ON DELETE CASCADE,
    object_type          TEXT NOT NULL CHECK (object_type IN ('TRACE', 'OBSERVATION', 'SESSION')),
    object_id            TEXT NOT NULL,
    trace_id             TEXT,
    status               TEXT NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'COMPLETED')),
    completed_at         TIMESTAMPTZ,
    completed_by_user_id TEXT,
    locked_by_user_id    TEXT,
    locked_at            TIMESTAMPTZ,
    created_at           TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at           TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (queue_id, object_type, object_id)
);
-- The list pages a queue's items oldest first (the work order), optionally by status.
CREATE INDEX annotation_queue_items_queue_idx ON annotation_queue_items (queue_id, status, created_at, id);

-- Who is assigned to a queue (the SDK's assignments); a person removed from the project keeps no
-- access through it: every request checks the project role first.
CREATE TABLE annotation_queue_assignments (
    queue_id    TEXT NOT NULL REFERENCES annotation_queues (id) ON DELETE CASCADE,
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (queue_id, user_id)
);
