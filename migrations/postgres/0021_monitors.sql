-- Monitors (`/api/public/monitors`; crates/monitors, docs/monitors.md): a Metrics query, a window,
-- a comparison and threshold, evaluated by the worker every `interval_seconds`; each change of state
-- notifies the monitor's channels through an outbox the worker delivers with retries.

CREATE TABLE monitors (
    id               TEXT PRIMARY KEY,
    project_id       TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name             TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    -- {view, measure, aggregation, filters}: checked by the metrics compiler on save.
    query            JSONB NOT NULL,
    window_seconds   INTEGER NOT NULL,
    comparison       TEXT NOT NULL,
    threshold        DOUBLE PRECISION NOT NULL,
    interval_seconds INTEGER NOT NULL,
    -- Each channel's public settings beside its secret, encrypted under ENCRYPTION_KEY
    -- (`domain::secrets`): [{type, url?, owner?, repo?, eventType?, secret, display}].
    channels         JSONB NOT NULL DEFAULT '[]',
    state            TEXT NOT NULL DEFAULT 'OK',
    muted            BOOLEAN NOT NULL DEFAULT false,
    last_value       DOUBLE PRECISION,
    last_evaluated_at TIMESTAMPTZ,
    -- When the worker evaluates it next: persisted, so a restarted worker picks up where it was.
    next_due_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- A worker's claim on the monitor while it evaluates it; another worker skips it until then.
    claimed_until    TIMESTAMPTZ,
    created_by       TEXT,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX monitors_project_idx ON monitors (project_id, created_at DESC);
CREATE INDEX monitors_due_idx ON monitors (next_due_at);

-- Every evaluation: the value the query gave (NULL: no data), the state after it, and whether it
-- changed the state (a transition, which is what notifies).
CREATE TABLE monitor_evaluations (
    id           BIGSERIAL PRIMARY KEY,
    monitor_id   TEXT NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    evaluated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    window_from  TIMESTAMPTZ NOT NULL,
    window_to    TIMESTAMPTZ NOT NULL,
    value        DOUBLE PRECISION,
    state        TEXT NOT NULL,
    transition   BOOLEAN NOT NULL DEFAULT false,
    muted        BOOLEAN NOT NULL DEFAULT false,
    error        TEXT
);
CREATE INDEX monitor_evaluations_monitor_idx ON monitor_evaluations (monitor_id, id DESC);

-- One notification per transition and channel (the outbox): its exact body, and its delivery
-- status; `next_attempt_at` schedules the retries, `claimed_until` keeps two workers apart.
CREATE TABLE monitor_notifications (
    id              TEXT PRIMARY KEY,
    monitor_id      TEXT NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    evaluation_id   BIGINT NOT NULL REFERENCES monitor_evaluations (id) ON DELETE CASCADE,
    channel_index   INTEGER NOT NULL,
    channel_type    TEXT NOT NULL,
    -- The channel as it was when the notification was made (secret still encrypted), so editing
    -- the monitor's channels later does not redirect a notification being retried.
    channel         JSONB NOT NULL,
    transition      TEXT NOT NULL,
    body            TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending',
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    claimed_until   TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX monitor_notifications_monitor_idx ON monitor_notifications (monitor_id, created_at DESC);
CREATE INDEX monitor_notifications_pending_idx ON monitor_notifications (next_attempt_at)
    WHERE status = 'pending';

-- Every delivery attempt of a notification: the receiver's status code, or the error.
CREATE TABLE monitor_deliveries (
    id              BIGSERIAL PRIMARY KEY,
    notification_id TEXT NOT NULL REFERENCES monitor_notifications (id) ON DELETE CASCADE,
    attempt         INTEGER NOT NULL,
    attempted_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    status_code     INTEGER,
    error           TEXT,
    duration_ms     INTEGER NOT NULL
);
CREATE INDEX monitor_deliveries_notification_idx ON monitor_deliveries (notification_id, attempt);
