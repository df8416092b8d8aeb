//! What the prompts pages read that the public list does not give cheaply: one folder's entries
//! (its subfolders and its prompts, as `/` in names makes folders) with a search over names, and
//! one prompt's versions without their bodies (number, labels, tags, commit message, author).

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;

use reads::Params;
use reads::params::PageRequest;

use crate::{Error, Page, Result, timestamp};

/// The longest search text and folder path the routes accept.
pub const MAX_SEARCH_CHARS: usize = 200;
pub const MAX_FOLDER_CHARS: usize = 1000;
/// Versions per page of [`versions`]: the page shows them in a virtualized list.
pub const MAX_VERSIONS_PER_PAGE: i64 = 1000;

/// One entry of a folder: a subfolder (with how many prompts it holds, at any depth) or a prompt.
#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FolderEntry {
    /// `folder` or `prompt`.
    pub kind: &'static str,
    /// The full name (a prompt) or path (a folder) from the root, without a trailing `/`.
    pub name: String,
    /// Prompts under the folder at any depth; 1 for a prompt.
    pub prompts: i64,
    /// The prompt's `type` (`text` or `chat`); absent for a folder.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub prompt_type: Option<String>,
    /// The prompt's newest version; absent for a folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_version: Option<i32>,
    /// How many versions the prompt has; 0 for a folder.
    pub versions: i64,
    /// Every label on any of the prompt's versions, sorted; empty for a folder.
    pub labels: Vec<String>,
    /// The prompt's tags; empty for a folder.
    pub tags: Vec<String>,
    /// The newest change of anything under the entry.
    pub last_updated_at: String,
}

/// One version of a prompt, without its body.
#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct VersionSummary {
    pub version: i32,
    #[serde(rename = "type")]
    #[sqlx(rename = "type")]
    pub prompt_type: String,
    pub labels: Vec<String>,
    pub tags: Vec<String>,
    pub commit_message: Option<String>,
    /// `API` (made with a key) or the user id of the person who made it in the UI.
    pub created_by: String,
    /// The name (or email) of that person; absent for `API` or someone since deleted.
    pub author: Option<String>,
    #[serde(serialize_with = "rfc3339")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "rfc3339")]
    pub updated_at: DateTime<Utc>,
}

fn rfc3339<S: serde::Serializer>(at: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&timestamp(at))
}

/// The folder asked for: `""` for the root, else `team/sub` (a trailing `/` is ignored).
fn folder_of(params: &Params) -> Result<String> {
    let folder = params.string("folder").unwrap_or_default();
    let folder = folder.trim_matches('/');
    if folder.chars().count() > MAX_FOLDER_CHARS {
        return Err(Error::bad_request(format!("folder is longer than {MAX_FOLDER_CHARS} characters")));
    }
    Ok(folder.to_owned())
}

fn search_of(params: &Params) -> Result<Option<String>> {
    let search = params.string("search").map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    if search.as_ref().is_some_and(|s| s.chars().count() > MAX_SEARCH_CHARS) {
        return Err(Error::bad_request(format!("search is longer than {MAX_SEARCH_CHARS} characters")));
    }
    Ok(search)
}

/// The entries under `$2` (a prefix ending in `/`, or empty). Without a search, a name with a `/`
/// after the prefix counts towards the folder named by its next segment; with one (`$3`, any case),
/// every matching prompt under the prefix is listed by its full name, folders flattened.
const ENTRIES: &str = "WITH under AS ( \
       SELECT name, updated_at, substr(name, length($2) + 1) AS rest FROM prompts \
       WHERE project_id = $1 AND starts_with(name, $2) \
         AND ($3::text IS NULL OR strpos(lower(name), lower($3)) > 0) \
     ), entries AS ( \
       SELECT name, updated_at, \
              ($3::text IS NULL AND strpos(rest, '/') > 0) AS is_folder, \
              CASE WHEN $3::text IS NULL AND strpos(rest, '/') > 0 THEN split_part(rest, '/', 1) ELSE rest END AS entry \
       FROM under \
     ) ";

