//! What else a project holds: score configs, comments, models, media, annotation queues and
//! dashboards (prompts and datasets are `prompts_datasets.rs`).

use super::{NO_PROJECT, Table};

pub const TABLES: &[Table] = &[
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
];
