-- Datasets (reference/public-api.md §4.9): datasets, their items with every past version, runs and
-- run items. Every key starts with project_id and every foreign key carries it, so a row can never
-- point into another project. Item versions start at millisecond precision (the API's), so a
-- `version` a client read back from `updatedAt` selects exactly the version it names.

CREATE TABLE datasets (
    project_id              TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    id                      TEXT NOT NULL,
    name                    TEXT NOT NULL,
    description             TEXT,
    metadata                JSONB,
    input_schema            JSONB,
    expected_output_schema  JSONB,
    created_at              TIMESTAMPTZ NOT NULL,
    updated_at              TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (project_id, id),
    UNIQUE (project_id, name)
);
CREATE INDEX datasets_listing_idx ON datasets (project_id, created_at DESC, id);

-- One row per version of an item. A write closes the current version (`valid_to`) and adds the next
-- one, so "the items at time T" is the versions with valid_from <= T < valid_to. A deletion is a
-- version too (`is_deleted`), which keeps what the item was before it for `version` reads.
CREATE TABLE dataset_item_versions (
    project_id             TEXT NOT NULL,
    id                     TEXT NOT NULL,
    dataset_id             TEXT NOT NULL,
    status                 TEXT NOT NULL CHECK (status IN ('ACTIVE', 'ARCHIVED')),
    input                  JSONB,
    expected_output        JSONB,
    metadata               JSONB,
    source_trace_id        TEXT,
    source_observation_id  TEXT,
    -- when the item was first written (kept by every later version)
    created_at             TIMESTAMPTZ NOT NULL,
    valid_from             TIMESTAMPTZ NOT NULL,
    -- NULL while this is the current version
    valid_to               TIMESTAMPTZ,
    is_deleted             BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (project_id, id, valid_from),
    FOREIGN KEY (project_id, dataset_id) REFERENCES datasets (project_id, id) ON DELETE CASCADE,
    CHECK (valid_to IS NULL OR valid_to > valid_from)
);
-- At most one current version per item id in a project: ids are unique across datasets.
CREATE UNIQUE INDEX dataset_item_versions_current_idx ON dataset_item_versions (project_id, id)
    WHERE valid_to IS NULL;
CREATE INDEX dataset_item_versions_dataset_idx ON dataset_item_versions (project_id, dataset_id, valid_from);
CREATE INDEX dataset_item_versions_source_trace_idx ON dataset_item_versions (project_id, source_trace_id)
    WHERE source_trace_id IS NOT NULL;
CREATE INDEX dataset_item_versions_source_observation_idx
    ON dataset_item_versions (project_id, source_observation_id) WHERE source_observation_id IS NOT NULL;

CREATE TABLE dataset_runs (
    project_id   TEXT NOT NULL,
    id           TEXT NOT NULL,
    dataset_id   TEXT NOT NULL,
    name         TEXT NOT NULL,
    description  TEXT,
    metadata     JSONB NOT NULL DEFAULT '{}'::jsonb,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (project_id, id),
    UNIQUE (project_id, dataset_id, name),
    FOREIGN KEY (project_id, dataset_id) REFERENCES datasets (project_id, id) ON DELETE CASCADE
);
CREATE INDEX dataset_runs_listing_idx ON dataset_runs (project_id, dataset_id, created_at DESC, id);

-- A run item links one dataset item version to the trace (and optionally the observation) that ran
-- it. The same rows go to ClickHouse `dataset_run_items_rmt`, which the v4 backfill (M4) reads.
CREATE TABLE dataset_run_items (
    project_id            TEXT NOT NULL,
    id                    TEXT NOT NULL,
    dataset_run_id        TEXT NOT NULL,
    dataset_item_id       TEXT NOT NULL,
    -- valid_from of the item version the run used
    dataset_item_version  TIMESTAMPTZ NOT NULL,
    trace_id              TEXT NOT NULL,
    observation_id        TEXT,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (project_id, id),
    FOREIGN KEY (project_id, dataset_run_id) REFERENCES dataset_runs (project_id, id) ON DELETE CASCADE
);
CREATE INDEX dataset_run_items_run_idx ON dataset_run_items (project_id, dataset_run_id, created_at DESC, id);
