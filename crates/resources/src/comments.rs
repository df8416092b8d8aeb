//! Comments (`/api/public/comments`): free text a project attaches to one of its traces,
//! observations, sessions or prompts. Never edited through the public API; a signed-in person
//! edits and deletes their own through the UI's routes ([`update_own`], [`delete_own`]).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use utoipa::ToSchema;

use reads::Params;
use reads::exists::{Object, exists};
use reads::params::PageRequest;
use storage::clickhouse::ClickHouse;

use crate::timestamp;
use crate::{Error, Page, Result};

/// What a comment can be attached to (the SDK's `CommentObjectType`).
pub const OBJECT_TYPES: [&str; 4] = ["TRACE", "OBSERVATION", "SESSION", "PROMPT"];

/// The limit Python SDK 5.0.4 documents for `content` (older servers allowed 3000).
pub const MAX_CONTENT_CHARS: usize = 5000;

/// The body of `POST /api/public/comments` (the SDK's `CreateCommentRequest`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewComment {
    /// Must be the project of the API key.
    pub project_id: String,
    /// `TRACE`, `OBSERVATION`, `SESSION` or `PROMPT`.
    pub object_type: String,
    pub object_id: String,
    /// At most 5000 characters.
    pub content: String,
    #[serde(default)]
    pub author_user_id: Option<String>,
}

/// The SDK's `Comment`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    pub id: String,
    pub project_id: String,
    pub created_at: String,
    pub updated_at: String,
    pub object_type: String,
    pub object_id: String,
    pub content: String,
    pub author_user_id: Option<String>,
}

/// The answer to `POST /api/public/comments` (the SDK's `CreateCommentResponse`).
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedComment {
    pub id: String,
}

#[derive(Debug, sqlx::FromRow)]
struct StoredComment {
    id: String,
    project_id: String,
    object_type: String,
    object_id: String,
    content: String,
    author_user_id: Option<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

const COLUMNS: &str =
    "id, project_id, object_type, object_id, content, author_user_id, created_at, updated_at";

impl StoredComment {
    fn into_body(self) -> Comment {
        Comment {
            id: self.id,
            project_id: self.project_id,
            created_at: timestamp(&self.created_at),
            updated_at: timestamp(&self.updated_at),
            object_type: self.object_type,
            object_id: self.object_id,
            content: self.content,
            author_user_id: self.author_user_id,
        }
    }
}

fn object_type(raw: &str) -> Result<&'static str> {
    OBJECT_TYPES.iter().copied().find(|known| *known == raw).ok_or_else(|| {
        Error::bad_request(format!("`objectType` must be one of {}, got `{raw}`", OBJECT_TYPES.join(", ")))
    })
}

/// The rules of a new comment; returns its object type.
fn validate(project: &str, new: &NewComment) -> Result<&'static str> {
    // The body names the project although the key already does; a mismatch is a client mistake
    // (a key of one project used for another), never a way to write elsewhere.
    if new.project_id != project {
        return Err(Error::bad_request(format!(
            "`projectId` `{}` is not the project of this API key (`{project}`)",
            new.project_id
        )));
    }
    let kind = object_type(&new.object_type)?;
    if new.object_id.trim().is_empty() {
        return Err(Error::bad_request("`objectId` must not be empty"));
    }
    checked_content(&new.content)?;
    Ok(kind)
}

/// Whether the object a comment names exists in the project: prompts in PostgreSQL, the rest in
/// ClickHouse (either data model). A comment on nothing would be listed with nothing, forever.
async fn object_exists(
    pool: &PgPool,
    clickhouse: &ClickHouse,
    project: &str,
    kind: &str,
    id: &str,
) -> Result<bool> {
    let object = match kind {
        "TRACE" => Object::Trace,
        "OBSERVATION" => Object::Observation,
        "SESSION" => Object::Session,
        _ => {
            let found: Option<(i32,)> =
                sqlx::query_as("SELECT 1 FROM prompts WHERE project_id = $1 AND id = $2")
                    .bind(project)
                    .bind(id)
                    .fetch_optional(pool)
                    .await?;
            return Ok(found.is_some());
        }
    };
    Ok(exists(clickhouse, project, object, id).await?)
}

