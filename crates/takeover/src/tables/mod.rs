//! What is imported: for each Loupe table (`people.rs`: organizations, people and keys;
//! `content.rs`: what projects hold), the SELECT over the v3 database that shapes its rows
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

mod content;
mod people;

pub(super) const NO_PROJECT: (&str, &str) =
    ("NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = s.project_id)", "its project is not imported");

/// Columns of a table holding a secret encrypted with the deployment's ENCRYPTION_KEY: decrypted
/// with v3's and encrypted again with Loupe's while the page is in memory.
pub const REENCRYPTED: &[(&str, &[&str])] = &[("llm_api_keys", &["secret_key", "extra_headers"])];

pub fn reencrypted(target: &str) -> &'static [&'static str] {
    REENCRYPTED.iter().find(|(t, _)| *t == target).map_or(&[], |(_, columns)| columns)
}

/// Every imported table, parents first.
pub fn all() -> impl Iterator<Item = &'static Table> {
    people::TABLES.iter().chain(content::TABLES.iter())
}

/// v3 tables read but not imported, and why; their row counts are in the report.
pub const NOT_IMPORTED: &[(&str, &str)] = &[
    ("blob_storage_integrations", "skipped: not yet supported (blob-storage exports)"),
    (
        "eval_templates",
        "skipped: not yet supported (v3 templates are not mapped onto Loupe's evaluators yet)",
    ),
    (
        "job_configurations",
        "skipped: not yet supported (v3 job configurations are not mapped onto Loupe's evaluation rules yet)",
    ),
    (
        "prompt_dependencies",
        "kept in the prompt text: Loupe resolves @@@langfusePrompt@@@ references when read",
    ),
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
