//! Taking over a Langfuse v3 deployment (`worker import-langfuse`, docs/takeover.md): everything v3
//! keeps in PostgreSQL that Loupe has a place for, read from the v3 database and upserted into
//! Loupe's, ids kept, so ClickHouse rows, URLs and SDK keys stay valid.
//!
//! - The source is only read: one `REPEATABLE READ READ ONLY` transaction, so every table is read
//!   from the same snapshot and nothing can be written there.
//! - Rows are streamed through a server-side cursor, a page at a time (`Options::page_rows`), and
//!   each page is one upsert statement (`copy`): memory holds one page, whatever the source's size.
//! - Each page commits on its own (parents before children, `tables::all`), so an interrupted
//!   run keeps what it did and a re-run upserts by id: new and changed rows, nothing twice. A dry
//!   run does the same writes inside one transaction that it rolls back, so its counts are exact.
//! - The newest applied prisma migration must be one this import knows ([`NEWEST_SUPPORTED`]).

mod copy;
mod report;
mod tables;

use secrecy::{ExposeSecret, SecretString};
use sqlx::{Connection, PgConnection, PgPool};

use domain::secrets::EncryptionKey;

pub use report::{Report, TableReport};

/// The newest Langfuse prisma migration whose schema this import has been checked against.
pub const NEWEST_SUPPORTED: &str = "20251208204006_dataset_items_switch_pk";

/// Rows per page: small enough to bound memory (a dataset item can be large), large enough that a
/// statement's round trip is amortised.
pub const DEFAULT_PAGE_ROWS: usize = 500;

pub struct Options {
    /// The v3 PostgreSQL URL.
    pub source_url: String,
    /// v3's `SALT` (`--salt`).
    pub v3_salt: SecretString,
    /// v3's `ENCRYPTION_KEY` (`--encryption-key`), to decrypt the secrets it stores.
    pub v3_encryption_key: Option<EncryptionKey>,
    /// Loupe's own `SALT`.
    pub loupe_salt: SecretString,
    /// Loupe's own `ENCRYPTION_KEY`, to store imported secrets with.
    pub loupe_encryption_key: Option<EncryptionKey>,
    pub dry_run: bool,
    pub page_rows: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error(
        "the v3 database has migration {found}, newer than the newest this Loupe supports ({newest}); \
         upgrade Loupe, or import from a Langfuse v3 no newer than the release that added {newest}"
    )]
    UnsupportedVersion { found: String, newest: &'static str },
    #[error("{0}")]
    NotLangfuse(String),
    #[error("reading the v3 database: {0}")]
    Source(sqlx::Error),
    #[error("writing {table} into Loupe: {error}")]
    Target { table: String, error: sqlx::Error },
}

fn source(error: sqlx::Error) -> ImportError {
    ImportError::Source(error)
}

