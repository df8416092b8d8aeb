//! The work view's questions, asked by a signed-in person through the UI's routes: the next item to
//! annotate (locked for them, so two people working one queue are not shown the same item) and each
//! queue's progress, overall and per annotator.

use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use utoipa::ToSchema;

use super::find;
use super::items::{COLUMNS, StoredItem};
use crate::{Error, Result};

/// A lock older than this is free again: the person closed the tab or walked away.
pub const LOCK_MINUTES: i32 = 5;
/// At most this many skipped items are passed back per request.
pub const MAX_SKIPPED: usize = 500;
/// At most this many queues' progress per request.
pub const MAX_PROGRESS_QUEUES: usize = 100;

/// The body of `POST /api/ui/projects/{projectId}/annotation-queues/{queueId}/next`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NextRequest {
    /// Items the person skipped in this sitting (at most 500): not offered again.
    #[serde(default)]
    pub skipped: Vec<String>,
}

/// An item with what the work view needs to open it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkItem {
    pub id: String,
    pub object_type: String,
    pub object_id: String,
    /// The trace of a TRACE or OBSERVATION item.
    pub trace_id: Option<String>,
}

/// The answer of `…/next`: the item locked for the person (none when nothing is left for them) and
/// the queue's counts.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Next {
    pub item: Option<WorkItem>,
    pub completed: i64,
    pub total: i64,
}

/// Items one person completed in a queue.
#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct AnnotatorProgress {
    /// Null for items completed through an API key.
    pub user_id: Option<String>,
    pub name: Option<String>,
    pub completed: i64,
}

/// A person assigned to a queue.
#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct Assignee {
    pub user_id: String,
    pub name: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueProgress {
    pub queue_id: String,
    pub total: i64,
    pub completed: i64,
    pub annotators: Vec<AnnotatorProgress>,
    pub assignees: Vec<Assignee>,
}

async fn counts<'e>(db: impl sqlx::PgExecutor<'e>, queue: &str) -> Result<(i64, i64)> {
    let (total, completed): (i64, i64) = sqlx::query_as(
        "SELECT count(*), count(*) FILTER (WHERE status = 'COMPLETED') FROM annotation_queue_items WHERE queue_id = $1",
    )
    .bind(queue)
    .fetch_one(db)
    .await?;
    Ok((total, completed))
}

/// The oldest PENDING item of the queue that nobody else holds and `user` did not skip, locked for
/// `user`; their lock on any other item of the queue is released (one item at a time).
pub async fn next(
    pool: &PgPool,
    project: &str,
    queue: &str,
    user: &str,
    request: NextRequest,
) -> Result<Next> {
    if request.skipped.len() > MAX_SKIPPED {
        return Err(Error::bad_request(format!("`skipped` names at most {MAX_SKIPPED} items")));
    }
    find(pool, project, queue).await?;
    let mut tx = pool.begin().await?;
    sqlx::query(
        "UPDATE annotation_queue_items SET locked_by_user_id = NULL, locked_at = NULL \
         WHERE queue_id = $1 AND locked_by_user_id = $2",
    )
    .bind(queue)
    .bind(user)
    .execute(&mut *tx)
    .await?;
    // SKIP LOCKED: two people asking at once get different items instead of waiting on each other.
    let sql = format!(
        "SELECT {COLUMNS} FROM annotation_queue_items \
         WHERE project_id = $1 AND queue_id = $2 AND status = 'PENDING' AND NOT (id = ANY($3)) \
           AND (locked_by_user_id IS NULL OR locked_at < now() - make_interval(mins => $4)) \
         ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED"
    );
    let found: Option<StoredItem> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(queue)
        .bind(&request.skipped)
        .bind(LOCK_MINUTES)
        .fetch_optional(&mut *tx)
        .await?;
    if let Some(item) = &found {
        sqlx::query(
            "UPDATE annotation_queue_items SET locked_by_user_id = $2, locked_at = now() WHERE id = $1",
        )
        .bind(&item.id)
        .bind(user)
        .execute(&mut *tx)
        .await?;
    }
    let (total, completed) = counts(&mut *tx, queue).await?;
    tx.commit().await?;
    let item = found.map(|row| WorkItem {
        id: row.id,
        object_type: row.object_type,
        object_id: row.object_id,
        trace_id: row.trace_id,
    });
    Ok(Next { item, completed, total })
}

/// Progress of each of `queues` that is the project's (others are left out), in the order asked.
pub async fn progress(pool: &PgPool, project: &str, queues: &[String]) -> Result<Vec<QueueProgress>> {
    if queues.len() > MAX_PROGRESS_QUEUES {
        return Err(Error::bad_request(format!("`queueIds` names at most {MAX_PROGRESS_QUEUES} queues")));
    }
    let known: Vec<(String,)> =
        sqlx::query_as("SELECT id FROM annotation_queues WHERE project_id = $1 AND id = ANY($2)")
            .bind(project)
            .bind(queues)
            .fetch_all(pool)
            .await?;
    let mut out = Vec::new();
    for queue in queues.iter().filter(|q| known.iter().any(|(k,)| k == *q)) {
        let (total, completed) = counts(pool, queue).await?;
        let annotators: Vec<AnnotatorProgress> = sqlx::query_as(
            "SELECT i.completed_by_user_id AS user_id, coalesce(nullif(u.name, ''), u.email) AS name, count(*) AS completed \
             FROM annotation_queue_items i LEFT JOIN users u ON u.id = i.completed_by_user_id \
             WHERE i.queue_id = $1 AND i.status = 'COMPLETED' \
             GROUP BY 1, 2 ORDER BY 3 DESC, 2",
        )
        .bind(queue)
        .fetch_all(pool)
        .await?;
        let assignees: Vec<Assignee> = sqlx::query_as(
            "SELECT a.user_id, coalesce(nullif(u.name, ''), u.email) AS name \
             FROM annotation_queue_assignments a JOIN users u ON u.id = a.user_id \
             WHERE a.queue_id = $1 ORDER BY 2",
        )
        .bind(queue)
        .fetch_all(pool)
        .await?;
        out.push(QueueProgress { queue_id: queue.clone(), total, completed, annotators, assignees });
    }
    Ok(out)
}
