-- Organizations own projects; projects own API keys. Only a hash of each secret key is stored.
CREATE TABLE organizations (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE projects (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    retention_days  INTEGER CHECK (retention_days IS NULL OR retention_days > 0),
    metadata        JSONB NOT NULL DEFAULT '{}'::jsonb,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    deleted_at      TIMESTAMPTZ
);
CREATE INDEX projects_org_id_idx ON projects (org_id);

CREATE TABLE api_keys (
    id                  UUID PRIMARY KEY,
    project_id          TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    public_key          TEXT NOT NULL UNIQUE,
    -- hex SHA-256 of SALT || 0x00 || secret (domain::auth::hash_secret)
    hashed_secret_key   TEXT NOT NULL,
    -- what a UI may show: the prefix and last characters only
    display_secret_key  TEXT NOT NULL,
    note                TEXT,
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_used_at        TIMESTAMPTZ
);
CREATE INDEX api_keys_project_id_idx ON api_keys (project_id);

-- State of long-running background migrations (the v3 -> v4 historic backfill steps).
-- One row per step; `state` holds the step's resumable cursor.
CREATE TABLE background_migrations (
    name            TEXT PRIMARY KEY,
    position        INTEGER NOT NULL UNIQUE,
    description     TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'skipped')),
    state           JSONB NOT NULL DEFAULT '{}'::jsonb,
    rows_done       BIGINT NOT NULL DEFAULT 0,
    rows_estimated  BIGINT,
    started_at      TIMESTAMPTZ,
    finished_at     TIMESTAMPTZ,
    last_error      TEXT,
    worker_id       TEXT,
    lease_until     TIMESTAMPTZ,
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
