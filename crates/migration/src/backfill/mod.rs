//! The historic backfill chain (spec/v4-migration-spec.md §3.3): M1–M5, run once per deployment by one worker at a
//! time, each step starting only after its predecessor succeeded.
//!
//! Every step works in bounded chunks and saves its cursor in `background_migrations.state` after
//! each one, so a worker killed at any point resumes where the last chunk ended; a chunk that ran
//! but was not recorded runs again, which the `ReplacingMergeTree` tables absorb (same rows, same
//! version). The old tables are only ever read.

mod chunked;
mod experiments;
mod progress;
mod scratch;

use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use sqlx::PgPool;
use tokio_util::sync::CancellationToken;

use domain::config::{BackfillSettings, MigrationSettings, WriteMode};
use storage::background_migrations::{self as steps, BackgroundMigration, StepStatus};
use storage::clickhouse::{ClickHouse, Work};

use crate::keyset::Condition;
use crate::lease::{self, HeldLease};

pub use progress::StepProgress;
pub use scratch::SCRATCH_TABLE;

pub const LEASE: &str = "historic-backfill";

/// The chain's steps, in order; their names are the `background_migrations` rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    RootSpans,
    RewriteObservations,
    EventsFromObservations,
    Experiments,
    DropScratchTable,
}

impl Step {
    pub const ALL: [Step; 5] = [
        Step::RootSpans,
        Step::RewriteObservations,
        Step::EventsFromObservations,
        Step::Experiments,
        Step::DropScratchTable,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Step::RootSpans => "20260701_v4_step_1_create_root_spans_from_traces",
            Step::RewriteObservations => "20260701_v4_step_2_rewrite_observations_to_pid_tid_sorting",
            Step::EventsFromObservations => "20260701_v4_step_3_backfill_events_full_from_observations",
            Step::Experiments => "20260701_v4_step_4_backfill_events_full_from_dataset_run_items",
            Step::DropScratchTable => "20260701_v4_step_5_drop_pid_tid_sorting_tables",
        }
    }

    pub fn from_name(name: &str) -> Option<Step> {
        Step::ALL.into_iter().find(|step| step.name() == name)
    }

    /// What `rows_done` counts for this step.
    pub fn unit(self) -> &'static str {
        match self {
            Step::RootSpans => "traces",
            Step::RewriteObservations | Step::EventsFromObservations => "observations",
            Step::Experiments => "experiment traces",
            Step::DropScratchTable => "tables",
        }
    }

    /// The variable that keeps this step dormant, if it is off.
    pub fn closed_gate(self, migration: &MigrationSettings) -> Option<&'static str> {
        match self {
            Step::DropScratchTable if !migration.drop_pid_tid_sorting_tables => {
                Some("LANGFUSE_BACKGROUND_MIGRATION_V4_DROP_PID_TID_SORTING_TABLES")
            }
            Step::DropScratchTable => None,
            _ if !migration.enable_historic_backfill => {
                Some("LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL")
            }
            _ => None,
        }
    }
}

/// How a pass over the chain ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainOutcome {
    /// Another worker runs the chain.
    NotLeader,
    /// Every step succeeded (or was skipped).
    Finished,
    /// A step's gate is off; it and the steps after it wait.
    Dormant { step: &'static str, gate: &'static str },
    /// A step failed; the chain stops there until the operator retries it.
    Halted { step: &'static str, error: String },
    /// Shutdown, a lost lease or the chunk budget of this pass stopped a step between chunks.
    Interrupted,
}

#[derive(Clone)]
pub struct Backfill {
    pub clickhouse: ClickHouse,
    pub postgres: PgPool,
    pub settings: BackfillSettings,
    pub migration: MigrationSettings,
    /// Lease holder name: distinct per worker replica.
    pub holder: String,
    /// Stop a pass after this many chunks (tests and drills interrupt steps with it).
    pub chunk_budget: Option<u64>,
}

/// How long the loop waits before looking again after each outcome.
const WAIT_NOT_LEADER: Duration = Duration::from_secs(15);
const WAIT_DORMANT_OR_HALTED: Duration = Duration::from_secs(60);
const WAIT_AFTER_OUTAGE: Duration = Duration::from_secs(10);

impl Backfill {
    /// Whether this deployment runs the chain at all.
    pub fn runs(&self) -> bool {
        self.settings.enabled && self.migration.write_mode != WriteMode::Legacy
    }

