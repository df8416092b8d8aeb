//! What is imported: for each Loupe table, the SELECT over the v3 database that shapes its rows
//! into Loupe's columns, and the rows that are skipped and why. Order matters: parents first, so
//! every page committed on its own satisfies the foreign keys.
//!
//! Facts about the source are Langfuse's prisma schema and migrations (v3.0 to the newest
//! supported, `crate::NEWEST_SUPPORTED`). Columns added during v3 are read only where the source
//! has them ([`Schema::has`]); older databases get the value Langfuse itself assumed before.

use std::collections::HashSet;

/// The source's tables and columns, read once from `information_schema`.
pub struct Schema {
    pub columns: HashSet<(String, String)>,
}

impl Schema {
    pub fn has(&self, table: &str, column: &str) -> bool {
        self.columns.contains(&(table.to_owned(), column.to_owned()))
    }

    pub fn has_table(&self, table: &str) -> bool {
        self.columns.iter().any(|(t, _)| t == table)
    }

    /// `table.column` when the source has it, else `fallback` (an SQL expression).
    fn or(&self, table: &str, alias: &str, column: &str, fallback: &str) -> String {
        if self.has(table, column) { format!("{alias}.{column}") } else { fallback.to_owned() }
    }
}

/// One imported table.
pub struct Table {
    /// The name in progress lines and the report (Loupe's table).
    pub target: &'static str,
    /// The v3 tables it reads; missing ones make it "not in this source".
    pub sources: &'static [&'static str],
    pub select: fn(&Schema) -> String,
    pub columns: &'static [&'static str],
    /// `ON CONFLICT` target.
    pub conflict: &'static str,
    /// Columns written only when the row is new: Loupe changes them after the import (a password
    /// re-hashed at sign-in, a key's hash replaced at first use, its last use), and a re-run must not
    /// put the v3 value back.
    pub insert_only: &'static [&'static str],
    /// What names a skipped row in the report (SQL over `s`).
    pub label: &'static str,
    /// `(condition over s, reason)`: the first that holds skips the row.
    pub skips: &'static [(&'static str, &'static str)],
}

const NO_PROJECT: (&str, &str) =
    ("NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = s.project_id)", "its project is not imported");

