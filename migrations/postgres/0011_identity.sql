-- Identity: people, their memberships and roles, organization-scoped API keys, sign-in sessions,
-- the audit log of admin actions, and the background deletion of a deleted project's data.
-- Who may do what with a role is `domain::identity::permits` (docs/identity.md), not SQL.

-- Organizations carry free-form metadata, as Langfuse's admin API reads and writes it.
ALTER TABLE organizations ADD COLUMN metadata JSONB NOT NULL DEFAULT '{}'::jsonb;

CREATE TABLE users (
    id              TEXT PRIMARY KEY,
    email           TEXT NOT NULL,
    name            TEXT,
    -- argon2id PHC string; NULL for a user provisioned by SCIM who has not set a password
    password_hash   TEXT,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- One account per address, whatever its case.
CREATE UNIQUE INDEX users_email_idx ON users (lower(email));

CREATE TABLE organization_memberships (
    org_id      TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- NONE: in the organization (e.g. provisioned by SCIM) but with access to no project unless a
    -- project role grants it
    role        TEXT NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'MEMBER', 'VIEWER', 'NONE')),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, user_id)
);
CREATE INDEX organization_memberships_user_idx ON organization_memberships (user_id);

-- A project role overrides the organization role on that project; NONE takes access away. It
-- exists only beside an organization membership: removing that removes the project roles too.
CREATE TABLE project_memberships (
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    org_id      TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'MEMBER', 'VIEWER', 'NONE')),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, user_id),
    FOREIGN KEY (org_id, user_id) REFERENCES organization_memberships (org_id, user_id) ON DELETE CASCADE
);
CREATE INDEX project_memberships_member_idx ON project_memberships (org_id, user_id);

-- API keys are scoped to a project (as before) or to an organization (the admin routes).
ALTER TABLE api_keys
    ALTER COLUMN project_id DROP NOT NULL,
    ADD COLUMN org_id TEXT REFERENCES organizations (id) ON DELETE CASCADE,
    ADD COLUMN scope TEXT NOT NULL DEFAULT 'PROJECT' CHECK (scope IN ('PROJECT', 'ORGANIZATION')),
    ADD COLUMN expires_at TIMESTAMPTZ,
    ADD CONSTRAINT api_keys_scope_owner CHECK (
        (scope = 'PROJECT' AND project_id IS NOT NULL AND org_id IS NULL)
        OR (scope = 'ORGANIZATION' AND org_id IS NOT NULL AND project_id IS NULL)
    );
CREATE INDEX api_keys_org_id_idx ON api_keys (org_id) WHERE org_id IS NOT NULL;

-- Server-side sign-in sessions. The cookie carries a random token; only its SHA-256 is kept, so a
-- read of this table opens no session.
CREATE TABLE user_sessions (
    token_hash    TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- the CSRF token the UI echoes in a header on every state change (double submit, bound here)
    csrf_token    TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at    TIMESTAMPTZ NOT NULL,
    last_seen_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX user_sessions_user_idx ON user_sessions (user_id);
-- Expired sessions are swept on sign-in.
CREATE INDEX user_sessions_expires_idx ON user_sessions (expires_at);

-- Every admin action (keys, members, roles, projects), listed for an organization's owners. No
-- foreign keys: the record outlives what it names.
CREATE TABLE audit_log (
    id           UUID PRIMARY KEY,
    org_id       TEXT NOT NULL,
    project_id   TEXT,
    -- USER (a signed-in person), ORGANIZATION_API_KEY, ADMIN_API_KEY (the instance admin), SYSTEM
    actor_type   TEXT NOT NULL,
    actor_id     TEXT NOT NULL,
    action       TEXT NOT NULL,
    target_type  TEXT NOT NULL,
    target_id    TEXT NOT NULL,
    -- what changed, e.g. {"role": "ADMIN"}; never a secret
    details      JSONB NOT NULL DEFAULT '{}'::jsonb,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_org_idx ON audit_log (org_id, created_at DESC, id DESC);

-- A deleted project's rows are gone from PostgreSQL at once (ON DELETE CASCADE); its ClickHouse
-- rows and blobs are removed by the worker, step by step, recorded here.
CREATE TABLE project_deletions (
    project_id    TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL,
    status        TEXT NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
    steps_done    TEXT[] NOT NULL DEFAULT '{}',
    steps_total   INTEGER NOT NULL DEFAULT 0,
    blobs_deleted BIGINT NOT NULL DEFAULT 0,
    attempts      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT,
    requested_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at   TIMESTAMPTZ
);