/// Runs the import (or the dry run); `progress` hears one line per table and every few pages.
pub async fn run(
    target: &PgPool,
    options: &Options,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<Report, ImportError> {
    let mut from = PgConnection::connect(&options.source_url).await.map_err(source)?;
    sqlx::raw_sql("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL TIME ZONE 'UTC'")
        .execute(&mut from)
        .await
        .map_err(source)?;
    let newest = check_version(&mut from).await?;
    let schema = read_schema(&mut from).await?;

    let target_error = |table: &str| {
        let table = table.to_owned();
        move |error| ImportError::Target { table: table.clone(), error }
    };
    let mut to =
        PgConnection::connect_with(&target.connect_options()).await.map_err(target_error("Loupe"))?;
    if options.dry_run {
        sqlx::raw_sql("BEGIN; SET LOCAL TIME ZONE 'UTC'")
            .execute(&mut to)
            .await
            .map_err(target_error("Loupe"))?;
    }

    let mut report = Report { dry_run: options.dry_run, schema_version: newest, ..Report::default() };
    for table in tables::all() {
        let mut line = TableReport { table: table.target.to_owned(), ..TableReport::default() };
        if let Some(missing) = table.sources.iter().find(|t| !schema.has_table(t)) {
            line.note = Some(format!("not in this v3 schema ({missing})"));
            progress(&format!("{}: not in this v3 schema", table.target));
            report.tables.push(line);
            continue;
        }
        if tables::needs_keys(table.target)
            && (options.v3_encryption_key.is_none() || options.loupe_encryption_key.is_none())
        {
            let count: i64 =
                sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT count(*) FROM {}", table.sources[0])))
                    .fetch_one(&mut from)
                    .await
                    .map_err(source)?;
            line.note = Some(format!(
                "{count} rows not imported: their secrets need --encryption-key and Loupe's ENCRYPTION_KEY"
            ));
            progress(&format!("{}: skipped, no encryption keys", table.target));
            report.tables.push(line);
            continue;
        }
        progress(&format!("{}: importing", table.target));
        copy_table(&mut from, &mut to, table, &schema, options, &mut line, progress).await.map_err(|e| {
            match e {
                Failure::Source(error) => ImportError::Source(error),
                Failure::Target(error) => ImportError::Target { table: table.target.to_owned(), error },
            }
        })?;
        progress(&format!("{}: {}", table.target, line.summary(options.dry_run)));
        report.tables.push(line);
    }
    for (name, why) in tables::NOT_IMPORTED {
        if schema.has_table(name) {
            let count: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT count(*) FROM {name}")))
                .fetch_one(&mut from)
                .await
                .map_err(source)?;
            report.not_imported.push((name.to_string(), count, why.to_string()));
        }
    }
    report.salt_note = salt_note(options);
    report.encryption_key_note = encryption_key_note(&mut from, &schema, options).await?;

    if options.dry_run {
        sqlx::raw_sql("ROLLBACK").execute(&mut to).await.map_err(target_error("Loupe"))?;
    }
    sqlx::raw_sql("COMMIT").execute(&mut from).await.map_err(source)?;
    let _ = from.close().await;
    let _ = to.close().await;
    Ok(report)
}

enum Failure {
    Source(sqlx::Error),
    Target(sqlx::Error),
}

/// Streams one table through a cursor, a page at a time, each page upserted (and, for a real run,
/// committed) before the next is fetched.
async fn copy_table(
    from: &mut PgConnection,
    to: &mut PgConnection,
    table: &tables::Table,
    schema: &tables::Schema,
    options: &Options,
    line: &mut TableReport,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<(), Failure> {
    let select = (table.select)(schema);
    let declare =
        format!("DECLARE loupe_import NO SCROLL CURSOR FOR SELECT to_jsonb(r)::text FROM ({select}) r");
    sqlx::raw_sql(sqlx::AssertSqlSafe(declare)).execute(&mut *from).await.map_err(Failure::Source)?;
    let fetch = format!("FETCH FORWARD {} FROM loupe_import", options.page_rows.max(1));
    let statement = copy::statement(table);
    let mut pages = 0u64;
    loop {
        let rows: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(fetch.clone()))
            .fetch_all(&mut *from)
            .await
            .map_err(Failure::Source)?;
        if rows.is_empty() {
            break;
        }
        let read = rows.len() as u64;
        let (rows, refused) = shape_page(rows, table.target, options);
        let page = format!("[{}]", rows.join(","));
        drop(rows);
        if !options.dry_run {
            sqlx::raw_sql("BEGIN; SET LOCAL TIME ZONE 'UTC'")
                .execute(&mut *to)
                .await
                .map_err(Failure::Target)?;
        }
        let outcome = match copy::write_page(&mut *to, &statement, &page).await {
            Ok(mut outcome) => {
                outcome.skipped.extend(refused);
                outcome
            }
            Err(error) => {
                if !options.dry_run {
                    let _ = sqlx::raw_sql("ROLLBACK").execute(&mut *to).await;
                }
                return Err(Failure::Target(error));
            }
        };
        if !options.dry_run {
            sqlx::raw_sql("COMMIT").execute(&mut *to).await.map_err(Failure::Target)?;
        }
        line.add(read, outcome);
        pages += 1;
        if pages.is_multiple_of(20) {
            progress(&format!("{}: {} rows read", table.target, line.read));
        }
    }
    sqlx::raw_sql("CLOSE loupe_import").execute(&mut *from).await.map_err(Failure::Source)?;
    Ok(())
}

/// The newest applied migration, refused when it is newer than [`NEWEST_SUPPORTED`] (prisma names
/// start with their UTC timestamp, so names order as migrations do).
async fn check_version(from: &mut PgConnection) -> Result<String, ImportError> {
    let present: bool = sqlx::query_scalar("SELECT to_regclass('_prisma_migrations') IS NOT NULL")
        .fetch_one(&mut *from)
        .await
        .map_err(source)?;
    if !present {
        return Err(ImportError::NotLangfuse(
            "the source has no _prisma_migrations table: it is not a Langfuse database".to_owned(),
        ));
    }
    let newest: Option<String> = sqlx::query_scalar(
        "SELECT max(migration_name) FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL",
    )
    .fetch_one(&mut *from)
    .await
    .map_err(source)?;
    let newest = newest
        .ok_or_else(|| ImportError::NotLangfuse("no Langfuse migration has been applied".to_owned()))?;
    if newest.as_str() > NEWEST_SUPPORTED {
        return Err(ImportError::UnsupportedVersion { found: newest, newest: NEWEST_SUPPORTED });
    }
    let organizations: bool = sqlx::query_scalar("SELECT to_regclass('organizations') IS NOT NULL")
        .fetch_one(&mut *from)
        .await
        .map_err(source)?;
    if !organizations {
        return Err(ImportError::NotLangfuse(format!(
            "the source (at {newest}) predates Langfuse v3: upgrade it to v3 first"
        )));
    }
    Ok(newest)
}

async fn read_schema(from: &mut PgConnection) -> Result<tables::Schema, ImportError> {
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT table_name::text, column_name::text FROM information_schema.columns \
         WHERE table_schema = current_schema()",
    )
    .fetch_all(&mut *from)
    .await
    .map_err(source)?;
    Ok(tables::Schema { columns: rows.into_iter().collect() })
}

