//! The worker's operator subcommands. Each reads the same configuration as the worker itself,
//! prints one report and exits.

use anyhow::Context;

use domain::config::Config;
use service::Stores;

const USAGE: &str = "usage: worker [migration-status [--days N] | verify-migration [--project ID] | backfill-retry | retention-status]";

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
        Some(other) => return Err(format!("unknown command {other:?}\n{USAGE}")),
    };
    let (command, flags) = command;
    let mut rest = args[1..].iter();
    while let Some(arg) = rest.next() {
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
    }
}
