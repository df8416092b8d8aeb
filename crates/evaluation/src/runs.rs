//! A rule run once over a time range of existing observations (Loupe's route
//! `POST /api/public/v2/evaluation-rules/{id}/runs`, `GET …/runs/{runId}`): the worker scans the
//! observations that started in `[fromTimestamp, toTimestamp)` in chunks, records executions for
//! those that match (skipping any the rule already evaluated), and the run reports its progress.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use sqlx::PgPool;
use tokio_util::sync::CancellationToken;
use utoipa::ToSchema;

use crate::engine::{Engine, NewExecution, record, rules_of, sampled, source};
use crate::error::{Code, Error, Issues, Result};
use crate::{filter, path};

/// Observations read per chunk of a run.
const CHUNK: u64 = 1_000;

#[derive(Debug, Default, Serialize, ToSchema)]
pub struct ExecutionCounts {
    pub pending: i64,
    pub running: i64,
    pub completed: i64,
    pub error: i64,
}

/// A run and how far it is.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunBody {
    pub id: String,
    pub evaluation_rule_id: String,
    pub from_timestamp: DateTime<Utc>,
    pub to_timestamp: DateTime<Utc>,
    /// `scanning` (matching observations), `running` (executions outstanding), `completed`, `failed`.
    pub status: String,
    /// Observations in the range (known once the scan starts), and how many were read.
    pub total: Option<i64>,
    pub scanned: i64,
    /// Executions this run recorded, by status.
    pub executions: ExecutionCounts,
    /// 0 to 1: half for the scan, half for the executions.
    pub progress: f64,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

fn timestamp(body: &Value, key: &str, issues: &mut Issues) -> Option<DateTime<Utc>> {
    let parsed = body.get(key).and_then(Value::as_str).and_then(|t| DateTime::parse_from_rfc3339(t).ok());
    if parsed.is_none() {
        issues.add(&path![key], "invalid_type", format!("{key} must be an ISO 8601 timestamp"));
    }
    parsed.map(|t| t.with_timezone(&Utc))
}

pub async fn create(db: &PgPool, project: &str, rule: &str, body: &Value) -> Result<RunBody> {
    let mut issues = Issues::default();
    let from = timestamp(body, "fromTimestamp", &mut issues);
    let to = timestamp(body, "toTimestamp", &mut issues);
    if let (Some(from), Some(to)) = (from, to)
        && from >= to
    {
        issues.add(&path!["toTimestamp"], "custom", "toTimestamp must be after fromTimestamp");
    }
    issues.finish()?;
    let target: Option<(String, i64)> = sqlx::query_as(
        "SELECT r.target, (SELECT count(*) FROM evaluation_rule_evaluators a WHERE a.rule_id = r.id)
         FROM evaluation_rules r WHERE r.project_id = $1 AND r.id = $2",
    )
    .bind(project)
    .bind(rule)
    .fetch_optional(db)
    .await?;
    match target {
        None => return Err(Error::not_found(format!("Evaluation rule {rule} not found"))),
        Some((target, _)) if target != "observation" => {
            return Err(Error::refused(Code::InvalidRequest, "Only observation-level rules can be run over a time range"));
        }
        Some((_, 0)) => return Err(Error::refused(Code::InvalidRequest, "The rule has no evaluator to run")),
        Some(_) => {}
    }
    let id = uuid::Uuid::now_v7().to_string();
    sqlx::query("INSERT INTO evaluation_runs (id, project_id, rule_id, from_ts, to_ts) VALUES ($1, $2, $3, $4, $5)")
        .bind(&id)
        .bind(project)
        .bind(rule)
        .bind(from)
        .bind(to)
        .execute(db)
        .await?;
    get(db, project, rule, &id).await
}

pub async fn get(db: &PgPool, project: &str, rule: &str, id: &str) -> Result<RunBody> {
    #[allow(clippy::type_complexity)]
    let row: Option<(String, DateTime<Utc>, DateTime<Utc>, String, Option<i64>, i64, Option<String>, DateTime<Utc>, Option<DateTime<Utc>>)> =
        sqlx::query_as(
            "SELECT rule_id, from_ts, to_ts, status, total, scanned, error, created_at, finished_at
             FROM evaluation_runs WHERE project_id = $1 AND rule_id = $2 AND id = $3",
        )
        .bind(project)
        .bind(rule)
        .bind(id)
        .fetch_optional(db)
        .await?;
    let (rule_id, from, to, status, total, scanned, error, created_at, finished_at) =
        row.ok_or_else(|| Error::not_found(format!("Run {id} not found")))?;
    let counts: Vec<(String, i64)> =
        sqlx::query_as("SELECT status, count(*) FROM evaluation_executions WHERE run_id = $1 GROUP BY status")
            .bind(id)
            .fetch_all(db)
            .await?;
    let mut executions = ExecutionCounts::default();
    for (status, n) in counts {
        match status.as_str() {
            "pending" => executions.pending = n,
            "running" => executions.running = n,
            "completed" => executions.completed = n,
            _ => executions.error += n,
        }
    }
    let scan = match (status.as_str(), total) {
        ("scanning", Some(t)) if t > 0 => (scanned as f64 / t as f64).min(1.0),
        ("scanning", _) => 0.0,
        _ => 1.0,
    };
    let all = executions.pending + executions.running + executions.completed + executions.error;
    let done = if all == 0 { 1.0 } else { (executions.completed + executions.error) as f64 / all as f64 };
    let progress = if status == "completed" { 1.0 } else if status == "scanning" { scan / 2.0 } else { 0.5 + done / 2.0 };
    Ok(RunBody {
        id: id.to_owned(),
        evaluation_rule_id: rule_id,
        from_timestamp: from,
        to_timestamp: to,
        status,
        total,
        scanned,
        executions,
        progress,
        error,
        created_at,
        finished_at,
    })
}

