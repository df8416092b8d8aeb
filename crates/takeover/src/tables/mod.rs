//! What is imported: for each Loupe table (`people.rs`: organizations, people and keys;
//! `prompts_datasets.rs`, `content.rs`: what projects hold; `integrations.rs`: LLM connections and
//! blob-storage exports; `evaluation.rs`: evaluator templates and job configurations), the SELECT
//! over the v3 database that shapes its rows into Loupe's columns, and the rows that are skipped and
//! why. Order matters: parents first, so every page committed on its own satisfies the foreign keys.
//!
//! Most shaping is SQL. What SQL cannot check the way Loupe will read it (secrets under another
//! key, v3 filters and variable mappings that Loupe's own parsers must accept) is a [`Shape`]: a
//! Rust step over each row of a page before it is written, which may refuse the row with a reason.
//!
//! Facts about the source are Langfuse's prisma schema and migrations (v3.0 to the newest
//! supported, `crate::NEWEST_SUPPORTED`). Columns added during v3 are read only where the source
//! has them ([`Schema::has`]); older databases get the value Langfuse itself assumed before.

use std::collections::HashSet;

use serde_json::{Map, Value};

use domain::secrets::EncryptionKey;

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
mod evaluation;
mod integrations;
mod people;
mod prompts_datasets;

pub(super) const NO_PROJECT: (&str, &str) =
    ("NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = s.project_id)", "its project is not imported");

/// The keys a [`Shape`] moves secrets with: v3's `--encryption-key` and Loupe's `ENCRYPTION_KEY`.
pub struct Keys<'a> {
    pub v3: Option<&'a EncryptionKey>,
    pub loupe: Option<&'a EncryptionKey>,
}

/// A Rust step over one source row (its columns as the SELECT named them) before it is written:
/// rewrites fields in place, or refuses the row with the reason the report gives.
pub type Shape = fn(&mut Map<String, Value>, &Keys) -> Result<(), String>;

/// The [`Shape`] of a table, if it has one.
pub fn shape(target: &str) -> Option<Shape> {
    match target {
        "llm_api_keys" => Some(integrations::shape_llm_connection),
        "blob_storage_integrations" => Some(integrations::shape_blob_storage),
        "evaluator_versions" => Some(evaluation::shape_version),
        "evaluation_rules" | "evaluation_rule_evaluators" => Some(evaluation::shape_rule),
        _ => None,
    }
}

/// Tables whose every row holds a secret: without both keys they are not read at all.
pub fn needs_keys(target: &str) -> bool {
    target == "llm_api_keys"
}

/// Every imported table, parents first.
pub fn all() -> impl Iterator<Item = &'static Table> {
    people::TABLES
        .iter()
        .chain(prompts_datasets::TABLES)
        .chain(content::TABLES)
        .chain(integrations::TABLES)
        .chain(evaluation::TABLES)
}

/// v3 tables read but not imported, and why; their row counts are in the report.
pub const NOT_IMPORTED: &[(&str, &str)] = &[
    (
        "job_executions",
        "not imported: history; the scores v3's evaluations wrote are in ClickHouse, which Loupe reads, \
         and executions still pending when v3 stopped are v3's own queue",
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