/// What can be said of `--salt`. v3 keeps each key's secret twice: a bcrypt hash, which needs no
/// salt, and a SHA-256 keyed by `SALT`. Checking `--salt` against the second needs a secret, which
/// only the clients hold, so it cannot be checked here; the import carries the bcrypt hash, which
/// verifies whatever the salt (then Loupe stores its own hash under Loupe's `SALT`).
fn salt_note(options: &Options) -> String {
    if options.v3_salt.expose_secret() == options.loupe_salt.expose_secret() {
        "--salt is Loupe's SALT: keys work either way (imported keys verify by their v3 bcrypt hash at first use)"
            .to_owned()
    } else {
        "--salt differs from Loupe's SALT: fine, imported keys verify by their v3 bcrypt hash (no salt) at first use \
         and are then hashed with Loupe's SALT; a wrong --salt cannot be detected without a key's secret"
            .to_owned()
    }
}

/// Whether `--encryption-key` decrypts a secret v3 stored (an LLM connection's key, else a
/// blob-storage integration's), the one check a wrong key fails.
async fn encryption_key_note(
    from: &mut PgConnection,
    schema: &tables::Schema,
    options: &Options,
) -> Result<String, ImportError> {
    let Some(key) = &options.v3_encryption_key else {
        return Ok("no --encryption-key: LLM connections are not imported, nor blob-storage integrations \
                   that hold a secret"
            .to_owned());
    };
    let mut sample: Option<String> = None;
    for (table, column) in
        [("llm_api_keys", "secret_key"), ("blob_storage_integrations", "secret_access_key")]
    {
        if sample.is_none() && schema.has(table, column) {
            sample = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "SELECT {column} FROM {table} WHERE {column} IS NOT NULL ORDER BY 1 LIMIT 1"
            )))
            .fetch_optional(&mut *from)
            .await
            .map_err(source)?;
        }
    }
    Ok(match sample {
        None => "--encryption-key not checked: the source stores no encrypted secret".to_owned(),
        Some(stored) if key.decrypt(&stored).is_ok() => {
            "--encryption-key decrypts v3's stored secrets".to_owned()
        }
        Some(_) => {
            "--encryption-key does NOT decrypt v3's stored secrets: it is not v3's ENCRYPTION_KEY".to_owned()
        }
    })
}

/// Runs a table's [`tables::Shape`] over a page: the rows to write, and the refused ones as
/// `(label, reason)` (labelled by their name, else their id, as the SQL skips are).
fn shape_page(rows: Vec<String>, target: &str, options: &Options) -> (Vec<String>, Vec<(String, String)>) {
    let Some(shape) = tables::shape(target) else {
        return (rows, Vec::new());
    };
    let keys =
        tables::Keys { v3: options.v3_encryption_key.as_ref(), loupe: options.loupe_encryption_key.as_ref() };
    let mut kept = Vec::with_capacity(rows.len());
    let mut refused = Vec::new();
    for row in rows {
        let Ok(serde_json::Value::Object(mut fields)) = serde_json::from_str::<serde_json::Value>(&row)
        else {
            kept.push(row);
            continue;
        };
        match shape(&mut fields, &keys) {
            Ok(()) => kept.push(serde_json::Value::Object(fields).to_string()),
            Err(reason) => {
                let label = ["name", "id", "project_id"]
                    .iter()
                    .find_map(|k| fields.get(*k).and_then(serde_json::Value::as_str))
                    .unwrap_or("?");
                refused.push((label.to_owned(), reason));
            }
        }
    }
    (kept, refused)
}
