//! The operator's side of the dead-letter store (the worker fills it, `process::dead_letter`):
//! listing what failed and replaying it once the cause is fixed. Web's admin routes call these.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use storage::dead_letters::{self, Filter};
use storage::queue::{IngestionJob, IngestionQueue};

/// A payload the worker could not store.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeadLetterBody {
    pub id: String,
    /// `null` only for a queue entry without a readable job.
    pub project_id: Option<String>,
    /// `otlp_traces` or `ingestion_batch`.
    pub payload_kind: Option<String>,
    /// Where the payload is kept in the event upload bucket.
    pub blob_key: Option<String>,
    /// `unreadable`, `undecodable`, `rejected` or `retry_budget`.
    pub reason_class: String,
    pub reason: String,
    /// Deliveries of the payload before it was dead-lettered.
    pub attempts: i32,
    /// The queue entry it came from (stream and id).
    pub entry: String,
    pub created_at: DateTime<Utc>,
    /// When an operator replayed it; `null` while it waits.
    pub replayed_at: Option<DateTime<Utc>>,
}

impl From<dead_letters::DeadLetter> for DeadLetterBody {
    fn from(row: dead_letters::DeadLetter) -> Self {
        Self {
            id: row.id,
            project_id: row.project_id,
            payload_kind: row.payload_kind,
            blob_key: row.blob_key,
            reason_class: row.reason_class,
            reason: row.reason,
            attempts: row.attempts,
            entry: row.entry,
            created_at: row.created_at,
            replayed_at: row.replayed_at,
        }
    }
}

/// A page of dead letters, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeadLetterPage {
    pub data: Vec<DeadLetterBody>,
    pub meta: PageMeta,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageMeta {
    pub page: i64,
    pub limit: i64,
    pub total_items: i64,
    pub total_pages: i64,
}

/// What to replay: the letters named, or else the open letters of a project (or of all), oldest first.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReplayRequest {
    /// Dead letters by id.
    #[serde(default)]
    pub ids: Option<Vec<String>>,
    /// Only this project's letters.
    #[serde(default)]
    pub project_id: Option<String>,
    /// At most this many (1 to 1,000; 100 by default).
    #[serde(default)]
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplayResult {
    /// Letters whose payload is queued again; a payload that fails again becomes a new letter.
    pub replayed: Vec<String>,
}

/// Why a dead-letter request was refused.
#[derive(Debug, thiserror::Error)]
pub enum DeadLetterError {
    #[error("{0}")]
    BadRequest(String),
    #[error(transparent)]
    Storage(#[from] storage::Error),
}

pub const MAX_PAGE_SIZE: i64 = 100;
pub const MAX_REPLAY: i64 = 1_000;

/// Lists dead letters, page `page` (1-based) of `limit`.
pub async fn list(
    postgres: &sqlx::PgPool,
    project_id: Option<String>,
    include_replayed: bool,
    page: i64,
    limit: i64,
) -> Result<DeadLetterPage, DeadLetterError> {
    if page < 1 {
        return Err(DeadLetterError::BadRequest("page must be at least 1".to_owned()));
    }
    if !(1..=MAX_PAGE_SIZE).contains(&limit) {
        return Err(DeadLetterError::BadRequest(format!("limit must be between 1 and {MAX_PAGE_SIZE}")));
    }
    let filter = Filter { project_id, include_replayed };
    let offset = (page - 1).saturating_mul(limit);
    let (rows, total) = dead_letters::list(postgres, &filter, limit, offset).await?;
    Ok(DeadLetterPage {
        data: rows.into_iter().map(DeadLetterBody::from).collect(),
        meta: PageMeta { page, limit, total_items: total, total_pages: (total + limit - 1) / limit },
    })
}

/// Queues the chosen letters' payloads again and marks them replayed. A letter whose job cannot
/// be queued (Redis unreachable) is opened again, and the error returned.
pub async fn replay(
    postgres: &sqlx::PgPool,
    queue: &IngestionQueue,
    request: ReplayRequest,
) -> Result<ReplayResult, DeadLetterError> {
    let limit = request.limit.unwrap_or(100);
    if !(1..=MAX_REPLAY).contains(&limit) {
        return Err(DeadLetterError::BadRequest(format!("limit must be between 1 and {MAX_REPLAY}")));
    }
    let filter = Filter { project_id: request.project_id, include_replayed: false };
    let taken = dead_letters::take_for_replay(postgres, request.ids.as_deref(), &filter, limit).await?;
    let mut replayed = Vec::with_capacity(taken.len());
    for (index, letter) in taken.iter().enumerate() {
        let queued = match serde_json::from_str::<IngestionJob>(&letter.job) {
            Ok(job) => queue.requeue(&job).await,
            Err(error) => {
                // Written by the worker from a job it had read: cannot happen short of a bug.
                tracing::error!(dead_letter = %letter.id, %error, "dead letter holds no job; left open");
                dead_letters::reopen(postgres, std::slice::from_ref(&letter.id)).await?;
                continue;
            }
        };
        if let Err(error) = queued {
            let left: Vec<String> = taken[index..].iter().map(|l| l.id.clone()).collect();
            dead_letters::reopen(postgres, &left).await?;
            return Err(error.into());
        }
        tracing::info!(dead_letter = %letter.id, project_id = letter.project_id.as_deref().unwrap_or("-"), "dead letter replayed");
        replayed.push(letter.id.clone());
    }
    Ok(ReplayResult { replayed })
}
