//! The worker's operator subcommands. Each reads the same configuration as the worker itself,
//! prints one report and exits.

use anyhow::Context;

use domain::config::Config;
use service::Stores;

const USAGE: &str = "usage: worker [migration-status [--days N] | verify-migration [--project ID] | backfill-retry \
     | retention-status | import-langfuse --from POSTGRES_URL --salt V3_SALT [--encryption-key V3_ENCRYPTION_KEY] [--dry-run]]";

pub enum Command {
    /// Run the worker.
    Serve,
    MigrationStatus {
        days: u32,
    },
    VerifyMigration {
        project: Option<String>,
    },
    BackfillRetry,
    RetentionStatus,
    /// `import-langfuse`: a Langfuse v3 PostgreSQL database into Loupe's (docs/takeover.md).
    ImportLangfuse {
        from: String,
        salt: String,
        encryption_key: Option<String>,
        dry_run: bool,
    },
}

/// Parses the arguments after the program name; `Err` carries the message for exit code 2.
pub fn parse(args: &[String]) -> Result<Command, String> {
    let flag = |name: &str| -> Result<Option<String>, String> {
        match args.iter().position(|a| a == name) {
            None => Ok(None),
            Some(i) => args.get(i + 1).cloned().map(Some).ok_or(format!("{name} needs a value\n{USAGE}")),
        }
    };
    let command = match args.first().map(String::as_str) {
        None => return Ok(Command::Serve),
        Some("migration-status") => {
            let days = flag("--days")?
                .map_or(Ok(7), |d| d.parse::<u32>().map_err(|_| format!("--days {d:?} is not a number")))?;
            (Command::MigrationStatus { days }, &["--days"][..])
        }
        Some("verify-migration") => {
            (Command::VerifyMigration { project: flag("--project")? }, &["--project"][..])
        }
        Some("backfill-retry") => (Command::BackfillRetry, &[][..]),
        Some("retention-status") => (Command::RetentionStatus, &[][..]),
        Some("import-langfuse") => {
            let required = |name: &str| flag(name)?.ok_or(format!("import-langfuse needs {name}\n{USAGE}"));
            let command = Command::ImportLangfuse {
                from: required("--from")?,
                salt: required("--salt")?,
                encryption_key: flag("--encryption-key")?,
                dry_run: args.iter().any(|a| a == "--dry-run"),
            };
            (command, &["--from", "--salt", "--encryption-key"][..])
        }
        Some(other) => return Err(format!("unknown command {other:?}\n{USAGE}")),
    };
    let (command, flags) = command;
    let mut rest = args[1..].iter();
    while let Some(arg) = rest.next() {
        if arg == "--dry-run" && matches!(command, Command::ImportLangfuse { .. }) {
            continue;
        }
        if !flags.contains(&arg.as_str()) {
            return Err(format!("unexpected argument {arg:?}\n{USAGE}"));
        }
        rest.next();
    }
    Ok(command)
}

/// Runs a subcommand; returns the process exit code.
pub async fn run(command: Command, config: &Config) -> anyhow::Result<i32> {
    let stores = Stores::connect(config)?;
    stores.prepare(config).await?;
    match command {
        Command::Serve => unreachable!("serving is not a subcommand"),
        Command::MigrationStatus { days } => {
            let status = migration::status::gather(
                &stores.clickhouse,
                &stores.postgres,
                &config.migration,
                &config.propagation,
                days,
                chrono::Utc::now(),
            )
            .await
            .context("migration status")?;
            print!("{}", migration::status::render(&status));
            Ok(0)
        }
        Command::VerifyMigration { project } => {
            let verification = migration::verify::verify(&stores.clickhouse, project.as_deref())
                .await
                .context("verify-migration")?;
            print!("{}", migration::verify::render(&verification));
            Ok(if verification.mismatches() == 0 { 0 } else { 1 })
        }
        Command::BackfillRetry => {
            let reset = storage::background_migrations::retry_failed(&stores.postgres).await?;
            if reset.is_empty() {
                println!("no failed backfill step");
            }
            for name in reset {
                println!("{name}: back to pending; the worker resumes it from its saved cursor");
            }
            Ok(0)
        }
        Command::RetentionStatus => {
            let interval = config.retention.interval.as_secs();
            let status = resources::retention::status::gather(&stores.postgres, interval)
                .await
                .context("retention status")?;
            print!("{}", resources::retention::status::render(&status, chrono::Utc::now()));
            Ok(0)
        }
        Command::ImportLangfuse { from, salt, encryption_key, dry_run } => {
            let v3_encryption_key = encryption_key
                .map(|key| domain::secrets::EncryptionKey::parse(&key))
                .transpose()
                .map_err(|e| anyhow::anyhow!("--encryption-key: {e}"))?;
            let options = takeover::Options {
                source_url: from,
                v3_salt: salt.into(),
                v3_encryption_key,
                loupe_salt: config.auth.salt.clone(),
                loupe_encryption_key: config.auth.encryption_key.clone(),
                dry_run,
                page_rows: takeover::DEFAULT_PAGE_ROWS,
            };
            // Progress on stderr, the report on stdout.
            match takeover::run(&stores.postgres, &options, &mut |line: &str| eprintln!("{line}")).await {
                Ok(report) => {
                    print!("{}", report.render());
                    Ok(0)
                }
                Err(error) => {
                    eprintln!("import-langfuse: {error}");
                    Ok(1)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn import_langfuse_takes_its_exact_command_line() {
        let parsed =
            parse(&args("import-langfuse --from postgres://v3 --salt s --encryption-key k --dry-run"));
        let Ok(Command::ImportLangfuse { from, salt, encryption_key, dry_run }) = parsed else {
            panic!("not parsed as import-langfuse");
        };
        assert_eq!(
            (from.as_str(), salt.as_str(), encryption_key.as_deref(), dry_run),
            ("postgres://v3", "s", Some("k"), true)
        );
        let Ok(Command::ImportLangfuse { encryption_key: None, dry_run: false, .. }) =
            parse(&args("import-langfuse --salt s --from postgres://v3"))
        else {
            panic!("the key and the dry run are optional");
        };
        assert!(parse(&args("import-langfuse --from postgres://v3")).is_err_and(|e| e.contains("--salt")));
        assert!(parse(&args("import-langfuse --from x --salt s --force")).is_err());
        assert!(parse(&args("backfill-retry --dry-run")).is_err(), "--dry-run belongs to import-langfuse");
    }
}
