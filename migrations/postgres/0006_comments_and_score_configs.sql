-- Comments: free text on a trace, observation, session or prompt of a project. The object is named
-- by id only, without a foreign key: traces, observations and sessions live in ClickHouse.
CREATE TABLE comments (
    id              TEXT PRIMARY KEY,
    project_id      TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    object_type     TEXT NOT NULL CHECK (object_type IN ('TRACE', 'OBSERVATION', 'SESSION', 'PROMPT')),
    object_id       TEXT NOT NULL,
    content         TEXT NOT NULL,
    author_user_id  TEXT,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- The list filters by object (the usual question: "the comments on this trace") and pages newest first.
CREATE INDEX comments_object_idx ON comments (project_id, object_type, object_id, created_at);
CREATE INDEX comments_project_created_idx ON comments (project_id, created_at);

-- Score configs: the schema a score that names one by `configId` must fit. `categories` holds
-- `[{"label", "value"}]` for CATEGORICAL and BOOLEAN configs (the server writes BOOLEAN's own).
-- Configs are archived, never deleted: scores keep pointing at them.
CREATE TABLE score_configs (
    id           TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    data_type    TEXT NOT NULL CHECK (data_type IN ('NUMERIC', 'CATEGORICAL', 'BOOLEAN', 'TEXT')),
    is_archived  BOOLEAN NOT NULL DEFAULT false,
    min_value    DOUBLE PRECISION,
    max_value    DOUBLE PRECISION,
    categories   JSONB,
    description  TEXT,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK (min_value IS NULL OR max_value IS NULL OR min_value <= max_value)
);
CREATE INDEX score_configs_project_created_idx ON score_configs (project_id, created_at);
