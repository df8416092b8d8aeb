-- Which clients each project's data comes from, for cutover readiness (spec §9.4: are all
-- producers on compatible SDKs?). Updated by the worker once per inserted batch.
CREATE TABLE sdk_usage (
    project_id         TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    -- as sent in x-langfuse-sdk-name, lowercased; 'unknown' for exporters that send none
    sdk_name           TEXT NOT NULL,
    sdk_version        TEXT NOT NULL,
    -- the highest x-langfuse-ingestion-version seen with this client (NULL: never sent)
    ingestion_version  INTEGER,
    first_seen_at      TIMESTAMPTZ NOT NULL,
    last_seen_at       TIMESTAMPTZ NOT NULL,
    -- payloads processed; approximate, since a payload re-processed after a crash counts twice
    payloads           BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, sdk_name, sdk_version)
);
