//! ClickHouse schema migrations: numbered SQL templates from `migrations/clickhouse`, rendered for
//! a single node or a cluster, applied in order and recorded in `loupe_schema_migrations`.
//!
//! Every statement is idempotent and additive (`IF NOT EXISTS`), so tables that already exist (a
//! real Langfuse v3 database, an earlier preview) are left as they are and only gain what they
//! lack. The record table is not called `schema_migrations` because Langfuse's own migration tool
//! already owns a table of that name in a v3 database.

use sha2::{Digest, Sha256};

use super::ClickHouse;
use crate::{Error, ErrorKind, Result};

pub struct Migration {
    pub version: u32,
    pub name: &'static str,
    pub template: &'static str,
}

macro_rules! migration {
    ($version:literal, $name:literal) => {
        Migration {
            version: $version,
            name: $name,
            template: include_str!(concat!("../../../../migrations/clickhouse/", $name, ".sql")),
        }
    };
}

/// In order. A test checks this list against the directory, so a new file cannot be forgotten.
pub static MIGRATIONS: &[Migration] = &[
    migration!(1, "0001_traces"),
    migration!(2, "0002_observations"),
    migration!(3, "0003_scores"),
    migration!(4, "0004_dataset_run_items_rmt"),
    migration!(5, "0005_events_full"),
    migration!(6, "0006_events_core"),
    migration!(7, "0007_events_core_mv"),
    migration!(8, "0008_observations_batch_staging"),
];

const RECORD_TABLE: &str = "loupe_schema_migrations";

