//! Organizations, projects, people, their memberships and API keys.

use super::{NO_PROJECT, Table};

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
            (
                "NOT EXISTS (SELECT 1 FROM organizations o WHERE o.id = s.org_id)",
                "its organization is not imported",
            ),
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
];
