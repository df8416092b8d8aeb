//! A rule's executions, newest first (Loupe's `GET /api/public/v2/evaluation-rules/{id}/executions`):
//! what the UI shows under a rule — each judged object, its status (`pending`, `running`,
//! `completed`, `error` with the provider's message, `cancelled`), and the links to the score's
//! object and to the judge's own trace.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::{Code, Error, Result};
use crate::page::{self, CursorPage, PageQuery};

#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionBody {
    pub id: String,
    pub evaluator_id: Option<String>,
    pub evaluator_version_id: Option<String>,
    /// Set when a run over a time range recorded it; `null` for live executions.
    pub run_id: Option<String>,
    /// `observation` or `trace`: what the score is on.
    pub object_kind: String,
    pub trace_id: String,
    pub observation_id: String,
    pub status: String,
    pub attempts: i32,
    /// The provider's (or the engine's) message when `status` is `error`.
    pub error: Option<String>,
    pub score_id: Option<String>,
    /// The judge call's own trace (environment `langfuse-llm-as-a-judge`).
    pub execution_trace_id: Option<String>,
    pub not_before: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
}

const STATUSES: [&str; 5] = ["pending", "running", "completed", "error", "cancelled"];

/// `status` from the query string, when given: one of `STATUSES`.
pub fn parse_status(query: Option<&str>) -> Result<Option<String>> {
    let value = query
        .unwrap_or_default()
        .split('&')
        .find_map(|pair| pair.strip_prefix("status="))
        .filter(|v| !v.is_empty());
    match value {
        None => Ok(None),
        Some(v) if STATUSES.contains(&v) => Ok(Some(v.to_owned())),
        Some(_) => {
            Err(Error::refused(Code::InvalidQuery, format!("status must be one of {}", STATUSES.join(", "))))
        }
    }
}

pub async fn list(
    db: &sqlx::PgPool,
    project: &str,
    rule: &str,
    status: Option<&str>,
    query: &PageQuery,
) -> Result<CursorPage<ExecutionBody>> {
    let known: Option<(i32,)> =
        sqlx::query_as("SELECT 1 FROM evaluation_rules WHERE project_id = $1 AND id = $2")
            .bind(project)
            .bind(rule)
            .fetch_optional(db)
            .await?;
    if known.is_none() {
        return Err(Error::not_found(format!("Evaluation rule {rule} not found")));
    }
    let (after_micros, after_id) = match &query.after {
        Some(key) => {
            let (micros, id) = page::split_key(key)?;
            (DateTime::from_timestamp_micros(micros), id.to_owned())
        }
        None => (None, String::new()),
    };
    // `evaluation_executions_rule_idx` (rule_id, created_at DESC) serves this order.
    let rows: Vec<ExecutionBody> = sqlx::query_as(
        "SELECT id, evaluator_id, evaluator_version_id, run_id, object_kind, trace_id, observation_id,
                status, attempts, error, score_id, execution_trace_id, not_before, created_at,
                started_at, finished_at
           FROM evaluation_executions
          WHERE project_id = $1 AND rule_id = $2
            AND ($3::text IS NULL OR status = $3)
            AND ($4::timestamptz IS NULL OR (created_at, id) < ($4, $5))
          ORDER BY created_at DESC, id DESC LIMIT $6",
    )
    .bind(project)
    .bind(rule)
    .bind(status)
    .bind(after_micros)
    .bind(&after_id)
    .bind(query.limit + 1)
    .fetch_all(db)
    .await?;
    Ok(page::finish(rows, query.limit, |r| format!("{}:{}", r.created_at.timestamp_micros(), r.id), |r| r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_filter_is_checked() {
        assert_eq!(parse_status(None).unwrap(), None);
        assert_eq!(parse_status(Some("limit=5&status=error")).unwrap().as_deref(), Some("error"));
        assert!(parse_status(Some("status=done")).is_err());
    }
}
