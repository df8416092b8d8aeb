-- LLM connections (resources::llm_connections, /api/public/llm-connections): how a project's
-- evaluators reach an LLM provider. Langfuse's table and column meanings, so its rows carry over.
-- `secret_key` and `extra_headers` are encrypted with ENCRYPTION_KEY (domain::secrets: the
-- `iv:ciphertext:tag` hex form); only `display_secret_key` and the header names are ever shown.
CREATE TABLE llm_api_keys (
    id                  TEXT PRIMARY KEY,
    project_id          TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    -- The connection's name, unique in the project: the upsert key and what evaluators name.
    provider            TEXT NOT NULL,
    adapter             TEXT NOT NULL,
    secret_key          TEXT NOT NULL,
    display_secret_key  TEXT NOT NULL,
    base_url            TEXT,
    custom_models       TEXT[] NOT NULL DEFAULT '{}',
    with_default_models BOOLEAN NOT NULL DEFAULT TRUE,
    -- The headers as an encrypted JSON object, and their names in clear for the API to show.
    extra_headers       TEXT,
    extra_header_keys   TEXT[] NOT NULL DEFAULT '{}',
    config              JSONB,
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (project_id, provider)
);
CREATE INDEX llm_api_keys_project_created_idx ON llm_api_keys (project_id, created_at DESC);
