-- Secrets a deployment generates for itself, once (storage::instance_secrets): the first instance
-- that asks inserts a random value, every other web and worker replica reads that row. The media
-- URL signing key lives here, so web's media URLs cannot be forged from a default `SALT`.
CREATE TABLE instance_secrets (
    name        TEXT PRIMARY KEY,
    value       BYTEA NOT NULL CHECK (octet_length(value) >= 32),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
