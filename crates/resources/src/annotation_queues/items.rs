//! The items of a queue: one trace, observation or session each, PENDING until someone completes
//! it. Adding an object checks that it exists in the project (as comments do) and keeps the trace
//! it belongs to, so the work view can open it; adding one that is already in the queue answers the
//! item it already has.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use utoipa::ToSchema;

use reads::Params;
use reads::exists::{Object, exists};
use reads::params::PageRequest;
use reads::sql::{Sql, all_of, equals, project as in_project};
use storage::clickhouse::ClickHouse;

use super::{find, queue_not_found};
use crate::timestamp;
use crate::{Error, Page, Result};

/// What an item can name (the SDK's `AnnotationQueueObjectType`).
pub const OBJECT_TYPES: [&str; 3] = ["TRACE", "OBSERVATION", "SESSION"];
/// The SDK's `AnnotationQueueStatus`.
pub const STATUSES: [&str; 2] = ["PENDING", "COMPLETED"];
pub const MAX_ITEMS: i64 = 50_000;
pub const MAX_OBJECT_ID_CHARS: usize = 255;

/// The body of `POST …/{queueId}/items` (the SDK's `CreateAnnotationQueueItemRequest`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewItem {
    /// At most 255 characters.
    pub object_id: String,
    /// `TRACE`, `OBSERVATION` or `SESSION`.
    pub object_type: String,
    /// `PENDING` (the default) or `COMPLETED`.
    #[serde(default)]
    pub status: Option<String>,
}

/// The body of `PATCH …/items/{itemId}` (the SDK's `UpdateAnnotationQueueItemRequest`).
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct ItemPatch {
    #[serde(default)]
    pub status: Option<String>,
}

