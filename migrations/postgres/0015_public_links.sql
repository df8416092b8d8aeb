-- Public links (resources::public_links): a trace or a session of a project that people without an
-- account may read at /public/{token}, until a member revokes it. The token is the credential (as a
-- presigned URL is): 32 random bytes, URL-safe base64, kept so members can copy the link again.
CREATE TABLE public_links (
    token       TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('trace', 'session')),
    -- The trace id or the session id; not a foreign key (they live in ClickHouse).
    target_id   TEXT NOT NULL,
    created_by  TEXT REFERENCES users (id) ON DELETE SET NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- Set when the link is turned off; a revoked token never opens again (a new toggle makes a new one).
    revoked_at  TIMESTAMPTZ
);
-- At most one live link per trace or session.
CREATE UNIQUE INDEX public_links_live_idx ON public_links (project_id, kind, target_id) WHERE revoked_at IS NULL;
