//! The dead-letter store: queue entries the worker could not store, each a PostgreSQL row naming
//! the project, the reason and the payload's blob key (the payload stays in blob storage). Rows
//! are never deleted by Loupe; a replay marks its row and queues the job again, and a payload
//! that fails again becomes a new row.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;

use crate::Result;

/// Why a payload was dead-lettered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonClass {
    /// The queue entry holds no readable job.
    Unreadable,
    /// The payload is missing or cannot be decoded or converted.
    Undecodable,
    /// A store refused the payload's rows for a reason retrying will not fix (isolated by bisection).
    Rejected,
    /// The payload kept failing for transient reasons past the retry budget.
    RetryBudget,
}

impl ReasonClass {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unreadable => "unreadable",
            Self::Undecodable => "undecodable",
            Self::Rejected => "rejected",
            Self::RetryBudget => "retry_budget",
        }
    }
}

/// A dead letter to record.
#[derive(Debug, Clone)]
pub struct NewDeadLetter {
    pub project_id: Option<String>,
    pub entry: String,
    pub payload_kind: Option<String>,
    pub blob_key: Option<String>,
    pub job: String,
    pub reason_class: ReasonClass,
    pub reason: String,
    pub attempts: i32,
}

/// A recorded dead letter.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct DeadLetter {
    pub id: String,
    pub project_id: Option<String>,
    pub entry: String,
    pub payload_kind: Option<String>,
    pub blob_key: Option<String>,
    pub job: String,
    pub reason_class: String,
    pub reason: String,
    pub attempts: i32,
    pub created_at: DateTime<Utc>,
    pub replayed_at: Option<DateTime<Utc>>,
}

/// Records dead letters in one statement; returns their ids.
pub async fn record(pool: &PgPool, letters: &[NewDeadLetter]) -> Result<Vec<String>> {
    if letters.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<String> = letters.iter().map(|_| uuid::Uuid::now_v7().to_string()).collect();
    let column = |f: fn(&NewDeadLetter) -> Option<String>| letters.iter().map(f).collect::<Vec<_>>();
    let projects = column(|l| l.project_id.clone());
    let entries = column(|l| Some(l.entry.clone()));
    let kinds = column(|l| l.payload_kind.clone());
    let blobs = column(|l| l.blob_key.clone());
    let jobs = column(|l| Some(without_nul(&l.job)));
    let classes = column(|l| Some(l.reason_class.as_str().to_owned()));
    let reasons = column(|l| Some(without_nul(&l.reason)));
    let attempts: Vec<i32> = letters.iter().map(|l| l.attempts).collect();
    sqlx::query(
        "INSERT INTO ingestion_dead_letters \
             (id, project_id, entry, payload_kind, blob_key, job, reason_class, reason, attempts) \
         SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], \
             $7::text[], $8::text[], $9::int[])",
    )
    .bind(&ids)
    .bind(projects)
    .bind(entries)
    .bind(kinds)
    .bind(blobs)
    .bind(jobs)
    .bind(classes)
    .bind(reasons)
    .bind(attempts)
    .execute(pool)
    .await?;
    Ok(ids)
}

/// Which dead letters to list.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub project_id: Option<String>,
    /// Include those already replayed.
    pub include_replayed: bool,
}

/// Newest first, a page at a time; with the total count of the filter.
pub async fn list(pool: &PgPool, filter: &Filter, limit: i64, offset: i64) -> Result<(Vec<DeadLetter>, i64)> {
    let rows = sqlx::query_as::<_, DeadLetter>(
        "SELECT id, project_id, entry, payload_kind, blob_key, job, reason_class, reason, attempts, \
                created_at, replayed_at \
         FROM ingestion_dead_letters \
         WHERE ($1::text IS NULL OR project_id = $1) AND ($2 OR replayed_at IS NULL) \
         ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4",
    )
    .bind(&filter.project_id)
    .bind(filter.include_replayed)
    .bind(limit)
    .bind(offset)
    .fetch_all(pool)
    .await?;
    let (total,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM ingestion_dead_letters \
         WHERE ($1::text IS NULL OR project_id = $1) AND ($2 OR replayed_at IS NULL)",
    )
    .bind(&filter.project_id)
    .bind(filter.include_replayed)
    .fetch_one(pool)
    .await?;
    Ok((rows, total))
}

/// Dead letters not yet replayed, for worker health.
pub async fn open_count(pool: &PgPool) -> Result<i64> {
    let (count,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM ingestion_dead_letters WHERE replayed_at IS NULL")
            .fetch_one(pool)
            .await?;
    Ok(count)
}

/// Marks up to `limit` open dead letters as replayed and returns them, so the caller queues their
/// jobs again. Rows locked by a concurrent replay are skipped, so two replays never queue one
/// letter twice. The caller queues after the commit: a crash in between leaves a letter marked
/// but not queued, which `reopen` undoes.
pub async fn take_for_replay(
    pool: &PgPool,
    ids: Option<&[String]>,
    filter: &Filter,
    limit: i64,
) -> Result<Vec<DeadLetter>> {
    let rows = sqlx::query_as::<_, DeadLetter>(
        "UPDATE ingestion_dead_letters SET replayed_at = now() \
         WHERE id IN (SELECT id FROM ingestion_dead_letters \
                      WHERE replayed_at IS NULL AND reason_class <> 'unreadable' \
                        AND ($1::text[] IS NULL OR id = ANY($1)) \
                        AND ($2::text IS NULL OR project_id = $2) \
                      ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED) \
         RETURNING id, project_id, entry, payload_kind, blob_key, job, reason_class, reason, attempts, \
                   created_at, replayed_at",
    )
    .bind(ids)
    .bind(&filter.project_id)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    Ok(rows)
}

/// Opens replayed letters again (their job could not be queued).
pub async fn reopen(pool: &PgPool, ids: &[String]) -> Result<()> {
    sqlx::query("UPDATE ingestion_dead_letters SET replayed_at = NULL WHERE id = ANY($1)")
        .bind(ids)
        .execute(pool)
        .await?;
    Ok(())
}

/// PostgreSQL text (and jsonb) cannot hold NUL: it becomes U+FFFD. A reason quoting a poison
/// payload may contain one, and so may any client text the worker keeps in PostgreSQL.
pub fn without_nul(text: &str) -> String {
    text.replace('\0', "\u{FFFD}")
}