pub const TABLES: &[Table] = &[
    Table {
        target: "organizations",
        sources: &["organizations"],
        select: |schema| {
            format!(
                "SELECT o.id, o.name, COALESCE({metadata}, '{{}}') AS metadata, o.created_at, o.updated_at \
                 FROM organizations o ORDER BY o.id",
                metadata = schema.or("organizations", "o", "metadata", "NULL::jsonb"),
            )
        },
        columns: &["id", "name", "metadata", "created_at", "updated_at"],
        conflict: "(id)",
        insert_only: &[],
        label: "s.id",
        skips: &[],
    },
    Table {
        target: "projects",
        sources: &["projects"],
        select: |schema| {
            let retention = schema.or("projects", "p", "retention_days", "NULL");
            format!(
                "SELECT p.id, p.org_id, p.name, \
                 CASE WHEN {retention} > 0 THEN {retention} END AS retention_days, \
                 COALESCE({metadata}, '{{}}') AS metadata, p.created_at, p.updated_at, \
                 {deleted} AS deleted_at FROM projects p ORDER BY p.id",
                metadata = schema.or("projects", "p", "metadata", "NULL::jsonb"),
                deleted = schema.or("projects", "p", "deleted_at", "NULL::timestamp"),
            )
        },
        columns: &["id", "org_id", "name", "retention_days", "metadata", "created_at", "updated_at"],
        conflict: "(id)",
        insert_only: &[],
        label: "s.id",
        skips: &[("s.deleted_at IS NOT NULL", "deleted in v3 (its data is being removed there)")],
    },
    Table {
        target: "users",
        sources: &["users"],
        select: |schema| {
            format!(
                "SELECT u.id, u.email, u.name, u.password AS password_hash, {admin} AS instance_admin, \
                 u.created_at, u.updated_at FROM users u ORDER BY u.id",
                admin = schema.or("users", "u", "admin", "false"),
            )
        },
        columns: &["id", "email", "name", "password_hash", "instance_admin", "created_at", "updated_at"],
        conflict: "(id)",
        insert_only: &["password_hash"],
        label: "coalesce(s.email, s.id)",
        skips: &[
            ("s.email IS NULL OR btrim(s.email) = ''", "no email address (Loupe signs people in by address)"),
            (
                "EXISTS (SELECT 1 FROM users t WHERE lower(t.email) = lower(s.email) AND t.id <> s.id)",
                "a Loupe user with another id has this email address",
            ),
            (
                "EXISTS (SELECT 1 FROM s o WHERE lower(o.email) = lower(s.email) AND o.id < s.id)",
                "another v3 user has the same address in another case",
            ),
        ],
    },
    Table {
        target: "organization_memberships",
        sources: &["organization_memberships"],
        select: |_| {
            "SELECT m.org_id, m.user_id, m.role::text AS role, m.created_at, m.updated_at \
             FROM organization_memberships m ORDER BY m.org_id, m.user_id"
                .to_owned()
        },
        columns: &["org_id", "user_id", "role", "created_at", "updated_at"],
        conflict: "(org_id, user_id)",
        insert_only: &[],
        label: "s.org_id || '/' || s.user_id",
        skips: &[
            ("NOT EXISTS (SELECT 1 FROM users u WHERE u.id = s.user_id)", "its user is not imported"),
            ("NOT EXISTS (SELECT 1 FROM organizations o WHERE o.id = s.org_id)", "its organization is not imported"),
        ],
    },
    Table {
        target: "project_memberships",
        sources: &["project_memberships"],
        select: |_| {
            "SELECT pm.project_id, om.org_id, pm.user_id, pm.role::text AS role, pm.created_at, pm.updated_at \
             FROM project_memberships pm JOIN organization_memberships om ON om.id = pm.org_membership_id \
             ORDER BY pm.project_id, pm.user_id"
                .to_owned()
        },
        columns: &["project_id", "org_id", "user_id", "role", "created_at", "updated_at"],
        conflict: "(project_id, user_id)",
        insert_only: &[],
        label: "s.project_id || '/' || s.user_id",
        skips: &[
            NO_PROJECT,
            (
                "NOT EXISTS (SELECT 1 FROM organization_memberships m WHERE m.org_id = s.org_id AND m.user_id = s.user_id)",
                "its organization membership is not imported",
            ),
        ],
    },
    Table {
        target: "api_keys",
        sources: &["api_keys"],
        // Loupe's key ids are UUIDs; a v3 id (a cuid) becomes the same UUID on every run.
        select: |schema| {
            let scope = schema.or("api_keys", "k", "scope", "'PROJECT'");
            let org = schema.or("api_keys", "k", "organization_id", "NULL");
            let expires = schema.or("api_keys", "k", "expires_at", "NULL::timestamp");
            format!(
                "SELECT md5(k.id)::uuid AS id, \
                 CASE WHEN {scope}::text = 'ORGANIZATION' THEN NULL ELSE k.project_id END AS project_id, \
                 CASE WHEN {scope}::text = 'ORGANIZATION' THEN {org} END AS org_id, {scope}::text AS scope, \
                 k.public_key, k.hashed_secret_key, k.display_secret_key, k.note, k.created_at, \
                 k.last_used_at, {expires} AS expires_at FROM api_keys k ORDER BY k.id"
            )
        },
        columns: &[
            "id",
            "project_id",
            "org_id",
            "scope",
            "public_key",
            "hashed_secret_key",
            "display_secret_key",
            "note",
            "created_at",
            "last_used_at",
            "expires_at",
        ],
        conflict: "(id)",
        insert_only: &["hashed_secret_key", "last_used_at"],
        label: "s.public_key",
        skips: &[
            (
                "s.scope = 'PROJECT' AND NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = s.project_id)",
                "its project is not imported",
            ),
            (
                "s.scope = 'ORGANIZATION' AND NOT EXISTS (SELECT 1 FROM organizations o WHERE o.id = s.org_id)",
                "its organization is not imported",
            ),
            (
                "EXISTS (SELECT 1 FROM api_keys t WHERE t.public_key = s.public_key AND t.id <> s.id)",
                "Loupe already has a key with this public key (e.g. LANGFUSE_INIT_PROJECT_PUBLIC_KEY); Loupe's is kept",
            ),
        ],
    },
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
        columns: &["project_id", "id", "dataset_id", "name", "description", "metadata", "created_at", "updated_at"],
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
            let from = if schema.has("dataset_items", "valid_from") { "i.valid_from" } else { "i.created_at" };
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
        columns: &["id", "project_id", "object_type", "object_id", "content", "author_user_id", "created_at", "updated_at"],
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
                format!("(SELECT jsonb_object_agg(pr.usage_type, pr.price) FROM prices pr WHERE pr.model_id = m.id{tier})")
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
        columns: &["project_id", "media_id", "trace_id", "observation_id", "dataset_id", "dataset_item_id", "field", "created_at"],
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
            ("NOT EXISTS (SELECT 1 FROM annotation_queues q WHERE q.id = s.queue_id)", "its queue is not imported"),
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
            ("NOT EXISTS (SELECT 1 FROM annotation_queues q WHERE q.id = s.queue_id)", "its queue is not imported"),
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
        skips: &[NO_PROJECT, ("s.definition->>'view' IS NULL", "a widget over v3's TRACES view, which v4 has not")],
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
        columns: &["id", "project_id", "name", "description", "definition", "filters", "created_at", "updated_at"],
        conflict: "(id)",
        insert_only: &[],
        label: "s.name",
        skips: &[NO_PROJECT],
    },
];

/// v3 tables read but not imported, and why; their row counts are in the report.
pub const NOT_IMPORTED: &[(&str, &str)] = &[
    ("llm_api_keys", "skipped: not yet supported (LLM connections)"),
    ("blob_storage_integrations", "skipped: not yet supported (blob-storage exports)"),
    ("eval_templates", "skipped: not yet supported (evaluator templates)"),
    ("job_configurations", "skipped: not yet supported (evaluator job configurations)"),
    ("prompt_dependencies", "kept in the prompt text: Loupe resolves @@@langfusePrompt@@@ references when read"),
    ("membership_invitations", "not imported: pending invitations are sent again from Loupe"),
    ("posthog_integrations", "not imported: no Loupe counterpart"),
    ("mixpanel_integrations", "not imported: no Loupe counterpart"),
    ("automations", "not imported: no Loupe counterpart"),
    ("table_view_presets", "not imported: no Loupe counterpart"),
    ("llm_schemas", "not imported: no Loupe counterpart"),
    ("llm_tools", "not imported: no Loupe counterpart"),
    ("prompt_protected_labels", "not imported: no Loupe counterpart"),
    ("comment_reactions", "not imported: no Loupe counterpart"),
    ("audit_logs", "not imported: Loupe's audit log starts at the switch"),
];