/// `POST /api/public/comments`: `{"id"}` of the new comment; 404 when the object it names is not in
/// the project (or not yet: ingestion is asynchronous, so a client commenting on a trace it has
/// just sent may have to retry).
pub async fn create(
    pool: &PgPool,
    clickhouse: &ClickHouse,
    project: &str,
    new: NewComment,
) -> Result<CreatedComment> {
    let kind = validate(project, &new)?;
    if !object_exists(pool, clickhouse, project, kind, &new.object_id).await? {
        return Err(Error::not_found(format!("No {kind} with id `{}` in this project", new.object_id)));
    }
    let id = uuid::Uuid::new_v4().to_string();
    sqlx::query(
        "INSERT INTO comments (id, project_id, object_type, object_id, content, author_user_id) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&id)
    .bind(project)
    .bind(kind)
    .bind(&new.object_id)
    .bind(&new.content)
    .bind(new.author_user_id.filter(|author| !author.is_empty()))
    .execute(pool)
    .await?;
    Ok(CreatedComment { id })
}

/// `GET /api/public/comments/{commentId}`.
pub async fn get(pool: &PgPool, project: &str, id: &str) -> Result<Comment> {
    let sql = format!("SELECT {COLUMNS} FROM comments WHERE project_id = $1 AND id = $2");
    let comment: Option<StoredComment> =
        sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(id).fetch_optional(pool).await?;
    comment
        .map(StoredComment::into_body)
        .ok_or_else(|| Error::not_found("Comment not found within authorized project"))
}

/// The list's filters; each narrows the comments considered. `$5`, when set, is a trace whose
/// comments are shown with its root observation's.
const FILTER: &str = "project_id = $1 AND ((($2::text IS NULL OR object_type = $2) \
                      AND ($3::text IS NULL OR object_id = $3)) OR (object_type = 'TRACE' AND object_id = $5)) \
                      AND ($4::text IS NULL OR author_user_id = $4)";

/// `GET /api/public/comments?objectType=&objectId=&authorUserId=&page=&limit=`, newest first.
/// An observation that is a trace's root also lists its trace's comments: in the v4 model a
/// trace's comments belong to its root observation (spec/v4-migration-spec.md §1.4). Legacy mode writes no events, so
/// only virtual `t-` roots are recognised there.
pub async fn list(
    pool: &PgPool,
    clickhouse: &ClickHouse,
    project: &str,
    params: &Params,
) -> Result<Page<Comment>> {
    let page = PageRequest::parse(params)?;
    let kind = params.get("objectType").map(object_type).transpose()?;
    let object_id = params.string("objectId");
    // Ids of different object types may collide; an id alone does not say which object is meant.
    if object_id.is_some() && kind.is_none() {
        return Err(Error::bad_request("`objectId` needs `objectType`: ids are unique per object type only"));
    }
    let author = params.string("authorUserId");
    let root_of_trace = match (kind, &object_id) {
        (Some("OBSERVATION"), Some(id)) => {
            reads::observations::root_of_trace(clickhouse, project, id).await?
        }
        _ => None,
    };

    let (total,): (i64,) =
        sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT count(*) FROM comments WHERE {FILTER}")))
            .bind(project)
            .bind(kind)
            .bind(&object_id)
            .bind(&author)
            .bind(&root_of_trace)
            .fetch_one(pool)
            .await?;
    let sql = format!(
        "SELECT {COLUMNS} FROM comments WHERE {FILTER} ORDER BY created_at DESC, id LIMIT $6 OFFSET $7"
    );
    let comments: Vec<StoredComment> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(kind)
        .bind(&object_id)
        .bind(&author)
        .bind(&root_of_trace)
        .bind(page.limit)
        .bind(page.offset())
        .fetch_all(pool)
        .await?;
    Ok(Page::new(comments.into_iter().map(StoredComment::into_body).collect(), &page, total))
}

/// What became of a person's change to a comment.
#[derive(Debug)]
pub enum Owned<T> {
    Done(T),
    /// No such comment in the project.
    NotFound,
    /// The comment is someone else's (or an API client's, which has no author).
    NotTheAuthor,
}

/// The rules of a comment's text.
fn checked_content(content: &str) -> Result<()> {
    if content.trim().is_empty() {
        return Err(Error::bad_request("`content` must not be empty"));
    }
    let length = content.chars().count();
    if length > MAX_CONTENT_CHARS {
        return Err(Error::bad_request(format!(
            "`content` must be at most {MAX_CONTENT_CHARS} characters long, got {length}"
        )));
    }
    Ok(())
}

async fn author_of(pool: &PgPool, project: &str, id: &str) -> Result<Option<Option<String>>> {
    let row: Option<(Option<String>,)> =
        sqlx::query_as("SELECT author_user_id FROM comments WHERE project_id = $1 AND id = $2")
            .bind(project)
            .bind(id)
            .fetch_optional(pool)
            .await?;
    Ok(row.map(|(author,)| author))
}

/// Replaces the text of `author`'s comment `id`.
pub async fn update_own(
    pool: &PgPool,
    project: &str,
    id: &str,
    author: &str,
    content: &str,
) -> Result<Owned<Comment>> {
    checked_content(content)?;
    let sql = format!(
        "UPDATE comments SET content = $4, updated_at = now() \
         WHERE project_id = $1 AND id = $2 AND author_user_id = $3 RETURNING {COLUMNS}"
    );
    let updated: Option<StoredComment> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(id)
        .bind(author)
        .bind(content)
        .fetch_optional(pool)
        .await?;
    Ok(match updated {
        Some(comment) => Owned::Done(comment.into_body()),
        None => refusal(pool, project, id).await?,
    })
}

/// Deletes `author`'s comment `id`.
pub async fn delete_own(pool: &PgPool, project: &str, id: &str, author: &str) -> Result<Owned<()>> {
    let deleted =
        sqlx::query("DELETE FROM comments WHERE project_id = $1 AND id = $2 AND author_user_id = $3")
            .bind(project)
            .bind(id)
            .bind(author)
            .execute(pool)
            .await?;
    Ok(if deleted.rows_affected() > 0 { Owned::Done(()) } else { refusal(pool, project, id).await? })
}

/// Why a change by the author matched nothing: no comment, or not theirs.
async fn refusal<T>(pool: &PgPool, project: &str, id: &str) -> Result<Owned<T>> {
    Ok(match author_of(pool, project, id).await? {
        None => Owned::NotFound,
        Some(_) => Owned::NotTheAuthor,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comment(project_id: &str, object_type: &str, content: &str) -> NewComment {
        NewComment {
            project_id: project_id.to_owned(),
            object_type: object_type.to_owned(),
            object_id: "trace-1".to_owned(),
            content: content.to_owned(),
            author_user_id: None,
        }
    }

    fn refusal(new: &NewComment) -> String {
        validate("p", new).unwrap_err().to_string()
    }

    #[test]
    fn a_valid_comment_passes_with_its_object_type() {
        assert_eq!(validate("p", &comment("p", "SESSION", "looks good")).unwrap(), "SESSION");
        let longest = "é".repeat(MAX_CONTENT_CHARS);
        assert!(validate("p", &comment("p", "TRACE", &longest)).is_ok(), "characters, not bytes, count");
    }

    #[test]
    fn each_rule_is_named_in_its_refusal() {
        assert!(refusal(&comment("other", "TRACE", "x")).contains("`projectId` `other`"));
        assert!(refusal(&comment("p", "trace", "x")).contains("`objectType` must be one of TRACE"));
        assert!(refusal(&comment("p", "TRACE", " \n")).contains("`content` must not be empty"));
        let too_long = "x".repeat(MAX_CONTENT_CHARS + 1);
        assert!(refusal(&comment("p", "TRACE", &too_long)).contains("at most 5000 characters"));
        let mut no_object = comment("p", "PROMPT", "x");
        no_object.object_id = String::new();
        assert!(refusal(&no_object).contains("`objectId` must not be empty"));
    }
}
