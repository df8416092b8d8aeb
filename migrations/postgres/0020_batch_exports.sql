-- One-off exports of a filtered Observations view (crates/exports::batch, docs/exports.md): the
-- query as asked, the progress, and the object in Loupe's own bucket a download link points at.
CREATE TABLE batch_exports (
    id             TEXT PRIMARY KEY,
    project_id     TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    -- QUEUED, PROCESSING, COMPLETED, FAILED
    status         TEXT NOT NULL DEFAULT 'QUEUED',
    file_type      TEXT NOT NULL,
    compressed     BOOLEAN NOT NULL,
    query          JSONB NOT NULL,
    rows_exported  BIGINT NOT NULL DEFAULT 0,
    object_key     TEXT,
    error          TEXT,
    lease_holder   TEXT,
    lease_until    TIMESTAMPTZ,
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at    TIMESTAMPTZ
);
CREATE INDEX batch_exports_project_idx ON batch_exports (project_id, created_at DESC);
CREATE INDEX batch_exports_queued_idx ON batch_exports (created_at) WHERE status IN ('QUEUED', 'PROCESSING');