impl Migration {
    /// Identifies the text that was applied; a released migration must never change.
    pub fn checksum(&self) -> String {
        Sha256::digest(self.template.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Fills the two placeholders of a template for a single node (`cluster = None`) or a cluster.
pub fn render(template: &str, cluster: Option<&str>) -> String {
    let (on_cluster, replicated) = match cluster {
        Some(name) => (format!(" ON CLUSTER {name}"), "Replicated"),
        None => (String::new(), ""),
    };
    template.replace("{ON_CLUSTER}", &on_cluster).replace("{REPLICATED}", replicated)
}

/// Statements end with `;` at the end of a line; comment-only chunks are dropped.
pub fn split_statements(sql: &str) -> Vec<String> {
    let mut statements = Vec::new();
    let mut current = String::new();
    for line in sql.lines() {
        let code = line.trim_end();
        if code.trim_start().starts_with("--") {
            continue;
        }
        current.push_str(code);
        current.push('\n');
        if code.ends_with(';') {
            let statement = current.trim().trim_end_matches(';').trim().to_owned();
            if !statement.is_empty() {
                statements.push(statement);
            }
            current.clear();
        }
    }
    let rest = current.trim();
    if !rest.is_empty() {
        statements.push(rest.to_owned());
    }
    statements
}

/// What a run did, for the startup log and the tests.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct AppliedMigrations {
    pub applied: Vec<u32>,
    pub already_applied: Vec<u32>,
    /// Tables found before this run created anything: a v3 database or an earlier preview.
    pub pre_existing_tables: Vec<String>,
}

#[derive(clickhouse::Row, serde::Deserialize)]
struct Record {
    version: u32,
    checksum: String,
}

/// Applies every pending migration. Callers serialise concurrent runs (see `crate::schema`).
pub async fn migrate(ch: &ClickHouse) -> Result<AppliedMigrations> {
    ch.ensure_database().await?;
    let cluster = ch.cluster();
    let engine = if cluster.is_some() { "ReplicatedReplacingMergeTree" } else { "ReplacingMergeTree" };
    let on_cluster = cluster.map(|c| format!(" ON CLUSTER {c}")).unwrap_or_default();
    let create_record_table = format!(
        "CREATE TABLE IF NOT EXISTS {RECORD_TABLE}{on_cluster} (version UInt32, name String, checksum String, \
         applied_at DateTime64(3) DEFAULT now64(3)) ENGINE = {engine}(applied_at) ORDER BY version"
    );
    let pre_existing_tables = existing_tables(ch).await?;
    ch.client().query(&create_record_table).execute().await?;

    let records: Vec<Record> = ch
        .client()
        .query(&format!("SELECT version, checksum FROM {RECORD_TABLE} FINAL ORDER BY version"))
        .fetch_all()
        .await?;
    let mut report = AppliedMigrations { pre_existing_tables, ..Default::default() };
    for migration in MIGRATIONS {
        if let Some(record) = records.iter().find(|r| r.version == migration.version) {
            if record.checksum != migration.checksum() {
                return Err(Error::new(
                    ErrorKind::Internal,
                    format!(
                        "clickhouse migration {} was changed after it was applied; released migrations are never \
                         edited, add a new one instead",
                        migration.name
                    ),
                ));
            }
            report.already_applied.push(migration.version);
            continue;
        }
        for statement in split_statements(&render(migration.template, cluster)) {
            ch.client().query(&statement).execute().await.map_err(|e| {
                Error::with_source(
                    ErrorKind::Internal,
                    format!("clickhouse migration {} failed", migration.name),
                    e,
                )
            })?;
        }
        ch.client()
            .query(&format!("INSERT INTO {RECORD_TABLE} (version, name, checksum) VALUES (?, ?, ?)"))
            .bind(migration.version)
            .bind(migration.name)
            .bind(migration.checksum())
            .execute()
            .await?;
        tracing::info!(migration = migration.name, "applied clickhouse migration");
        report.applied.push(migration.version);
    }
    Ok(report)
}

async fn existing_tables(ch: &ClickHouse) -> Result<Vec<String>> {
    Ok(ch
        .client()
        .query("SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name")
        .fetch_all::<String>()
        .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_single_node_and_cluster() {
        let template =
            "CREATE TABLE IF NOT EXISTS t{ON_CLUSTER} (x UInt8) ENGINE = {REPLICATED}ReplacingMergeTree";
        assert_eq!(
            render(template, None),
            "CREATE TABLE IF NOT EXISTS t (x UInt8) ENGINE = ReplacingMergeTree"
        );
        assert_eq!(
            render(template, Some("main")),
            "CREATE TABLE IF NOT EXISTS t ON CLUSTER main (x UInt8) ENGINE = ReplicatedReplacingMergeTree"
        );
    }

    #[test]
    fn splits_on_line_ending_semicolons_and_drops_comments() {
        let sql = "-- header\nCREATE TABLE a (x String DEFAULT 'a;b')\nENGINE = Memory;\n\n-- between\nALTER TABLE a ADD COLUMN IF NOT EXISTS y UInt8;\n";
        assert_eq!(
            split_statements(sql),
            vec![
                "CREATE TABLE a (x String DEFAULT 'a;b')\nENGINE = Memory".to_owned(),
                "ALTER TABLE a ADD COLUMN IF NOT EXISTS y UInt8".to_owned(),
            ]
        );
    }

    #[test]
    fn every_file_in_the_directory_is_listed_in_order() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/clickhouse");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".sql"))
            .map(|n| n.trim_end_matches(".sql").to_owned())
            .collect();
        files.sort();
        let listed: Vec<&str> = MIGRATIONS.iter().map(|m| m.name).collect();
        assert_eq!(files, listed);
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version as usize, i + 1);
            assert!(m.name.starts_with(&format!("{:04}_", m.version)));
        }
    }

    #[test]
    fn templates_use_only_the_known_placeholders() {
        for m in MIGRATIONS {
            let rendered = render(m.template, Some("c"));
            assert!(!rendered.contains("{ON_CLUSTER}") && !rendered.contains("{REPLICATED}"));
            assert!(!split_statements(&rendered).is_empty(), "{} has no statements", m.name);
            let cluster_creates = rendered.matches("ON CLUSTER c").count();
            let creates_and_alters = split_statements(&rendered).len();
            assert_eq!(
                cluster_creates, creates_and_alters,
                "{}: every statement needs {{ON_CLUSTER}}",
                m.name
            );
        }
    }
}