/// The SDK's `AnnotationQueueItem`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnnotationQueueItem {
    pub id: String,
    pub queue_id: String,
    pub object_id: String,
    pub object_type: String,
    pub status: String,
    pub completed_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// The SDK's `DeleteAnnotationQueueItemResponse`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeletedItem {
    pub success: bool,
    pub message: String,
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct StoredItem {
    pub id: String,
    pub queue_id: String,
    pub object_type: String,
    pub object_id: String,
    pub trace_id: Option<String>,
    pub status: String,
    pub completed_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

pub(crate) const COLUMNS: &str =
    "id, queue_id, object_type, object_id, trace_id, status, completed_at, created_at, updated_at";

impl From<StoredItem> for AnnotationQueueItem {
    fn from(row: StoredItem) -> Self {
        Self {
            id: row.id,
            queue_id: row.queue_id,
            object_id: row.object_id,
            object_type: row.object_type,
            status: row.status,
            completed_at: row.completed_at.as_ref().map(timestamp),
            created_at: timestamp(&row.created_at),
            updated_at: timestamp(&row.updated_at),
        }
    }
}

fn item_not_found() -> Error {
    Error::not_found("Annotation queue item not found within authorized project")
}

fn one_of(field: &str, known: &[&'static str], raw: &str) -> Result<&'static str> {
    known.iter().copied().find(|k| *k == raw).ok_or_else(|| {
        Error::bad_request(format!("`{field}` must be one of {}, got `{raw}`", known.join(", ")))
    })
}

pub fn status(raw: &str) -> Result<&'static str> {
    one_of("status", &STATUSES, raw)
}

fn checked(new: &NewItem) -> Result<(&'static str, &'static str)> {
    let kind = one_of("objectType", &OBJECT_TYPES, &new.object_type)?;
    if new.object_id.trim().is_empty() {
        return Err(Error::bad_request("`objectId` must not be empty"));
    }
    if new.object_id.chars().count() > MAX_OBJECT_ID_CHARS {
        return Err(Error::bad_request(format!(
            "`objectId` must be at most {MAX_OBJECT_ID_CHARS} characters long"
        )));
    }
    Ok((kind, new.status.as_deref().map(status).transpose()?.unwrap_or("PENDING")))
}

/// The trace an object belongs to (`None` for a session), or 404 when it is not in the project.
/// An observation is looked up in both data models, as [`exists`] does.
async fn trace_of(clickhouse: &ClickHouse, project: &str, kind: &str, id: &str) -> Result<Option<String>> {
    let missing = || Error::not_found(format!("No {kind} with id `{id}` in this project"));
    match kind {
        "TRACE" => exists(clickhouse, project, Object::Trace, id)
            .await?
            .then(|| Some(id.to_owned()))
            .ok_or_else(missing),
        "SESSION" => {
            exists(clickhouse, project, Object::Session, id).await?.then_some(None).ok_or_else(missing)
        }
        _ => {
            let mut sql = Sql::new("SELECT trace_id FROM (");
            for (index, (table, column)) in
                [("observations", "id"), ("events_core", "span_id")].into_iter().enumerate()
            {
                if index > 0 {
                    sql.push(" UNION ALL ");
                }
                sql.push(&format!("(SELECT trace_id FROM {table} WHERE "))
                    .append(&all_of(&[in_project(project), equals(column, id)]))
                    .push(" LIMIT 1)");
            }
            sql.push(") LIMIT 1");
            let rows = sql.fetch_json(clickhouse).await?;
            let trace = rows.first().and_then(|row| row.get("trace_id")).and_then(|v| v.as_str());
            trace.map(|t| Some(t.to_owned())).ok_or_else(missing)
        }
    }
}

/// `POST /api/public/annotation-queues/{queueId}/items`.
pub async fn create(
    pool: &PgPool,
    clickhouse: &ClickHouse,
    project: &str,
    queue: &str,
    new: NewItem,
) -> Result<AnnotationQueueItem> {
    let (kind, status) = checked(&new)?;
    find(pool, project, queue).await?;
    let trace = trace_of(clickhouse, project, kind, &new.object_id).await?;
    let mut tx = pool.begin().await?;
    // Locks the queue row: concurrent adds to one queue count and insert one after the other.
    let locked: Option<(i32,)> =
        sqlx::query_as("SELECT 1 FROM annotation_queues WHERE project_id = $1 AND id = $2 FOR UPDATE")
            .bind(project)
            .bind(queue)
            .fetch_optional(&mut *tx)
            .await?;
    locked.ok_or_else(queue_not_found)?;
    let existing = format!(
        "SELECT {COLUMNS} FROM annotation_queue_items WHERE queue_id = $1 AND object_type = $2 AND object_id = $3"
    );
    let already: Option<StoredItem> = sqlx::query_as(sqlx::AssertSqlSafe(existing))
        .bind(queue)
        .bind(kind)
        .bind(&new.object_id)
        .fetch_optional(&mut *tx)
        .await?;
    if let Some(item) = already {
        return Ok(item.into());
    }
    let (count,): (i64,) = sqlx::query_as("SELECT count(*) FROM annotation_queue_items WHERE queue_id = $1")
        .bind(queue)
        .fetch_one(&mut *tx)
        .await?;
    if count >= MAX_ITEMS {
        return Err(Error::bad_request(format!("A queue holds at most {MAX_ITEMS} items")));
    }
    let sql = format!(
        "INSERT INTO annotation_queue_items (id, project_id, queue_id, object_type, object_id, trace_id, status, completed_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $7 = 'COMPLETED' THEN now() END) RETURNING {COLUMNS}"
    );
    let row: StoredItem = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(uuid::Uuid::new_v4().to_string())
        .bind(project)
        .bind(queue)
        .bind(kind)
        .bind(&new.object_id)
        .bind(trace)
        .bind(status)
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(row.into())
}

/// `GET …/{queueId}/items?status=&page=&limit=`, oldest first (the order they are worked in).
pub async fn list(
    pool: &PgPool,
    project: &str,
    queue: &str,
    params: &Params,
) -> Result<Page<AnnotationQueueItem>> {
    let page = PageRequest::parse(params)?;
    let wanted = params.get("status").map(status).transpose()?;
    find(pool, project, queue).await?;
    const FILTER: &str = "project_id = $1 AND queue_id = $2 AND ($3::text IS NULL OR status = $3)";
    let (total,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM annotation_queue_items WHERE {FILTER}"
    )))
    .bind(project)
    .bind(queue)
    .bind(wanted)
    .fetch_one(pool)
    .await?;
    let sql = format!(
        "SELECT {COLUMNS} FROM annotation_queue_items WHERE {FILTER} ORDER BY created_at, id LIMIT $4 OFFSET $5"
    );
    let rows: Vec<StoredItem> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(queue)
        .bind(wanted)
        .bind(page.limit)
        .bind(page.offset())
        .fetch_all(pool)
        .await?;
    Ok(Page::new(rows.into_iter().map(AnnotationQueueItem::from).collect(), &page, total))
}

