//! `worker retention-status`: each project's window and, per target, what the retention job last
//! did — when, the cutoff, what it removed then and in all, partitions dropped, the last error.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use sqlx::PgPool;

use storage::retention::{Pass, Progress};

pub struct RetentionStatus {
    /// Every live project and its retention in days (`None`: kept forever).
    pub projects: Vec<(String, Option<i32>)>,
    pub progress: Vec<Progress>,
    pub pass: Option<Pass>,
    /// Who holds the job's lease, until when.
    pub lease: Option<(String, DateTime<Utc>)>,
    pub interval_seconds: u64,
}

pub async fn gather(pool: &PgPool, interval_seconds: u64) -> storage::Result<RetentionStatus> {
    Ok(RetentionStatus {
        projects: storage::projects::retention_days(pool).await?,
        progress: storage::retention::progress(pool).await?,
        pass: storage::retention::last_pass(pool).await?,
        lease: storage::leases::current(pool, super::LEASE).await?,
        interval_seconds,
    })
}

pub fn render(status: &RetentionStatus, now: DateTime<Utc>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Loupe retention");
    match &status.pass {
        None => {
            let _ = writeln!(out, "  no pass has run yet (a worker starts one at startup)");
        }
        Some(pass) => {
            let state = match pass.finished_at {
                Some(at) => format!("finished {at} with {} failed units", pass.errors),
                None => "running (or interrupted; the next pass repeats it)".to_owned(),
            };
            let _ = writeln!(
                out,
                "  last pass started {} by {} · {state} · a pass starts every {} s",
                pass.started_at, pass.holder, status.interval_seconds
            );
        }
    }
    if let Some((holder, until)) = &status.lease
        && *until > now
    {
        let _ = writeln!(out, "  lease held by {holder} until {until}");
    }
    for (project, days) in &status.projects {
        let Some(days) = days else {
            let _ = writeln!(out, "\nproject {project}: no retention, data is kept forever");
            continue;
        };
        let _ = writeln!(out, "\nproject {project}: retention {days} days");
        let rows: Vec<&Progress> = status.progress.iter().filter(|p| &p.project_id == project).collect();
        if rows.is_empty() {
            let _ = writeln!(out, "  not enforced yet");
        }
        for row in rows {
            let mut line = format!(
                "  {:<38} last run {} · cutoff {} · removed {} (total {})",
                row.target, row.last_run_at, row.last_cutoff, row.last_removed, row.removed_total
            );
            if row.partitions_dropped > 0 {
                let _ = write!(line, " · {} partitions dropped", row.partitions_dropped);
            }
            if let Some(error) = &row.last_error {
                let _ = write!(line, " · ERROR {error}");
            }
            let _ = writeln!(out, "{line}");
        }
    }
    out
}