/// `GET /api/ui/projects/{projectId}/prompts?folder=&search=&page=&limit=`: folders first, then
/// prompts, each by name.
pub async fn folder(pool: &PgPool, project: &str, params: &Params) -> Result<Page<FolderEntry>> {
    let page = PageRequest::parse(params)?;
    let folder = folder_of(params)?;
    let prefix = if folder.is_empty() { String::new() } else { format!("{folder}/") };
    let search = search_of(params)?;

    let (total,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{ENTRIES} SELECT count(*) FROM (SELECT DISTINCT is_folder, entry FROM entries) e"
    )))
    .bind(project)
    .bind(&prefix)
    .bind(&search)
    .fetch_one(pool)
    .await?;
    let rows: Vec<(bool, String, i64, DateTime<Utc>)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{ENTRIES} SELECT is_folder, entry, count(DISTINCT name), max(updated_at) FROM entries \
         GROUP BY is_folder, entry ORDER BY is_folder DESC, entry LIMIT $4 OFFSET $5"
    )))
    .bind(project)
    .bind(&prefix)
    .bind(&search)
    .bind(page.limit)
    .bind(page.offset())
    .fetch_all(pool)
    .await?;

    let names: Vec<String> = rows
        .iter()
        .filter(|(is_folder, ..)| !is_folder)
        .map(|(_, entry, ..)| format!("{prefix}{entry}"))
        .collect();
    let details = prompt_details(pool, project, &names).await?;
    let data = rows
        .into_iter()
        .map(|(is_folder, entry, prompts, updated)| {
            let name = format!("{prefix}{entry}");
            let mut entry = FolderEntry {
                kind: if is_folder { "folder" } else { "prompt" },
                prompts,
                prompt_type: None,
                latest_version: None,
                versions: 0,
                labels: Vec::new(),
                tags: Vec::new(),
                last_updated_at: timestamp(&updated),
                name,
            };
            if let Some(detail) = details.iter().find(|d| !is_folder && d.name == entry.name) {
                entry.prompt_type = Some(detail.prompt_type.clone());
                entry.latest_version = Some(detail.latest);
                entry.versions = detail.versions;
                entry.labels = detail.labels.clone();
                entry.tags = detail.tags.clone();
            }
            entry
        })
        .collect();
    Ok(Page::new(data, &page, total))
}

#[derive(sqlx::FromRow)]
struct Detail {
    name: String,
    prompt_type: String,
    latest: i32,
    versions: i64,
    labels: Vec<String>,
    tags: Vec<String>,
}

/// The newest version's type and tags, the version count and every label, of each of `names`.
async fn prompt_details(pool: &PgPool, project: &str, names: &[String]) -> Result<Vec<Detail>> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let details = sqlx::query_as(
        "SELECT DISTINCT ON (p.name) p.name, p.type AS prompt_type, p.version AS latest, \
                count(*) OVER (PARTITION BY p.name) AS versions, \
                array(SELECT DISTINCT l FROM prompts q, unnest(q.labels) l \
                      WHERE q.project_id = $1 AND q.name = p.name ORDER BY l) AS labels, \
                p.tags \
         FROM prompts p WHERE p.project_id = $1 AND p.name = ANY($2) \
         ORDER BY p.name, p.version DESC",
    )
    .bind(project)
    .bind(names)
    .fetch_all(pool)
    .await?;
    Ok(details)
}

/// `GET /api/ui/projects/{projectId}/prompts/versions?name=&page=&limit=`: the versions of one
/// prompt, newest first, up to [`MAX_VERSIONS_PER_PAGE`] a page (100 by default); 404 when the
/// prompt has none.
pub async fn versions(pool: &PgPool, project: &str, params: &Params) -> Result<Page<VersionSummary>> {
    let name = params
        .string("name")
        .filter(|n| !n.is_empty())
        .ok_or_else(|| Error::bad_request("name is required"))?;
    let page = PageRequest {
        page: params.int("page", 1, 1, 1_000_000)?,
        limit: params.int("limit", 100, 1, MAX_VERSIONS_PER_PAGE)?,
    };
    let (total,): (i64,) = sqlx::query_as("SELECT count(*) FROM prompts WHERE project_id = $1 AND name = $2")
        .bind(project)
        .bind(&name)
        .fetch_one(pool)
        .await?;
    if total == 0 {
        return Err(Error::not_found(format!("Prompt not found: '{name}'")));
    }
    let data = sqlx::query_as(
        "SELECT p.version, p.type, p.labels, p.tags, p.commit_message, p.created_by, \
                coalesce(nullif(u.name, ''), u.email) AS author, p.created_at, p.updated_at \
         FROM prompts p LEFT JOIN users u ON u.id = p.created_by \
         WHERE p.project_id = $1 AND p.name = $2 ORDER BY p.version DESC LIMIT $3 OFFSET $4",
    )
    .bind(project)
    .bind(&name)
    .bind(page.limit)
    .bind(page.offset())
    .fetch_all(pool)
    .await?;
    Ok(Page::new(data, &page, total))
}