/// `GET …/{queueId}/items/{itemId}`.
pub async fn get(pool: &PgPool, project: &str, queue: &str, id: &str) -> Result<AnnotationQueueItem> {
    let sql = format!(
        "SELECT {COLUMNS} FROM annotation_queue_items WHERE project_id = $1 AND queue_id = $2 AND id = $3"
    );
    let row: Option<StoredItem> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(queue)
        .bind(id)
        .fetch_optional(pool)
        .await?;
    row.map(AnnotationQueueItem::from).ok_or_else(item_not_found)
}

/// `PATCH …/{queueId}/items/{itemId}`: sets the status. Completing records when and by whom (a
/// signed-in person: `by`; an API key: nobody) and releases the item's lock; back to PENDING clears both.
pub async fn update(
    pool: &PgPool,
    project: &str,
    queue: &str,
    id: &str,
    patch: ItemPatch,
    by: Option<&str>,
) -> Result<AnnotationQueueItem> {
    let Some(raw) = patch.status else {
        return get(pool, project, queue, id).await;
    };
    let wanted = status(&raw)?;
    let sql = format!(
        "UPDATE annotation_queue_items SET status = $4, updated_at = now(), \
           completed_at = CASE WHEN $4 = 'COMPLETED' THEN coalesce(completed_at, now()) END, \
           completed_by_user_id = CASE WHEN $4 = 'COMPLETED' THEN $5 END, \
           locked_by_user_id = NULL, locked_at = NULL \
         WHERE project_id = $1 AND queue_id = $2 AND id = $3 RETURNING {COLUMNS}"
    );
    let row: Option<StoredItem> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(queue)
        .bind(id)
        .bind(wanted)
        .bind(by)
        .fetch_optional(pool)
        .await?;
    row.map(AnnotationQueueItem::from).ok_or_else(item_not_found)
}

/// `DELETE …/{queueId}/items/{itemId}`.
pub async fn delete(pool: &PgPool, project: &str, queue: &str, id: &str) -> Result<DeletedItem> {
    let deleted =
        sqlx::query("DELETE FROM annotation_queue_items WHERE project_id = $1 AND queue_id = $2 AND id = $3")
            .bind(project)
            .bind(queue)
            .bind(id)
            .execute(pool)
            .await?;
    if deleted.rows_affected() == 0 {
        return Err(item_not_found());
    }
    Ok(DeletedItem { success: true, message: "Successfully deleted annotation queue item".to_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(object_type: &str, object_id: &str, status: Option<&str>) -> NewItem {
        NewItem {
            object_id: object_id.to_owned(),
            object_type: object_type.to_owned(),
            status: status.map(str::to_owned),
        }
    }

    #[test]
    fn an_item_names_a_known_object_type_and_status() {
        assert_eq!(checked(&item("TRACE", "t", None)).unwrap(), ("TRACE", "PENDING"));
        assert_eq!(checked(&item("SESSION", "s", Some("COMPLETED"))).unwrap(), ("SESSION", "COMPLETED"));
        let refusal = |new: NewItem| checked(&new).unwrap_err().to_string();
        assert!(
            refusal(item("PROMPT", "p", None))
                .contains("`objectType` must be one of TRACE, OBSERVATION, SESSION")
        );
        assert!(refusal(item("TRACE", " ", None)).contains("`objectId` must not be empty"));
        assert!(refusal(item("TRACE", &"x".repeat(256), None)).contains("at most 255"));
        assert!(
            refusal(item("TRACE", "t", Some("done"))).contains("`status` must be one of PENDING, COMPLETED")
        );
    }
}
