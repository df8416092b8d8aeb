-- Prompts (issue 7): one row per version. `labels` are unique per prompt name across its versions
-- (the resources crate moves a label when another version takes it); `latest` always sits on the
-- highest version. `tags` are shared by all versions of a name.
CREATE TABLE prompts (
    id              TEXT PRIMARY KEY,
    project_id      TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    version         INTEGER NOT NULL CHECK (version > 0),
    type            TEXT NOT NULL CHECK (type IN ('text', 'chat')),
    -- a JSON string for text prompts, an array of messages for chat prompts
    prompt          JSONB NOT NULL,
    config          JSONB NOT NULL DEFAULT '{}'::jsonb,
    labels          TEXT[] NOT NULL DEFAULT '{}',
    tags            TEXT[] NOT NULL DEFAULT '{}',
    commit_message  TEXT,
    created_by      TEXT NOT NULL DEFAULT 'API',
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (project_id, name, version)
);
CREATE INDEX prompts_labels_idx ON prompts USING GIN (labels);
CREATE INDEX prompts_project_updated_idx ON prompts (project_id, updated_at);
