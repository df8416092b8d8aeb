-- Evaluators (how to score), evaluation rules (which observations to score), and the executions
-- the worker runs for them (docs/evaluators.md).

-- An evaluator: its name and state; its definition lives in versions.
CREATE TABLE evaluators (
    id             TEXT PRIMARY KEY,
    project_id     TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    description    TEXT,
    -- 'llm_as_judge' or 'code'; never changes
    kind           TEXT NOT NULL CHECK (kind IN ('llm_as_judge', 'code')),
    created_by     TEXT,
    paused_at      TIMESTAMPTZ,
    paused_reason  TEXT,
    paused_message TEXT,
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX evaluators_project_created_idx ON evaluators (project_id, created_at DESC, id DESC);

-- Every definition an evaluator had; the newest is the one rules use. `definition` is the flat
-- definition as the API takes it (prompt as messages, modelConfig, variableMapping,
-- outputDefinition), validated before it is stored.
CREATE TABLE evaluator_versions (
    id           TEXT PRIMARY KEY,
    evaluator_id TEXT NOT NULL REFERENCES evaluators (id) ON DELETE CASCADE,
    version      INTEGER NOT NULL,
    definition   JSONB NOT NULL,
    created_by   TEXT,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (evaluator_id, version)
);

-- A rule: a filter over a project's observations (or, for the v3 kinds, its traces or dataset run
-- items), a sampling rate and a delay. `enabled_at` is when live execution last started: only
-- observations accepted after it are "new" to the rule.
CREATE TABLE evaluation_rules (
    id            TEXT PRIMARY KEY,
    project_id    TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    target        TEXT NOT NULL DEFAULT 'observation' CHECK (target IN ('observation', 'trace', 'dataset')),
    enabled       BOOLEAN NOT NULL,
    enabled_at    TIMESTAMPTZ,
    sampling      DOUBLE PRECISION NOT NULL CHECK (sampling >= 0 AND sampling <= 1),
    delay_seconds INTEGER NOT NULL DEFAULT 0 CHECK (delay_seconds >= 0),
    filter        JSONB NOT NULL DEFAULT '[]',
    created_by    TEXT,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX evaluation_rules_project_created_idx ON evaluation_rules (project_id, created_at DESC, id DESC);
CREATE INDEX evaluation_rules_enabled_idx ON evaluation_rules (project_id) WHERE enabled;

-- The evaluators a rule runs, in assignment order, each with an optional override of the
-- evaluator's default variable mapping.
CREATE TABLE evaluation_rule_evaluators (
    rule_id          TEXT NOT NULL REFERENCES evaluation_rules (id) ON DELETE CASCADE,
    evaluator_id     TEXT NOT NULL REFERENCES evaluators (id) ON DELETE CASCADE,
    position         INTEGER NOT NULL,
    variable_mapping JSONB,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (rule_id, evaluator_id)
);
CREATE INDEX evaluation_rule_evaluators_evaluator_idx ON evaluation_rule_evaluators (evaluator_id);

-- A run of a rule over a closed time range of existing observations, with its progress.
CREATE TABLE evaluation_runs (
    id           TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    rule_id      TEXT NOT NULL REFERENCES evaluation_rules (id) ON DELETE CASCADE,
    from_ts      TIMESTAMPTZ NOT NULL,
    to_ts        TIMESTAMPTZ NOT NULL,
    -- 'scanning' (matching observations), 'running' (executions outstanding), 'completed', 'failed'
    status       TEXT NOT NULL DEFAULT 'scanning',
    -- where the scan stands: the last (start_time, span_id) read
    cursor_time  TIMESTAMPTZ,
    cursor_id    TEXT,
    scanned      BIGINT NOT NULL DEFAULT 0,
    total        BIGINT,
    matched      BIGINT NOT NULL DEFAULT 0,
    error        TEXT,
    lease_owner  TEXT,
    lease_until  TIMESTAMPTZ,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at  TIMESTAMPTZ
);
CREATE INDEX evaluation_runs_open_idx ON evaluation_runs (status) WHERE status IN ('scanning', 'running');

-- One evaluator run on one object. Claimed by a worker with a lease (FOR UPDATE SKIP LOCKED); a
-- lease that runs out (a worker died) makes the execution claimable again.
CREATE TABLE evaluation_executions (
    id                   TEXT PRIMARY KEY,
    project_id           TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    rule_id              TEXT,
    evaluator_id         TEXT,
    run_id               TEXT,
    -- 'observation' or 'trace'
    object_kind          TEXT NOT NULL DEFAULT 'observation',
    trace_id             TEXT NOT NULL,
    observation_id       TEXT NOT NULL,
    -- the object's start time, so the object is found by its sorting key
    object_start         TIMESTAMPTZ NOT NULL,
    status               TEXT NOT NULL DEFAULT 'pending'
                         CHECK (status IN ('pending', 'running', 'completed', 'error', 'cancelled')),
    attempts             INTEGER NOT NULL DEFAULT 0,
    not_before           TIMESTAMPTZ NOT NULL DEFAULT now(),
    lease_owner          TEXT,
    lease_until          TIMESTAMPTZ,
    error                TEXT,
    evaluator_version_id TEXT,
    score_id             TEXT,
    execution_trace_id   TEXT,
    created_at           TIMESTAMPTZ NOT NULL DEFAULT now(),
    started_at           TIMESTAMPTZ,
    finished_at          TIMESTAMPTZ,
    -- an object is evaluated once per rule and evaluator, whether live or by a run
    UNIQUE (rule_id, evaluator_id, object_kind, observation_id)
);
CREATE INDEX evaluation_executions_due_idx ON evaluation_executions (project_id, not_before)
    WHERE status IN ('pending', 'running');
CREATE INDEX evaluation_executions_run_idx ON evaluation_executions (run_id, status) WHERE run_id IS NOT NULL;
CREATE INDEX evaluation_executions_rule_idx ON evaluation_executions (rule_id, created_at DESC);

-- How far the live follower has read each project's new observations: the last
-- (accepted-at, span id) handed to the rules.
CREATE TABLE evaluation_cursors (
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    target      TEXT NOT NULL,
    cursor_time TIMESTAMPTZ NOT NULL,
    cursor_id   TEXT NOT NULL DEFAULT '',
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, target)
);
