//! Progress of the backfill steps, as the admin API, `worker migration-status` and the logs show it.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde::Serialize;

use storage::background_migrations::{BackgroundMigration, StepStatus};

use super::Step;

/// One step as an operator (or a UI page) reads it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepProgress {
    pub name: String,
    pub position: i32,
    pub description: String,
    pub status: StepStatus,
    /// What `rowsDone` counts: traces, observations, experiment traces or tables.
    pub unit: &'static str,
    pub rows_done: i64,
    /// Source rows found when the step planned its chunks (unmerged duplicates included).
    pub rows_estimated: Option<i64>,
    pub percent: Option<f64>,
    /// Average since the step first started.
    pub rows_per_second: Option<f64>,
    pub eta_seconds: Option<u64>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub worker: Option<String>,
    pub updated_at: DateTime<Utc>,
}

impl StepProgress {
    pub fn of(row: BackgroundMigration, now: DateTime<Utc>) -> Self {
        let unit = Step::from_name(&row.name).map_or("rows", Step::unit);
        let end = row.finished_at.unwrap_or(now);
        let elapsed = row.started_at.map(|start| (end - start).num_milliseconds() as f64 / 1000.0);
        let rate = elapsed.filter(|s| *s > 0.0).map(|s| row.rows_done as f64 / s);
        let remaining = row.rows_estimated.map(|total| (total - row.rows_done).max(0));
        let eta = match (row.status, rate, remaining) {
            (StepStatus::Running, Some(rate), Some(remaining)) if rate > 0.0 => {
                Some((remaining as f64 / rate).ceil() as u64)
            }
            _ => None,
        };
        let percent = match (row.status, row.rows_estimated) {
            (StepStatus::Succeeded, _) => Some(100.0),
            (_, Some(total)) if total > 0 => Some((row.rows_done as f64 * 100.0 / total as f64).min(100.0)),
            _ => None,
        };
        Self {
            unit,
            percent,
            rows_per_second: rate,
            eta_seconds: eta,
            name: row.name,
            position: row.position,
            description: row.description,
            status: row.status,
            rows_done: row.rows_done,
            rows_estimated: row.rows_estimated,
            started_at: row.started_at,
            finished_at: row.finished_at,
            last_error: row.last_error,
            worker: row.worker_id,
            updated_at: row.updated_at,
        }
    }
}

/// Logs a running step's progress at a steady cadence (between chunks, at most every 15 s).
pub(crate) struct ProgressLog {
    step: Step,
    since: Instant,
    rows_at_start: i64,
    last_logged: Instant,
    last_rows: i64,
}

const CADENCE: Duration = Duration::from_secs(15);

impl ProgressLog {
    pub fn new(step: Step, rows_done: i64) -> Self {
        let now = Instant::now();
        Self { step, since: now, rows_at_start: rows_done, last_logged: now, last_rows: rows_done }
    }

    pub fn record(&mut self, rows_done: i64, rows_estimated: Option<i64>) {
        self.last_rows = rows_done;
        if self.last_logged.elapsed() < CADENCE {
            return;
        }
        self.last_logged = Instant::now();
        let seconds = self.since.elapsed().as_secs_f64().max(0.001);
        let rate = (rows_done - self.rows_at_start) as f64 / seconds;
        let eta_seconds = rows_estimated
            .filter(|_| rate > 0.0)
            .map(|total| ((total - rows_done).max(0) as f64 / rate).ceil() as u64);
        tracing::info!(
            step = self.step.name(),
            unit = self.step.unit(),
            rows_done,
            rows_estimated,
            rows_per_second = rate.round(),
            eta_seconds,
            "historic backfill progress"
        );
    }

    pub fn log_done(&self) {
        tracing::info!(
            step = self.step.name(),
            unit = self.step.unit(),
            rows_done = self.last_rows,
            seconds = self.since.elapsed().as_secs(),
            "historic backfill step succeeded"
        );
    }
}
