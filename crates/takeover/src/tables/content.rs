//! What a project holds: prompts, datasets, score configs, comments, models, media, annotation
//! queues and dashboards.

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
    Table {
        target: "score_configs",
        sources: &["score_configs"],
        select: |_| {
            "SELECT c.id, c.project_id, c.name, c.data_type::text AS data_type, c.is_archived, c.min_value, \
             c.max_value, c.categories, c.description, c.created_at, c.updated_at FROM score_configs c ORDER BY c.id"
                .to_owned()
        },
        columns: &[
            "id",
            "project_id",
            "name",
            "data_type",
            "is_archived",
            "min_value",
            "max_value",
            "categories",
            "description",
            "created_at",
            "updated_at",
        ],
        conflict: "(id)",
        insert_only: &[],
        label: "s.name",
        skips: &[NO_PROJECT, ("s.min_value > s.max_value", "its minimum is above its maximum")],
    },
    Table {
        target: "comments",
        sources: &["comments"],
        select: |_| {
            "SELECT c.id, c.project_id, c.object_type::text AS object_type, c.object_id, c.content, \
             c.author_user_id, c.created_at, c.updated_at FROM comments c ORDER BY c.id"
                .to_owned()
        },
        columns: &[
            "id",
            "project_id",
            "object_type",
            "object_id",
            "content",
            "author_user_id",
            "created_at",
            "updated_at",
        ],
        conflict: "(id)",
        insert_only: &[],
        label: "s.id",
        skips: &[NO_PROJECT],
    },
    Table {
        target: "models",
        sources: &["models"],
        // Custom models only (a project's own rows): the built-in ones are Loupe's. Prices come from
        // v3's `prices` rows (the default pricing tier's, where tiers exist), else from the model's
        // own price columns of the first v3 releases.
        select: |schema| {
            let tier = if schema.has("prices", "pricing_tier_id") && schema.has_table("pricing_tiers") {
                " AND pr.pricing_tier_id IN (SELECT t.id FROM pricing_tiers t WHERE t.model_id = m.id AND t.is_default)"
            } else {
                ""
            };
            let listed = if schema.has_table("prices") {
                format!(
                    "(SELECT jsonb_object_agg(pr.usage_type, pr.price) FROM prices pr WHERE pr.model_id = m.id{tier})"
                )
            } else {
                "NULL::jsonb".to_owned()
            };
            let column = |name: &str| schema.or("models", "m", name, "NULL::numeric");
            format!(
                "SELECT m.id, m.project_id, m.model_name, m.match_pattern, m.start_date, \
                 COALESCE(m.unit, 'TOKENS') AS unit, COALESCE({listed}, jsonb_strip_nulls(jsonb_build_object(\
                 'input', {input}, 'output', {output}, 'total', {total}))) AS prices, m.tokenizer_id, \
                 m.tokenizer_config::jsonb AS tokenizer_config, m.created_at, m.updated_at \
                 FROM models m WHERE m.project_id IS NOT NULL ORDER BY m.id",
                input = column("input_price"),
                output = column("output_price"),
                total = column("total_price"),
            )
        },
        columns: &[
            "id",
            "project_id",
            "model_name",
            "match_pattern",
            "start_date",
            "unit",
            "prices",
            "tokenizer_id",
            "tokenizer_config",
            "created_at",
            "updated_at",
        ],
        conflict: "(id)",
        insert_only: &[],
        label: "s.model_name",
        skips: &[
            NO_PROJECT,
            (
                "s.unit NOT IN ('CHARACTERS', 'TOKENS', 'MILLISECONDS', 'SECONDS', 'IMAGES', 'REQUESTS')",
                "a usage unit Loupe does not know",
            ),
        ],
    },
    Table {
        target: "media",
        sources: &["media"],
        // The blob key is v3's object key in its media bucket (docs/takeover.md: point Loupe's
        // blob storage at that bucket).
        select: |_| {
            "SELECT m.project_id, m.id, btrim(m.sha_256_hash) AS sha256_hash, m.content_type, m.content_length, \
             m.bucket_path AS blob_key, m.uploaded_at, m.upload_http_status, m.upload_http_error, m.created_at, \
             m.updated_at FROM media m ORDER BY m.project_id, m.id"
                .to_owned()
        },
        columns: &[
            "project_id",
            "id",
            "sha256_hash",
            "content_type",
            "content_length",
            "blob_key",
            "uploaded_at",
            "upload_http_status",
            "upload_http_error",
            "created_at",
            "updated_at",
        ],
        conflict: "(project_id, id)",
        insert_only: &[],
        label: "s.id",
        skips: &[NO_PROJECT, ("s.content_length < 1", "empty content")],
    },
    Table {
        target: "media_links",
        sources: &["trace_media", "observation_media"],
        select: |_| {
            "SELECT * FROM (SELECT tm.project_id, tm.media_id, tm.trace_id, '' AS observation_id, '' AS dataset_id, \
             '' AS dataset_item_id, tm.field, tm.created_at FROM trace_media tm \
             UNION ALL SELECT om.project_id, om.media_id, om.trace_id, om.observation_id, '', '', om.field, \
             om.created_at FROM observation_media om) l ORDER BY 1, 2, 3, 4, 7"
                .to_owned()
        },
        columns: &[
            "project_id",
            "media_id",
            "trace_id",
            "observation_id",
            "dataset_id",
            "dataset_item_id",
            "field",
            "created_at",
        ],
        conflict: "(project_id, media_id, trace_id, observation_id, dataset_item_id, field)",
        insert_only: &["created_at"],
        label: "s.media_id || ' ' || s.trace_id",
        skips: &[(
            "NOT EXISTS (SELECT 1 FROM media m WHERE m.project_id = s.project_id AND m.id = s.media_id)",
            "its media is not imported",
        )],
    },
    Table {
        target: "annotation_queues",
        sources: &["annotation_queues"],
        select: |_| {
            "SELECT q.id, q.project_id, q.name, q.description, q.score_config_ids, q.created_at, q.updated_at \
             FROM annotation_queues q ORDER BY q.id"
                .to_owned()
        },
        columns: &["id", "project_id", "name", "description", "score_config_ids", "created_at", "updated_at"],
        conflict: "(id)",
        insert_only: &[],
        label: "s.name",
        skips: &[
            NO_PROJECT,
            (
                "EXISTS (SELECT 1 FROM annotation_queues t WHERE t.project_id = s.project_id AND t.name = s.name AND t.id <> s.id)",
                "Loupe already has a queue of this name under another id",
            ),
        ],
    },
    Table {
        target: "annotation_queue_items",
        sources: &["annotation_queue_items"],
        // Loupe holds an object once per queue; v3 may hold it twice: the first added is kept.
        select: |_| {
            "SELECT * FROM (SELECT DISTINCT ON (i.queue_id, i.object_type, i.object_id) i.id, i.project_id, \
             i.queue_id, i.object_type::text AS object_type, i.object_id, i.status::text AS status, i.completed_at, \
             i.annotator_user_id AS completed_by_user_id, i.locked_by_user_id, i.locked_at, i.created_at, \
             i.updated_at FROM annotation_queue_items i \
             ORDER BY i.queue_id, i.object_type, i.object_id, i.created_at, i.id) d ORDER BY d.id"
                .to_owned()
        },
        columns: &[
            "id",
            "project_id",
            "queue_id",
            "object_type",
            "object_id",
            "status",
            "completed_at",
            "completed_by_user_id",
            "locked_by_user_id",
            "locked_at",
            "created_at",
            "updated_at",
        ],
        conflict: "(id)",
        insert_only: &[],
        label: "s.object_type || ' ' || s.object_id",
        skips: &[
            (
                "NOT EXISTS (SELECT 1 FROM annotation_queues q WHERE q.id = s.queue_id)",
                "its queue is not imported",
            ),
            (
                "EXISTS (SELECT 1 FROM annotation_queue_items t WHERE t.queue_id = s.queue_id \
                 AND t.object_type = s.object_type AND t.object_id = s.object_id AND t.id <> s.id)",
                "the queue already holds this object in Loupe",
            ),
        ],
    },
    Table {
        target: "annotation_queue_assignments",
        sources: &["annotation_queue_assignments"],
        select: |_| {
            "SELECT a.queue_id, a.project_id, a.user_id, a.created_at FROM annotation_queue_assignments a \
             ORDER BY a.queue_id, a.user_id"
                .to_owned()
        },
        columns: &["queue_id", "project_id", "user_id", "created_at"],
        conflict: "(queue_id, user_id)",
        insert_only: &["created_at"],
        label: "s.queue_id || '/' || s.user_id",
        skips: &[
            (
                "NOT EXISTS (SELECT 1 FROM annotation_queues q WHERE q.id = s.queue_id)",
                "its queue is not imported",
            ),
            ("NOT EXISTS (SELECT 1 FROM users u WHERE u.id = s.user_id)", "its user is not imported"),
        ],
    },
    Table {
        target: "dashboard_widgets",
        sources: &["dashboard_widgets"],
        // Project widgets only (v3's own presets have no project). Loupe's views are v4's: a widget
        // over v3's TRACES view has no counterpart.
        select: |_| {
            "SELECT w.id, w.project_id, w.name, w.description, jsonb_build_object(\
             'view', CASE w.view::text WHEN 'OBSERVATIONS' THEN 'observations' WHEN 'SCORES_NUMERIC' \
             THEN 'scores-numeric' WHEN 'SCORES_CATEGORICAL' THEN 'scores-categorical' END, \
             'dimensions', w.dimensions, 'metrics', w.metrics, 'filters', w.filters, \
             'chartType', w.chart_type::text, 'chartConfig', w.chart_config) AS definition, \
             w.created_at, w.updated_at FROM dashboard_widgets w WHERE w.project_id IS NOT NULL ORDER BY w.id"
                .to_owned()
        },
        columns: &["id", "project_id", "name", "description", "definition", "created_at", "updated_at"],
        conflict: "(id)",
        insert_only: &[],
        label: "s.name",
        skips: &[
            NO_PROJECT,
            ("s.definition->>'view' IS NULL", "a widget over v3's TRACES view, which v4 has not"),
        ],
    },
    Table {
        target: "dashboards",
        sources: &["dashboards"],
        // v3 sizes a placement with x_size/y_size, Loupe (the v4 API) with width/height.
        select: |_| {
            "SELECT d.id, d.project_id, d.name, d.description, jsonb_build_object('widgets', COALESCE((\
             SELECT jsonb_agg((p - 'x_size' - 'y_size') || jsonb_build_object(\
             'width', COALESCE(p->'width', p->'x_size'), 'height', COALESCE(p->'height', p->'y_size'))) \
             FROM jsonb_array_elements(d.definition->'widgets') p), '[]'::jsonb)) AS definition, \
             COALESCE(d.filters, '[]') AS filters, d.created_at, d.updated_at \
             FROM dashboards d WHERE d.project_id IS NOT NULL ORDER BY d.id"
                .to_owned()
        },
        columns: &[
            "id",
            "project_id",
            "name",
            "description",
            "definition",
            "filters",
            "created_at",
            "updated_at",
        ],
        conflict: "(id)",
        insert_only: &[],
        label: "s.name",
        skips: &[NO_PROJECT],
    },
    Table {
        target: "llm_api_keys",
        sources: &["llm_api_keys"],
        // LLM connections. The secret and the headers are stored encrypted: decrypted with v3's
        // ENCRYPTION_KEY and encrypted with Loupe's on the way (`super::REENCRYPTED`); a fresh
        // encryption differs every time, so they are written only when the connection is new.
        select: |schema| {
            format!(
                "SELECT c.id, c.project_id, c.provider, c.adapter, c.secret_key, c.display_secret_key, c.base_url, \
                 COALESCE(c.custom_models, '{{}}') AS custom_models, c.with_default_models, {headers} AS extra_headers, \
                 COALESCE({header_keys}, '{{}}') AS extra_header_keys, {config} AS config, c.created_at, c.updated_at \
                 FROM llm_api_keys c ORDER BY c.id",
                headers = schema.or("llm_api_keys", "c", "extra_headers", "NULL::text"),
                header_keys = schema.or("llm_api_keys", "c", "extra_header_keys", "NULL::text[]"),
                config = schema.or("llm_api_keys", "c", "config", "NULL::jsonb"),
            )
        },
        columns: &[
            "id",
            "project_id",
            "provider",
            "adapter",
            "secret_key",
            "display_secret_key",
            "base_url",
            "custom_models",
            "with_default_models",
            "extra_headers",
            "extra_header_keys",
            "config",
            "created_at",
            "updated_at",
        ],
        conflict: "(id)",
        insert_only: &["secret_key", "extra_headers"],
        label: "s.provider",
        skips: &[
            NO_PROJECT,
            ("s.secret_key IS NULL", "its secret does not decrypt with --encryption-key"),
            (
                "EXISTS (SELECT 1 FROM llm_api_keys t WHERE t.project_id = s.project_id AND t.provider = s.provider AND t.id <> s.id)",
                "Loupe already has a connection of this name under another id",
            ),
        ],
    },
];