    pub async fn run(self, shutdown: CancellationToken) {
        if !self.runs() {
            tracing::info!(
                write_mode = %self.migration.write_mode,
                enabled = self.settings.enabled,
                "historic backfill off (it runs in dual and events_only with LANGFUSE_ENABLE_BACKGROUND_MIGRATIONS=true)"
            );
            return;
        }
        loop {
            let wait = match self.run_chain(&shutdown).await {
                Ok(ChainOutcome::Finished) => {
                    tracing::info!("historic backfill: every step is done");
                    return;
                }
                Ok(ChainOutcome::NotLeader) => WAIT_NOT_LEADER,
                Ok(ChainOutcome::Interrupted) => Duration::ZERO,
                Ok(ChainOutcome::Dormant { step, gate }) => {
                    tracing::info!(step, gate, "historic backfill waits: the step's gate is off");
                    WAIT_DORMANT_OR_HALTED
                }
                Ok(ChainOutcome::Halted { step, error }) => {
                    tracing::error!(step, %error, "historic backfill halted; fix the cause, then run `worker backfill-retry`");
                    WAIT_DORMANT_OR_HALTED
                }
                Err(error) => {
                    tracing::warn!(%error, "historic backfill paused by a store error; resuming shortly");
                    WAIT_AFTER_OUTAGE
                }
            };
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tokio::time::sleep(wait) => {}
            }
        }
    }

    /// One pass: runs steps in order from the first unfinished one.
    pub async fn run_chain(&self, shutdown: &CancellationToken) -> storage::Result<ChainOutcome> {
        let Some(lease) = lease::acquire(&self.postgres, LEASE, &self.holder).await? else {
            return Ok(ChainOutcome::NotLeader);
        };
        let outcome = self.run_steps(&lease, shutdown).await;
        lease.release().await;
        outcome
    }

    async fn run_steps(
        &self,
        lease: &HeldLease,
        shutdown: &CancellationToken,
    ) -> storage::Result<ChainOutcome> {
        let mut budget = self.chunk_budget;
        for row in steps::list(&self.postgres).await? {
            let Some(step) = Step::from_name(&row.name) else { continue };
            if row.status.is_final() {
                continue;
            }
            if row.status == StepStatus::Failed {
                return Ok(ChainOutcome::Halted {
                    step: step.name(),
                    error: row.last_error.unwrap_or_default(),
                });
            }
            if let Some(gate) = step.closed_gate(&self.migration) {
                return Ok(ChainOutcome::Dormant { step: step.name(), gate });
            }
            steps::mark_running(&self.postgres, step.name(), &self.holder).await?;
            tracing::info!(step = step.name(), "historic backfill step running");
            let mut run = StepRun::new(self, lease, shutdown, step, &row, budget);
            let result = match step {
                Step::RootSpans | Step::RewriteObservations | Step::EventsFromObservations => {
                    chunked::run(&mut run, &row).await
                }
                Step::Experiments => experiments::run(&mut run, &row).await,
                Step::DropScratchTable => scratch::drop(&run).await,
            };
            budget = budget.map(|b| b.saturating_sub(run.chunks_this_pass));
            match result {
                Ok(StepEnd::Done) => {
                    steps::finish(&self.postgres, step.name(), StepStatus::Succeeded, None).await?;
                    run.progress.log_done();
                }
                Ok(StepEnd::Interrupted) => return Ok(ChainOutcome::Interrupted),
                Err(error) if error.is_unavailable() => return Err(error),
                Err(error) => {
                    let message = error.to_string();
                    steps::finish(&self.postgres, step.name(), StepStatus::Failed, Some(&message)).await?;
                    return Ok(ChainOutcome::Halted { step: step.name(), error: message });
                }
            }
        }
        Ok(ChainOutcome::Finished)
    }
}

pub(crate) enum StepEnd {
    Done,
    Interrupted,
}

/// A step in progress: its counters, and the checks it makes between chunks.
pub(crate) struct StepRun<'a> {
    backfill: &'a Backfill,
    lease: &'a HeldLease,
    shutdown: &'a CancellationToken,
    step: Step,
    budget: Option<u64>,
    chunks_this_pass: u64,
    rows_done: i64,
    rows_estimated: Option<i64>,
    progress: progress::ProgressLog,
}

