//! The worker's evaluation engine (docs/evaluators.md). Three loops share one job:
//!
//! - **follow** (`follow.rs`): per project with enabled observation rules, reads the observations
//!   accepted since its saved cursor from `events_full` — up to a horizon every accepted payload
//!   before which is already inserted (the ingestion queue's oldest entry) — matches them against
//!   each rule's filter and sampling, and records one `pending` execution per evaluator, due after
//!   the rule's delay. The ingestion hot path is untouched; the cursor lives in PostgreSQL, so a
//!   restart resumes where it stopped and an execution is recorded once (unique per rule,
//!   evaluator and observation).
//! - **runs** (`runs.rs`; the API side is `crate::runs`): a rule run once over a time range, in
//!   chunks, with progress.
//! - **execute** (`execute.rs`): claims due executions with `FOR UPDATE SKIP LOCKED` under a
//!   per-project advisory lock, at most `max_per_project` running per project across all workers,
//!   each with a lease; calls the judge, writes the score and the judge's trace through the
//!   ingestion service, retries 429/5xx with backoff, records the provider's message on failure.

mod cursors;
mod execute;
mod follow;
pub mod judge;
mod propagated;
mod runs;
pub mod source;

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use sqlx::PgPool;
use tokio_util::sync::CancellationToken;

use domain::config::WriteMode;
use ingestion::service::IngestionService;
use storage::clickhouse::ClickHouse;
use storage::queue::IngestionQueue;

/// How the engine reaches a project's LLM connections (the worker plugs in
/// `resources::llm_connections`), so this crate does not depend on the API resources.
pub trait Connections: Send + Sync {
    /// The connection named `provider`, or `None` when the project has none by that name.
    fn named<'a>(
        &'a self,
        project: &'a str,
        provider: &'a str,
    ) -> BoxFuture<'a, Result<Option<llm::Connection>, String>>;
    /// The project's default evaluation model (docs/evaluators.md): the connection and the model.
    fn default_model<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<Option<(llm::Connection, String)>, String>>;
}

#[derive(Debug, Clone)]
pub struct EngineSettings {
    /// Executions running at once per project, across all workers.
    pub max_per_project: usize,
    /// Executions one worker runs at once, over all projects.
    pub max_per_worker: usize,
    /// Calls per execution before a retryable failure (429, 5xx, timeout) becomes its error.
    pub max_attempts: i32,
    /// The first retry's wait; each next one doubles, up to `max_backoff`. A provider's
    /// `Retry-After` is honoured when longer.
    pub backoff: Duration,
    pub max_backoff: Duration,
    /// How often each loop looks for work when idle.
    pub poll: Duration,
    /// How long a claimed execution is its worker's; a worker that dies frees it after this.
    pub lease: Duration,
    /// Observations are followed up to this long before now (clock skew between webs).
    pub settle: Duration,
}

impl Default for EngineSettings {
    fn default() -> Self {
        Self {
            max_per_project: 4,
            max_per_worker: 32,
            max_attempts: 4,
            backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(60),
            poll: Duration::from_millis(500),
            lease: Duration::from_secs(300),
            settle: Duration::from_secs(1),
        }
    }
}

#[derive(Clone)]
pub struct Engine {
    pub postgres: PgPool,
    pub clickhouse: ClickHouse,
    pub queue: IngestionQueue,
    pub ingestion: Arc<IngestionService>,
    pub llm: llm::LlmClient,
    pub connections: Arc<dyn Connections>,
    pub write_mode: WriteMode,
    pub settings: EngineSettings,
    /// This worker's name on leases.
    pub holder: String,
}

impl Engine {
    /// Logs what runs in this write mode, then follows, runs and executes until `shutdown`.
    pub async fn run(self, shutdown: CancellationToken) {
        match self.write_mode {
            WriteMode::EventsOnly => tracing::info!(
                "evaluations: observation-level rules run; trace-level and dataset evaluation rules are stopped in events_only (the v3 tables are no longer written) and show as inactive"
            ),
            WriteMode::Dual => tracing::info!(
                "evaluations: observation-level rules run on the events, trace-level and dataset rules on the v3 tables"
            ),
            WriteMode::Legacy => tracing::info!(
                "evaluations: trace-level and dataset rules run on the v3 tables; the legacy write mode writes no events, so observation-level rules wait for dual or events_only"
            ),
        }
        let executor = execute::Executor::new(self.clone());
        let mut tasks = tokio::task::JoinSet::new();
        tasks.spawn(follow::run(self.clone(), shutdown.clone()));
        tasks.spawn(runs::run(self.clone(), shutdown.clone()));
        tasks.spawn(executor.run(shutdown.clone()));
        while let Some(result) = tasks.join_next().await {
            if let Err(error) = result {
                tracing::error!(%error, "an evaluation loop panicked");
            }
        }
    }

    /// Waits `poll`, or less when shutting down; false when the engine should stop.
    pub(crate) async fn idle(&self, shutdown: &CancellationToken) -> bool {
        tokio::select! {
            () = shutdown.cancelled() => false,
            () = tokio::time::sleep(self.settings.poll) => true,
        }
    }
}

