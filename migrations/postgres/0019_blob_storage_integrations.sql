-- Scheduled exports to a customer's bucket (crates/exports, docs/exports.md): at most one per
-- project, as Langfuse keys it, so the API's `id` is the project id. The secret is stored encrypted
-- under ENCRYPTION_KEY (domain::secrets, `iv:ciphertext:tag`) and never answered.
CREATE TABLE blob_storage_integrations (
    project_id           TEXT PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    type                 TEXT NOT NULL,
    bucket_name          TEXT NOT NULL,
    endpoint             TEXT,
    region               TEXT NOT NULL,
    access_key_id        TEXT,
    secret_access_key    TEXT,
    prefix               TEXT NOT NULL DEFAULT '',
    export_frequency     TEXT NOT NULL,
    enabled              BOOLEAN NOT NULL,
    force_path_style     BOOLEAN NOT NULL DEFAULT false,
    file_type            TEXT NOT NULL,
    export_mode          TEXT NOT NULL,
    export_start_date    TIMESTAMPTZ,
    compressed           BOOLEAN NOT NULL DEFAULT true,
    export_source        TEXT NOT NULL,
    export_field_groups  TEXT[] NOT NULL,
    -- Where exporting starts (from the mode: the epoch, the day it was enabled, or the custom date).
    start_at             TIMESTAMPTZ NOT NULL,
    -- End of the last window whose objects were all uploaded (exclusive); NULL before the first.
    last_sync_at         TIMESTAMPTZ,
    -- The end of the window being exported, written before its upload starts, so a run resumed
    -- after a crash writes the same window under the same object names.
    pending_window_end   TIMESTAMPTZ,
    next_sync_at         TIMESTAMPTZ,
    last_error           TEXT,
    last_error_at        TIMESTAMPTZ,
    -- The worker that holds the integration while it exports, and until when (a crashed worker's
    -- lease runs out and another takes the window over).
    lease_holder         TEXT,
    lease_until          TIMESTAMPTZ,
    created_at           TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at           TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX blob_storage_integrations_due_idx ON blob_storage_integrations (next_sync_at) WHERE enabled;
