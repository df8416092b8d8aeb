//! Annotation queues (`/api/public/annotation-queues`): lists of a project's traces, observations
//! and sessions for people to score with the queue's score configs. Queues are created and read
//! here; their items (with the lock that says who is working on one) in [`items`], the people
//! assigned to a queue in [`assignments`], and the work view's questions (the next item, progress
//! per annotator) in [`work`].
//!
//! Bounds: a name of at most [`MAX_NAME_CHARS`] characters, a description of at most
//! [`MAX_DESCRIPTION_CHARS`], 1 to [`MAX_SCORE_CONFIGS`] score configs, [`MAX_QUEUES`] queues per
//! project and [`items::MAX_ITEMS`] items per queue.

pub mod assignments;
pub mod items;
pub mod work;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use utoipa::ToSchema;

use reads::Params;
use reads::params::PageRequest;

use crate::page::{count_in_project, project_page};
use crate::timestamp;
use crate::{Error, Page, Result};

pub const MAX_NAME_CHARS: usize = 255;
pub const MAX_DESCRIPTION_CHARS: usize = 2_000;
pub const MAX_SCORE_CONFIGS: usize = 20;
pub const MAX_QUEUES: i64 = 1_000;

/// The body of `POST /api/public/annotation-queues` (the SDK's `CreateAnnotationQueueRequest`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewQueue {
    /// At most 255 characters, unique in the project.
    pub name: String,
    /// At most 2 000 characters.
    #[serde(default)]
    pub description: Option<String>,
    /// 1 to 20 ids of the project's score configs.
    pub score_config_ids: Vec<String>,
}

