-- What the web UI keeps per person and per project (storage::people_settings, storage::saved_views).

-- Instance admins see the background migrations page and may mark other people as admins; the user
-- created from LANGFUSE_INIT_USER_* is one.
ALTER TABLE users ADD COLUMN instance_admin BOOLEAN NOT NULL DEFAULT false;
-- The person's UI choices: {"v4Preview": bool, "lastProjectId": text}. Unknown keys are never written.
ALTER TABLE users ADD COLUMN preferences JSONB NOT NULL DEFAULT '{}';

-- Named Observations views of a project (filters, columns, order, search), shared by its members.
CREATE TABLE saved_views (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    -- The view as the UI stores it; opaque to the server, bounded by the route (64 KiB).
    state       JSONB NOT NULL,
    created_by  TEXT REFERENCES users (id) ON DELETE SET NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX saved_views_name_idx ON saved_views (project_id, lower(name));
