//! Prompts (every version, labels, tags, config) and datasets with their item versions, runs and
//! run items: the versioned content of a project, kept apart from the rest (`content.rs`).

use super::{NO_PROJECT, Table};

pub const TABLES: &[Table] = &[
    Table {
        target: "prompts",
        sources: &["prompts"],
        select: |_| {
            "SELECT p.id, p.project_id, p.name, p.version, p.type, p.prompt, p.config::jsonb AS config, \
             p.labels, p.tags, p.commit_message, p.created_by, p.created_at, p.updated_at \
             FROM prompts p ORDER BY p.id"
                .to_owned()
        },
        columns: &[
            "id",
            "project_id",
            "name",
            "version",
            "type",
            "prompt",
            "config",
            "labels",
            "tags",
            "commit_message",
            "created_by",
            "created_at",
            "updated_at",
        ],
        conflict: "(id)",
        insert_only: &[],
        label: "s.name || ' v' || s.version",
        skips: &[
            NO_PROJECT,
            ("s.type NOT IN ('text', 'chat')", "a prompt type Loupe does not know"),
            ("s.version < 1", "a version below 1"),
            (
                "EXISTS (SELECT 1 FROM prompts t WHERE t.project_id = s.project_id AND t.name = s.name \
                 AND t.version = s.version AND t.id <> s.id)",
                "Loupe already has this name and version under another id",
            ),
        ],
    },
    Table {
        target: "datasets",
        sources: &["datasets"],
        select: |schema| {
            format!(
                "SELECT d.project_id, d.id, d.name, d.description, d.metadata, {input}::jsonb AS input_schema, \
                 {expected}::jsonb AS expected_output_schema, d.created_at, d.updated_at \
                 FROM datasets d ORDER BY d.project_id, d.id",
                input = schema.or("datasets", "d", "input_schema", "NULL"),
                expected = schema.or("datasets", "d", "expected_output_schema", "NULL"),
            )
        },
        columns: &[
            "project_id",
            "id",
            "name",
            "description",
            "metadata",
            "input_schema",
            "expected_output_schema",
            "created_at",
            "updated_at",
        ],
        conflict: "(project_id, id)",
        insert_only: &[],
        label: "s.name",
        skips: &[
            NO_PROJECT,
            (
                "EXISTS (SELECT 1 FROM datasets t WHERE t.project_id = s.project_id AND t.name = s.name AND t.id <> s.id)",
                "Loupe already has a dataset of this name under another id",
            ),
        ],
    },
    Table {
        target: "dataset_item_versions",
        sources: &["dataset_items"],
        // Since late 2025 v3 keeps every version of an item (valid_from/valid_to/is_deleted), as
        // Loupe does; before, an item is one row, imported as its one version.
        select: |schema| {
            let versioned = schema.has("dataset_items", "valid_from");
            let (from, to, deleted) = if versioned {
                ("i.valid_from", "i.valid_to", "i.is_deleted")
            } else {
                ("i.created_at", "NULL::timestamp", "false")
            };
            format!(
                "SELECT i.project_id, i.id, i.dataset_id, COALESCE(i.status::text, 'ACTIVE') AS status, i.input, \
                 i.expected_output, i.metadata, i.source_trace_id, i.source_observation_id, i.created_at, \
                 {from} AS valid_from, {to} AS valid_to, {deleted} AS is_deleted \
                 FROM dataset_items i ORDER BY i.project_id, i.id, {from}"
            )
        },
        columns: &[
            "project_id",
            "id",
            "dataset_id",
            "status",
            "input",
            "expected_output",
            "metadata",
            "source_trace_id",
            "source_observation_id",
            "created_at",
            "valid_from",
            "valid_to",
            "is_deleted",
        ],
        conflict: "(project_id, id, valid_from)",
        insert_only: &[],
        label: "s.id",
        skips: &[
            (
                "NOT EXISTS (SELECT 1 FROM datasets d WHERE d.project_id = s.project_id AND d.id = s.dataset_id)",
                "its dataset is not imported",
            ),
            ("s.valid_to IS NOT NULL AND s.valid_to <= s.valid_from", "a version that ends before it starts"),
            // Loupe wrote a newer version since the last import (one this page does not close).
            (
                "s.valid_to IS NULL AND EXISTS (SELECT 1 FROM dataset_item_versions t WHERE t.project_id = s.project_id \
                 AND t.id = s.id AND t.valid_to IS NULL AND t.valid_from <> s.valid_from AND NOT EXISTS (SELECT 1 \
                 FROM s o WHERE o.project_id = t.project_id AND o.id = t.id AND o.valid_from = t.valid_from \
                 AND o.valid_to IS NOT NULL))",
                "Loupe has a newer version of this item",
            ),
        ],
    },
    Table {
        target: "dataset_runs",
        sources: &["dataset_runs"],
        select: |_| {
            "SELECT r.project_id, r.id, r.dataset_id, r.name, r.description, COALESCE(r.metadata, '{}') AS metadata, \
             r.created_at, r.updated_at FROM dataset_runs r ORDER BY r.project_id, r.id"
                .to_owned()
        },
        columns: &[
            "project_id",
            "id",
            "dataset_id",
            "name",
            "description",
            "metadata",
            "created_at",
            "updated_at",
        ],
        conflict: "(project_id, id)",
        insert_only: &[],
        label: "s.name",
        skips: &[
            (
                "NOT EXISTS (SELECT 1 FROM datasets d WHERE d.project_id = s.project_id AND d.id = s.dataset_id)",
                "its dataset is not imported",
            ),
            (
                "EXISTS (SELECT 1 FROM dataset_runs t WHERE t.project_id = s.project_id \
                 AND t.dataset_id = s.dataset_id AND t.name = s.name AND t.id <> s.id)",
                "Loupe already has a run of this name under another id",
            ),
        ],
    },
    Table {
        target: "dataset_run_items",
        sources: &["dataset_run_items", "dataset_items"],
        // Loupe records which version of the item a run used: the one valid when the run item was
        // written (else the item's first).
        select: |schema| {
            let from =
                if schema.has("dataset_items", "valid_from") { "i.valid_from" } else { "i.created_at" };
            format!(
                "SELECT ri.project_id, ri.id, ri.dataset_run_id, ri.dataset_item_id, \
                 COALESCE((SELECT max({from}) FROM dataset_items i WHERE i.project_id = ri.project_id \
                   AND i.id = ri.dataset_item_id AND {from} <= ri.created_at), \
                  (SELECT min({from}) FROM dataset_items i WHERE i.project_id = ri.project_id \
                   AND i.id = ri.dataset_item_id)) AS dataset_item_version, \
                 ri.trace_id, ri.observation_id, ri.created_at, ri.updated_at \
                 FROM dataset_run_items ri ORDER BY ri.project_id, ri.id"
            )
        },
        columns: &[
            "project_id",
            "id",
            "dataset_run_id",
            "dataset_item_id",
            "dataset_item_version",
            "trace_id",
            "observation_id",
            "created_at",
            "updated_at",
        ],
        conflict: "(project_id, id)",
        insert_only: &[],
        label: "s.id",
        skips: &[
            (
                "NOT EXISTS (SELECT 1 FROM dataset_runs r WHERE r.project_id = s.project_id AND r.id = s.dataset_run_id)",
                "its run is not imported",
            ),
            ("s.dataset_item_version IS NULL", "its dataset item no longer exists"),
        ],
    },
];