/// The SDK's `AnnotationQueue`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnnotationQueue {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub score_config_ids: Vec<String>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, sqlx::FromRow)]
struct StoredQueue {
    id: String,
    name: String,
    description: Option<String>,
    score_config_ids: Vec<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

const COLUMNS: &str = "id, name, description, score_config_ids, created_at, updated_at";

impl From<StoredQueue> for AnnotationQueue {
    fn from(row: StoredQueue) -> Self {
        Self {
            id: row.id,
            name: row.name,
            description: row.description,
            score_config_ids: row.score_config_ids,
            created_at: timestamp(&row.created_at),
            updated_at: timestamp(&row.updated_at),
        }
    }
}

pub(crate) fn queue_not_found() -> Error {
    Error::not_found("Annotation queue not found within authorized project")
}

/// The rules of a new queue, before anything is looked up: trimmed name and description.
fn checked(new: &NewQueue) -> Result<(String, Option<String>)> {
    let name = new.name.trim();
    if name.is_empty() {
        return Err(Error::bad_request("`name` must not be empty"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(Error::bad_request(format!("`name` must be at most {MAX_NAME_CHARS} characters long")));
    }
    let description = new.description.as_deref().map(str::trim).filter(|d| !d.is_empty());
    if description.is_some_and(|d| d.chars().count() > MAX_DESCRIPTION_CHARS) {
        return Err(Error::bad_request(format!(
            "`description` must be at most {MAX_DESCRIPTION_CHARS} characters long"
        )));
    }
    let count = new.score_config_ids.len();
    if count == 0 || count > MAX_SCORE_CONFIGS {
        return Err(Error::bad_request(format!(
            "`scoreConfigIds` must name 1 to {MAX_SCORE_CONFIGS} score configs, got {count}"
        )));
    }
    Ok((name.to_owned(), description.map(str::to_owned)))
}

/// `POST /api/public/annotation-queues`. Every score config must be the project's (400 naming the
/// ones that are not); a name already used in the project is a 409.
pub async fn create(pool: &PgPool, project: &str, new: NewQueue) -> Result<AnnotationQueue> {
    let (name, description) = checked(&new)?;
    let mut ids: Vec<String> = Vec::with_capacity(new.score_config_ids.len());
    for id in new.score_config_ids {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let (found,): (Vec<String>,) = sqlx::query_as(
        "SELECT coalesce(array_agg(id), '{}') FROM score_configs WHERE project_id = $1 AND id = ANY($2)",
    )
    .bind(project)
    .bind(&ids)
    .fetch_one(pool)
    .await?;
    let missing: Vec<&str> = ids.iter().filter(|id| !found.contains(id)).map(String::as_str).collect();
    if !missing.is_empty() {
        return Err(Error::bad_request(format!(
            "No score config with id {} in this project",
            missing.iter().map(|id| format!("`{id}`")).collect::<Vec<_>>().join(", ")
        )));
    }
    let mut tx = pool.begin().await?;
    // Serializes creations per project so the count below cannot be raced past.
    sqlx::query("SELECT 1 FROM projects WHERE id = $1 FOR UPDATE").bind(project).execute(&mut *tx).await?;
    let count = count_in_project(&mut *tx, "annotation_queues", project).await?;
    if count >= MAX_QUEUES {
        return Err(Error::bad_request(format!("A project has at most {MAX_QUEUES} annotation queues")));
    }
    let sql = format!(
        "INSERT INTO annotation_queues (id, project_id, name, description, score_config_ids) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (project_id, name) DO NOTHING RETURNING {COLUMNS}"
    );
    let row: Option<StoredQueue> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(uuid::Uuid::new_v4().to_string())
        .bind(project)
        .bind(&name)
        .bind(&description)
        .bind(&ids)
        .fetch_optional(&mut *tx)
        .await?;
    let row =
        row.ok_or_else(|| Error::Conflict(format!("An annotation queue named `{name}` already exists")))?;
    tx.commit().await?;
    Ok(row.into())
}

/// One queue of `project`.
pub(crate) async fn find<'e>(
    db: impl sqlx::PgExecutor<'e>,
    project: &str,
    id: &str,
) -> Result<AnnotationQueue> {
    let sql = format!("SELECT {COLUMNS} FROM annotation_queues WHERE project_id = $1 AND id = $2");
    let row: Option<StoredQueue> =
        sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(id).fetch_optional(db).await?;
    row.map(AnnotationQueue::from).ok_or_else(queue_not_found)
}

/// `GET /api/public/annotation-queues/{queueId}`.
pub async fn get(pool: &PgPool, project: &str, id: &str) -> Result<AnnotationQueue> {
    find(pool, project, id).await
}

/// `GET /api/public/annotation-queues?page=&limit=`, newest first.
pub async fn list(pool: &PgPool, project: &str, params: &Params) -> Result<Page<AnnotationQueue>> {
    let page = PageRequest::parse(params)?;
    let (rows, total): (Vec<StoredQueue>, _) =
        project_page(pool, "annotation_queues", COLUMNS, "created_at DESC, id", project, &page).await?;
    Ok(Page::new(rows.into_iter().map(AnnotationQueue::from).collect(), &page, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue(name: &str, configs: usize) -> NewQueue {
        NewQueue {
            name: name.to_owned(),
            description: Some("  ".to_owned()),
            score_config_ids: (0..configs).map(|i| format!("c{i}")).collect(),
        }
    }

    #[test]
    fn a_queue_needs_a_name_and_one_to_twenty_configs() {
        assert_eq!(checked(&queue(" triage ", 1)).unwrap(), ("triage".to_owned(), None));
        assert!(checked(&queue(" ", 1)).unwrap_err().to_string().contains("`name` must not be empty"));
        assert!(checked(&queue("q", 0)).unwrap_err().to_string().contains("1 to 20 score configs, got 0"));
        assert!(checked(&queue("q", 21)).unwrap_err().to_string().contains("got 21"));
        let long = "é".repeat(MAX_NAME_CHARS + 1);
        assert!(checked(&queue(&long, 1)).unwrap_err().to_string().contains("at most 255"));
        let mut described = queue("q", 1);
        described.description = Some("x".repeat(MAX_DESCRIPTION_CHARS + 1));
        assert!(checked(&described).unwrap_err().to_string().contains("`description`"));
    }
}
