//! A rule run once over a time range of existing observations (Loupe's route
//! `POST /api/public/v2/evaluation-rules/{id}/runs`, `GET …/runs/{runId}`): the worker scans the
//! observations that started in `[fromTimestamp, toTimestamp)` in chunks, records executions for
//! those that match (skipping any the rule already evaluated), and the run reports its progress.
//! The worker's side is `engine::runs`.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use sqlx::PgPool;
use utoipa::ToSchema;

use crate::error::{Code, Error, Issues, Result};
use crate::path;

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
            return Err(Error::refused(
                Code::InvalidRequest,
                "Only observation-level rules can be run over a time range",
            ));
        }
        Some((_, 0)) => return Err(Error::refused(Code::InvalidRequest, "The rule has no evaluator to run")),
        Some(_) => {}
    }
    let id = uuid::Uuid::now_v7().to_string();
    sqlx::query(
        "INSERT INTO evaluation_runs (id, project_id, rule_id, from_ts, to_ts) VALUES ($1, $2, $3, $4, $5)",
    )
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
    let row: Option<(
        String,
        DateTime<Utc>,
        DateTime<Utc>,
        String,
        Option<i64>,
        i64,
        Option<String>,
        DateTime<Utc>,
        Option<DateTime<Utc>>,
    )> = sqlx::query_as(
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
    let counts: Vec<(String, i64)> = sqlx::query_as(
        "SELECT status, count(*) FROM evaluation_executions WHERE run_id = $1 GROUP BY status",
    )
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
    let progress = if status == "completed" {
        1.0
    } else if status == "scanning" {
        scan / 2.0
    } else {
        0.5 + done / 2.0
    };
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