/// Whether `rule` samples `span`: a hash of both, so a run and the follower decide alike and a
/// rate of 0 never runs.
pub fn sampled(rule: &str, span: &str, rate: f64) -> bool {
    use sha2::Digest;
    if rate >= 1.0 {
        return true;
    }
    let digest = sha2::Sha256::digest(format!("{rule}:{span}").as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    (u64::from_be_bytes(first) as f64 / u64::MAX as f64) < rate
}

/// An enabled rule as the engine applies it.
#[derive(Debug, Clone)]
pub(crate) struct LiveRule {
    pub id: String,
    pub sampling: f64,
    pub delay_seconds: i32,
    pub filter: Vec<serde_json::Value>,
    pub enabled_at_micros: i64,
    pub evaluators: Vec<String>,
}

/// A project's enabled rules of `target` (`observation` or `trace`), or the one rule `only`.
pub(crate) async fn rules_of(
    db: &PgPool,
    project: &str,
    target: &str,
    only: Option<&str>,
) -> storage::Result<Vec<LiveRule>> {
    type RuleRow = (String, f64, i32, serde_json::Value, Option<chrono::DateTime<chrono::Utc>>, Vec<String>);
    let rows: Vec<RuleRow> = sqlx::query_as(
        "SELECT r.id, r.sampling, r.delay_seconds, r.filter, r.enabled_at,
                coalesce(array_agg(a.evaluator_id ORDER BY a.position) FILTER (WHERE a.evaluator_id IS NOT NULL), '{}')
         FROM evaluation_rules r LEFT JOIN evaluation_rule_evaluators a ON a.rule_id = r.id
         WHERE r.project_id = $1 AND r.target = $3 AND (r.enabled OR r.id = $2) AND ($2::text IS NULL OR r.id = $2)
         GROUP BY r.id",
    )
    .bind(project)
    .bind(only)
    .bind(target)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(id, sampling, delay_seconds, filter, enabled_at, evaluators)| LiveRule {
            id,
            sampling,
            delay_seconds,
            filter: filter.as_array().cloned().unwrap_or_default(),
            enabled_at_micros: enabled_at.map_or(i64::MAX, |at| at.timestamp_micros()),
            evaluators,
        })
        .collect())
}

/// New executions for what matched: one per (rule, evaluator, observation), recorded once.
pub(crate) struct NewExecution<'a> {
    pub rule: &'a LiveRule,
    pub found: &'a source::Found,
    pub run_id: Option<&'a str>,
}

pub(crate) async fn record(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    project: &str,
    kind: &str,
    executions: &[NewExecution<'_>],
) -> storage::Result<u64> {
    let mut ids = Vec::new();
    let (mut rules, mut evaluators, mut traces, mut spans, mut starts, mut delays, mut runs) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for e in executions {
        for evaluator in &e.rule.evaluators {
            ids.push(uuid::Uuid::now_v7().to_string());
            rules.push(e.rule.id.clone());
            evaluators.push(evaluator.clone());
            traces.push(e.found.candidate.trace_id.clone());
            spans.push(e.found.candidate.span_id.clone());
            starts.push(chrono::DateTime::from_timestamp_micros(e.found.start_micros).unwrap_or_default());
            delays.push(if e.run_id.is_some() { 0 } else { e.rule.delay_seconds });
            runs.push(e.run_id.map(str::to_owned));
        }
    }
    if ids.is_empty() {
        return Ok(0);
    }
    let done = sqlx::query(
        "INSERT INTO evaluation_executions (id, project_id, rule_id, evaluator_id, trace_id, observation_id, object_start, not_before, run_id, object_kind)
         SELECT u.id, $1, u.rule, u.evaluator, u.trace, u.span, u.start, now() + make_interval(secs => u.delay), u.run, $10
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::int[], $9::text[])
              AS u(id, rule, evaluator, trace, span, start, delay, run)
         ON CONFLICT (rule_id, evaluator_id, object_kind, observation_id) DO NOTHING",
    )
    .bind(project)
    .bind(&ids)
    .bind(&rules)
    .bind(&evaluators)
    .bind(&traces)
    .bind(&spans)
    .bind(&starts)
    .bind(&delays)
    .bind(&runs)
    .bind(kind)
    .execute(&mut **tx)
    .await?;
    Ok(done.rows_affected())
}

#[cfg(test)]
mod tests {
    #[test]
    fn sampling_is_a_stable_fraction() {
        assert!((0..200).all(|i| !super::sampled("r", &i.to_string(), 0.0)));
        assert!((0..200).all(|i| super::sampled("r", &i.to_string(), 1.0)));
        let half = (0..2000).filter(|i| super::sampled("r", &i.to_string(), 0.5)).count();
        assert!((800..1200).contains(&half), "{half}");
        assert_eq!(super::sampled("r", "x", 0.3), super::sampled("r", "x", 0.3));
    }
}