/// The worker's part: scans open runs chunk by chunk, and closes runs whose executions are done.
pub(crate) async fn run(engine: Engine, shutdown: CancellationToken) {
    loop {
        match step(&engine).await {
            Ok(true) => continue,
            Ok(false) => {}
            Err(error) => tracing::warn!(%error, "evaluations: a run's step failed; retrying"),
        }
        if !engine.idle(&shutdown).await {
            return;
        }
    }
}

/// One chunk of one scanning run (leased, so two workers never scan the same run), then the
/// closing of finished runs. True when a chunk was scanned (more may follow at once).
async fn step(engine: &Engine) -> storage::Result<bool> {
    let db = &engine.postgres;
    sqlx::query(
        "UPDATE evaluation_runs r SET status = 'completed', finished_at = now()
         WHERE status = 'running' AND NOT EXISTS (
             SELECT 1 FROM evaluation_executions e WHERE e.run_id = r.id AND e.status IN ('pending', 'running'))",
    )
    .execute(db)
    .await?;
    let mut tx = db.begin().await?;
    #[allow(clippy::type_complexity)]
    let claimed: Option<(String, String, String, DateTime<Utc>, DateTime<Utc>, Option<DateTime<Utc>>, String, Option<i64>)> = sqlx::query_as(
        "SELECT id, project_id, rule_id, from_ts, to_ts, cursor_time, coalesce(cursor_id, ''), total FROM evaluation_runs
         WHERE status = 'scanning' AND (lease_until IS NULL OR lease_until < now() OR lease_owner = $1)
         ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED",
    )
    .bind(&engine.holder)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((id, project, rule_id, from, to, cursor_time, cursor_id, total)) = claimed else { return Ok(false) };
    sqlx::query("UPDATE evaluation_runs SET lease_owner = $2, lease_until = now() + interval '5 minutes' WHERE id = $1")
        .bind(&id)
        .bind(&engine.holder)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    let range = (from.timestamp_micros(), to.timestamp_micros());
    if total.is_none() {
        let n = source::count_started_between(&engine.clickhouse, &project, range).await?;
        sqlx::query("UPDATE evaluation_runs SET total = $2 WHERE id = $1").bind(&id).bind(n as i64).execute(db).await?;
    }
    let Some(rule) = rules_of(db, &project, Some(&rule_id)).await?.into_iter().next() else { return Ok(false) };
    let after = (cursor_time.map_or(i64::MIN, |t| t.timestamp_micros()), cursor_id);
    let found = source::started_between(&engine.clickhouse, &project, range, (after.0, &after.1), CHUNK).await?;
    let matched: Vec<NewExecution<'_>> = found
        .iter()
        .filter(|f| !f.candidate.environment.starts_with(source::INTERNAL_ENVIRONMENT_PREFIX))
        .filter(|f| filter::matches(&rule.filter, &f.candidate) && sampled(&rule.id, &f.candidate.span_id, rule.sampling))
        .map(|found| NewExecution { rule: &rule, found, run_id: Some(&id) })
        .collect();
    let mut tx = db.begin().await?;
    record(&mut tx, &project, &matched).await?;
    let last = found.last().map(|f| (DateTime::from_timestamp_micros(f.start_micros).unwrap_or_default(), f.candidate.span_id.clone()));
    let finished = (found.len() as u64) < CHUNK;
    sqlx::query(
        "UPDATE evaluation_runs SET scanned = scanned + $2,
            cursor_time = coalesce($3, cursor_time), cursor_id = coalesce($4, cursor_id),
            status = CASE WHEN $5 THEN 'running' ELSE status END,
            lease_until = CASE WHEN $5 THEN NULL ELSE lease_until END
         WHERE id = $1",
    )
    .bind(&id)
    .bind(found.len() as i64)
    .bind(last.as_ref().map(|l| l.0))
    .bind(last.map(|l| l.1))
    .bind(finished)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(!finished)
}
