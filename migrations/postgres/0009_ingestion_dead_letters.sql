-- Payloads the worker could not store (spec: nothing acknowledged is lost, nothing blocks others):
-- the payload itself stays in blob storage under blob_key; this row says whose it is, why it
-- failed, and whether an operator replayed it. Written by the worker, listed and replayed through
-- the admin API (`/api/admin/ingestion/dead-letters`).
CREATE TABLE ingestion_dead_letters (
    id            TEXT PRIMARY KEY,
    -- NULL only for a queue entry whose job could not even be read (no project to name)
    project_id    TEXT,
    -- the queue entry it came from: stream and id, for the logs
    entry         TEXT NOT NULL,
    payload_kind  TEXT,
    blob_key      TEXT,
    -- the job as queued (JSON), replayed as is; the raw entry text when it was unreadable
    job           TEXT NOT NULL,
    -- 'unreadable' (no job), 'undecodable' (payload cannot be read or converted),
    -- 'rejected' (a store refused the rows), 'retry_budget' (transient failures past the budget)
    reason_class  TEXT NOT NULL,
    reason        TEXT NOT NULL,
    attempts      INTEGER NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    replayed_at   TIMESTAMPTZ
);

CREATE INDEX ingestion_dead_letters_open ON ingestion_dead_letters (created_at) WHERE replayed_at IS NULL;
CREATE INDEX ingestion_dead_letters_project ON ingestion_dead_letters (project_id, created_at);