impl<'a> StepRun<'a> {
    fn new(
        backfill: &'a Backfill,
        lease: &'a HeldLease,
        shutdown: &'a CancellationToken,
        step: Step,
        row: &BackgroundMigration,
        budget: Option<u64>,
    ) -> Self {
        Self {
            backfill,
            lease,
            shutdown,
            step,
            budget,
            chunks_this_pass: 0,
            rows_done: row.rows_done,
            rows_estimated: row.rows_estimated,
            progress: progress::ProgressLog::new(step, row.rows_done),
        }
    }

    fn clickhouse(&self) -> &ClickHouse {
        &self.backfill.clickhouse
    }

    fn settings(&self) -> &BackfillSettings {
        &self.backfill.settings
    }

    /// Whether to stop before the next chunk.
    fn should_stop(&self) -> bool {
        self.shutdown.is_cancelled()
            || !self.lease.is_held()
            || self.budget.is_some_and(|budget| self.chunks_this_pass >= budget)
    }

    /// A query with the backfill's memory cap, the time bound of a bulk copy, and the given binds.
    fn query(&self, sql: &str, binds: &[String]) -> clickhouse::query::Query {
        let mut query = self
            .clickhouse()
            .client()
            .query(sql)
            .with_setting("max_memory_usage", self.settings().max_memory_bytes.to_string())
            .with_setting("max_execution_time", Work::Bulk.timeout().as_secs().to_string())
            .with_setting("type_json_skip_duplicated_paths", "1");
        for value in binds {
            query = query.bind(value);
        }
        query
    }

    fn condition_query(&self, condition: &Condition) -> clickhouse::query::Query {
        self.query(&condition.sql, &condition.binds)
    }

    /// Records a finished chunk: the cursor and the counters in one statement, then the pause.
    async fn chunk_done(&mut self, state: &impl Serialize, rows: u64) -> storage::Result<()> {
        self.chunks_this_pass += 1;
        self.rows_done += i64::try_from(rows).unwrap_or(i64::MAX);
        self.save(state).await?;
        self.progress.record(self.rows_done, self.rows_estimated);
        let pause = self.settings().pause;
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
        Ok(())
    }

    async fn set_estimate(&mut self, state: &impl Serialize, rows_estimated: i64) -> storage::Result<()> {
        self.rows_estimated = Some(rows_estimated);
        self.save(state).await
    }

    /// Persists the step's cursor together with its counters.
    async fn save(&self, state: &impl Serialize) -> storage::Result<()> {
        let state = serde_json::to_value(state).unwrap_or_default();
        steps::save_progress(
            &self.backfill.postgres,
            self.step.name(),
            &state,
            self.rows_done,
            self.rows_estimated,
        )
        .await
    }
}

/// Settings of a retried chunk: smaller blocks first, then a single thread — how a chunk that hit
/// the memory cap gets through.
fn lean(query: clickhouse::query::Query, attempt: u32) -> clickhouse::query::Query {
    match attempt {
        0 => query,
        1 => query.with_setting("max_block_size", "4096").with_setting("min_insert_block_size_rows", "65536"),
        _ => query
            .with_setting("max_block_size", "2048")
            .with_setting("min_insert_block_size_rows", "16384")
            .with_setting("max_threads", "1")
            .with_setting("max_insert_threads", "1"),
    }
}

/// A step's saved state, or `None` for a step that has not planned yet.
fn saved_state<T: DeserializeOwned>(row: &BackgroundMigration) -> Option<T> {
    match &row.state {
        serde_json::Value::Object(map) if map.is_empty() => None,
        state => serde_json::from_value(state.clone()).ok(),
    }
}

/// Runs a chunk's statement, retrying errors that are not outages twice with a growing pause and
/// leaner settings (see [`lean`]); outages go up to the loop, which resumes from the saved cursor
/// once the store is back.
async fn with_retries<F, Fut, T>(mut attempt: F) -> storage::Result<T>
where
    F: FnMut(u32) -> Fut,
    Fut: std::future::Future<Output = storage::Result<T>>,
{
    let mut tries = 0;
    loop {
        match attempt(tries as u32).await {
            Err(error) if !error.is_unavailable() && tries < 2 => {
                tries += 1;
                tracing::warn!(%error, attempt = tries, "backfill chunk failed; retrying");
                tokio::time::sleep(Duration::from_secs(2 * tries)).await;
            }
            result => return result,
        }
    }
}
