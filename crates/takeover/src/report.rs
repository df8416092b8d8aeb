//! What an import did (or a dry run would do), table by table, and how it is printed.

use std::fmt::Write;

use crate::copy::PageOutcome;

/// Skipped rows listed per table; the rest are counted.
const LISTED_SKIPS: usize = 20;

#[derive(Debug, Default)]
pub struct Report {
    pub dry_run: bool,
    /// The source's newest applied prisma migration.
    pub schema_version: String,
    pub tables: Vec<TableReport>,
    /// `(v3 table, rows, why)`
    pub not_imported: Vec<(String, i64, String)>,
    pub salt_note: String,
    pub encryption_key_note: String,
}

#[derive(Debug, Default)]
pub struct TableReport {
    pub table: String,
    pub read: u64,
    pub inserted: u64,
    pub updated: u64,
    pub skipped: u64,
    /// The first skipped rows: `(row, reason)`.
    pub skips: Vec<(String, String)>,
    pub note: Option<String>,
}

impl TableReport {
    pub(crate) fn add(&mut self, read: u64, outcome: PageOutcome) {
        self.read += read;
        self.inserted += outcome.inserted;
        self.updated += outcome.updated;
        self.skipped += outcome.skipped.len() as u64;
        let room = LISTED_SKIPS.saturating_sub(self.skips.len());
        self.skips.extend(outcome.skipped.into_iter().take(room));
    }

    /// Read rows neither written nor skipped: already in Loupe as they are in v3.
    pub fn unchanged(&self) -> u64 {
        self.read.saturating_sub(self.inserted + self.updated + self.skipped)
    }

    pub fn summary(&self, dry_run: bool) -> String {
        let (new, changed) = if dry_run { ("would be new", "would change") } else { ("new", "changed") };
        format!(
            "{} read, {} {new}, {} {changed}, {} unchanged, {} skipped",
            self.read,
            self.inserted,
            self.updated,
            self.unchanged(),
            self.skipped
        )
    }
}

impl Report {
    /// Rows inserted or updated over every table.
    pub fn written(&self) -> u64 {
        self.tables.iter().map(|t| t.inserted + t.updated).sum()
    }

    pub fn table(&self, name: &str) -> Option<&TableReport> {
        self.tables.iter().find(|t| t.table == name)
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        let mode = if self.dry_run { "dry run: nothing was written" } else { "import" };
        let _ = writeln!(out, "Langfuse v3 import ({mode}); source schema at {}", self.schema_version);
        for table in &self.tables {
            match &table.note {
                Some(note) => {
                    let _ = writeln!(out, "  {:<30} {note}", table.table);
                }
                None => {
                    let _ = writeln!(out, "  {:<30} {}", table.table, table.summary(self.dry_run));
                }
            }
            for (row, reason) in &table.skips {
                let _ = writeln!(out, "      skipped {row}: {reason}");
            }
            if table.skipped > table.skips.len() as u64 {
                let _ =
                    writeln!(out, "      … and {} more skipped", table.skipped - table.skips.len() as u64);
            }
        }
        if !self.not_imported.is_empty() {
            let _ = writeln!(out, "Not imported:");
            for (table, rows, why) in &self.not_imported {
                let _ = writeln!(out, "  {table:<30} {rows} rows, {why}");
            }
        }
        let _ = writeln!(out, "Salt: {}", self.salt_note);
        let _ = writeln!(out, "Encryption key: {}", self.encryption_key_note);
        out
    }
}
