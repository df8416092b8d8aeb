//! Dataset items: upsert by id, get, delete. Every write adds a version and closes the one before
//! (see the migration), in one transaction under a per-item advisory lock, so concurrent writers
//! of one item queue up instead of both closing the same version.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;
use sqlx::types::Json;
use sqlx::{PgConnection, PgExecutor, PgPool};
use utoipa::ToSchema;

use super::body::DatasetItem;
use super::budget::{self, Budget};
use super::schema::ItemSchemas;
use super::{ITEM_NOT_FOUND, VERSION_NOW, shown, stored};
use crate::media::{self, Urls};
use crate::timestamp;
use crate::{Error, Message, Result};

/// One version of an item, with its dataset's name.
#[derive(Debug, Clone, sqlx::FromRow)]
pub(crate) struct ItemVersion {
    pub id: String,
    pub dataset_id: String,
    pub dataset_name: String,
    pub status: String,
    pub input: Option<Json<Value>>,
    pub expected_output: Option<Json<Value>>,
    pub metadata: Option<Json<Value>>,
    pub source_trace_id: Option<String>,
    pub source_observation_id: Option<String>,
    pub created_at: DateTime<Utc>,
    pub valid_from: DateTime<Utc>,
}

/// Versions joined to their dataset; callers add `WHERE` on `v.` columns.
pub(crate) const SELECT: &str = "SELECT v.id, v.dataset_id, d.name AS dataset_name, v.status, v.input, \
    v.expected_output, v.metadata, v.source_trace_id, v.source_observation_id, v.created_at, v.valid_from \
    FROM dataset_item_versions v JOIN datasets d ON d.project_id = v.project_id AND d.id = v.dataset_id";

/// The versions that were current at `$N` (a nullable timestamptz): the current ones when it is
/// NULL. Tombstones are never shown.
pub(crate) fn current_at(placeholder: &str) -> String {
    format!(
        "NOT v.is_deleted AND CASE WHEN {placeholder}::timestamptz IS NULL THEN v.valid_to IS NULL \
         ELSE v.valid_from <= {placeholder} AND (v.valid_to IS NULL OR v.valid_to > {placeholder}) END"
    )
}

impl ItemVersion {
    /// The DatasetItem object of the SDKs, without its media (see [`with_media`]). `updatedAt`
    /// and `version` are when this version became current.
    fn into_body(self) -> DatasetItem {
        DatasetItem {
            input: shown(&self.input),
            expected_output: shown(&self.expected_output),
            metadata: shown(&self.metadata),
            created_at: timestamp(&self.created_at),
            updated_at: timestamp(&self.valid_from),
            version: timestamp(&self.valid_from),
            id: self.id,
            status: self.status,
            source_trace_id: self.source_trace_id,
            source_observation_id: self.source_observation_id,
            dataset_id: self.dataset_id,
            dataset_name: self.dataset_name,
            media_references: Vec::new(),
        }
    }
}

/// The items as the SDKs get them: each with the uploaded media it references, with download
/// URLs for this caller.
pub(crate) async fn with_media(
    pool: &PgPool,
    project: &str,
    versions: Vec<ItemVersion>,
    urls: &Urls<'_>,
) -> Result<Vec<DatasetItem>> {
    let mut items: Vec<DatasetItem> = versions.into_iter().map(ItemVersion::into_body).collect();
    let found = items
        .iter()
        .map(|item| {
            let fields = [
                ("input", &item.input),
                ("expectedOutput", &item.expected_output),
                ("metadata", &item.metadata),
            ];
            fields
                .into_iter()
                .filter_map(|(field, value)| Some(media::find_in_field(field, value.as_ref()?)))
                .flatten()
                .collect()
        })
        .collect();
    let references = media::references_of(pool, project, found, urls).await?;
    for (item, references) in items.iter_mut().zip(references) {
        item.media_references = references;
    }
    Ok(items)
}

async fn one_with_media(
    pool: &PgPool,
    project: &str,
    version: ItemVersion,
    urls: &Urls<'_>,
) -> Result<DatasetItem> {
    let mut items = with_media(pool, project, vec![version], urls).await?;
    items.pop().ok_or_else(|| Error::not_found(ITEM_NOT_FOUND))
}

/// The body of `POST /dataset-items` (the SDKs' `CreateDatasetItemRequest`). On an existing id,
/// absent or null fields keep their value.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewItem {
    pub dataset_name: String,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub input: Option<Value>,
    #[serde(default)]
    pub expected_output: Option<Value>,
    #[serde(default)]
    pub metadata: Option<Value>,
    #[serde(default)]
    pub source_trace_id: Option<String>,
    #[serde(default)]
    pub source_observation_id: Option<String>,
    /// `ACTIVE` (the default for a new item) or `ARCHIVED`.
    #[serde(default)]
    pub status: Option<String>,
}

/// The stored state of an item's current version, for carrying fields into the next one.
#[derive(sqlx::FromRow)]
struct Current {
    dataset_id: String,
    status: String,
    input: Option<Json<Value>>,
    expected_output: Option<Json<Value>>,
    metadata: Option<Json<Value>>,
    source_trace_id: Option<String>,
    source_observation_id: Option<String>,
    created_at: DateTime<Utc>,
    valid_from: DateTime<Utc>,
    is_deleted: bool,
}

async fn lock_item(tx: &mut PgConnection, project: &str, id: &str) -> Result<()> {
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1 || '/dataset-item/' || $2, 0))")
        .bind(project)
        .bind(id)
        .execute(tx)
        .await?;
    Ok(())
}

async fn current(tx: &mut PgConnection, project: &str, id: &str) -> Result<Option<Current>> {
    Ok(sqlx::query_as(
        "SELECT dataset_id, status, input, expected_output, metadata, source_trace_id, source_observation_id, \
         created_at, valid_from, is_deleted FROM dataset_item_versions \
         WHERE project_id = $1 AND id = $2 AND valid_to IS NULL",
    )
    .bind(project)
    .bind(id)
    .fetch_optional(tx)
    .await?)
}

/// Closes the current version of the item (if any) and returns when the next one starts: now, but
/// always after the version it replaces and after the newest version in the dataset. So writes that
/// follow each other get increasing versions even within one millisecond, and a `version` read at
/// any write's time shows exactly the writes before it. (Truly concurrent writes to different
/// items may share a millisecond; they were simultaneous.)
async fn close_current(
    tx: &mut PgConnection,
    project: &str,
    id: &str,
    dataset_id: &str,
    current: Option<&Current>,
) -> Result<DateTime<Utc>> {
    let sql = format!(
        "SELECT GREATEST({VERSION_NOW}, $3 + interval '1 millisecond', \
           (SELECT max(valid_from) FROM dataset_item_versions WHERE project_id = $1 AND dataset_id = $2) \
             + interval '1 millisecond')"
    );
    let (next,): (DateTime<Utc>,) = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(dataset_id)
        .bind(current.map(|c| c.valid_from))
        .fetch_one(&mut *tx)
        .await?;
    sqlx::query(
        "UPDATE dataset_item_versions SET valid_to = $3 WHERE project_id = $1 AND id = $2 AND valid_to IS NULL",
    )
    .bind(project)
    .bind(id)
    .bind(next)
    .execute(&mut *tx)
    .await?;
    Ok(next)
}

/// The current version of an item, any status.
async fn fetch_current<'e>(db: impl PgExecutor<'e>, project: &str, id: &str) -> Result<Option<ItemVersion>> {
    let sql = format!("{SELECT} WHERE v.project_id = $1 AND v.id = $2 AND {}", current_at("$3"));
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(id)
        .bind(None::<DateTime<Utc>>)
        .fetch_optional(db)
        .await?)
}

fn check_status(status: Option<&str>) -> Result<()> {
    match status {
        None | Some("ACTIVE" | "ARCHIVED") => Ok(()),
        Some(other) => Err(Error::bad_request(format!("`status` must be ACTIVE or ARCHIVED, got `{other}`"))),
    }
}

/// `POST /dataset-items`: a new item (a fresh id when none is given), or the next version of the
/// item with that id. An id that lives in another dataset of the project is refused with a 404,
/// as upstream does.
pub async fn upsert_item(pool: &PgPool, project: &str, new: NewItem, urls: &Urls<'_>) -> Result<DatasetItem> {
    check_status(new.status.as_deref())?;
    if new.id.as_deref().is_some_and(|id| id.trim().is_empty()) {
        return Err(Error::bad_request("`id` must not be empty when given"));
    }
    let id = new.id.clone().unwrap_or_else(|| uuid::Uuid::new_v4().to_string());

    let mut tx = pool.begin().await?;
    let dataset = super::dataset_row::find_for_item_write(&mut tx, project, &new.dataset_name).await?;
    lock_item(&mut tx, project, &id).await?;
    let current = current(&mut tx, project, &id).await?;
    // A deleted item's id is free again: the next write starts a new item.
    let live = current.as_ref().filter(|c| !c.is_deleted);
    if live.is_some_and(|live| live.dataset_id != dataset.id) {
        return Err(Error::not_found(format!(
            "The dataset item with id {id} already exists in a dataset other than {}",
            dataset.name
        )));
    }
    let keep = |given: Option<Value>, old: Option<&Option<Json<Value>>>| {
        stored(given).or_else(|| old.and_then(|old| old.clone()))
    };
    let input = keep(new.input, live.map(|l| &l.input));
    let expected_output = keep(new.expected_output, live.map(|l| &l.expected_output));
    let metadata = keep(new.metadata, live.map(|l| &l.metadata));
    let source_trace_id = new.source_trace_id.or_else(|| live.and_then(|l| l.source_trace_id.clone()));
    let source_observation_id =
        new.source_observation_id.or_else(|| live.and_then(|l| l.source_observation_id.clone()));
    let status = new.status.or_else(|| live.map(|l| l.status.clone())).unwrap_or_else(|| "ACTIVE".to_owned());
    // What will be stored must match the dataset's schemas (dropping the transaction rolls back),
    // checked off the async threads within the item write's budget.
    if dataset.input_schema.is_some() || dataset.expected_output_schema.is_some() {
        let schemas = (dataset.input_schema.clone(), dataset.expected_output_schema.clone());
        let item = (input.clone(), expected_output.clone());
        Budget::start(budget::ITEM_WRITE, "checking the item against the dataset's schemas")
            .run(move || {
                ItemSchemas::compile(inner(&schemas.0), inner(&schemas.1))?
                    .check(inner(&item.0), inner(&item.1))
            })
            .await??;
    }

    let valid_from = close_current(&mut tx, project, &id, &dataset.id, current.as_ref()).await?;
    let created_at = live.map_or(valid_from, |l| l.created_at);
    sqlx::query(
        "INSERT INTO dataset_item_versions (project_id, id, dataset_id, status, input, expected_output, metadata, \
         source_trace_id, source_observation_id, created_at, valid_from) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    )
    .bind(project)
    .bind(&id)
    .bind(&dataset.id)
    .bind(&status)
    .bind(input)
    .bind(expected_output)
    .bind(metadata)
    .bind(source_trace_id)
    .bind(source_observation_id)
    .bind(created_at)
    .bind(valid_from)
    .execute(&mut *tx)
    .await?;
    let item =
        fetch_current(&mut *tx, project, &id).await?.ok_or_else(|| Error::not_found(ITEM_NOT_FOUND))?;
    tx.commit().await?;
    one_with_media(pool, project, item, urls).await
}

/// `GET /dataset-items/{id}`: the current version, whatever its status.
pub async fn get_item(pool: &PgPool, project: &str, id: &str, urls: &Urls<'_>) -> Result<DatasetItem> {
    let item = fetch_current(pool, project, id).await?.ok_or_else(|| Error::not_found(ITEM_NOT_FOUND))?;
    one_with_media(pool, project, item, urls).await
}

/// `DELETE /dataset-items/{id}`: the item gets a deleted version, so it is gone from now on but
/// still listed by a `version` before the deletion.
pub async fn delete_item(pool: &PgPool, project: &str, id: &str) -> Result<Message> {
    let mut tx = pool.begin().await?;
    lock_item(&mut tx, project, id).await?;
    let current = current(&mut tx, project, id).await?.filter(|c| !c.is_deleted);
    let Some(current) = current else { return Err(Error::not_found(ITEM_NOT_FOUND)) };
    let deleted_at = close_current(&mut tx, project, id, &current.dataset_id, Some(&current)).await?;
    sqlx::query(
        "INSERT INTO dataset_item_versions (project_id, id, dataset_id, status, input, expected_output, metadata, \
         source_trace_id, source_observation_id, created_at, valid_from, is_deleted) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, true)",
    )
    .bind(project)
    .bind(id)
    .bind(&current.dataset_id)
    .bind(&current.status)
    .bind(&current.input)
    .bind(&current.expected_output)
    .bind(&current.metadata)
    .bind(&current.source_trace_id)
    .bind(&current.source_observation_id)
    .bind(current.created_at)
    .bind(deleted_at)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Message { message: "Dataset item successfully deleted" })
}

/// The version of an item a run used: current, or the one current at `version`; active only.
pub(crate) async fn active_at(
    pool: &PgPool,
    project: &str,
    id: &str,
    version: Option<DateTime<Utc>>,
) -> Result<ItemVersion> {
    let sql = format!(
        "{SELECT} WHERE v.project_id = $1 AND v.id = $2 AND v.status = 'ACTIVE' AND {}",
        current_at("$3")
    );
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(id)
        .bind(version)
        .fetch_optional(pool)
        .await?
        .ok_or_else(|| Error::not_found(ITEM_NOT_FOUND))
}

/// The active items of a dataset as they are now, newest first (the v1 dataset object).
pub(crate) async fn current_active(
    pool: &PgPool,
    project: &str,
    dataset_id: &str,
) -> Result<Vec<ItemVersion>> {
    let sql = format!(
        "{SELECT} WHERE v.project_id = $1 AND v.dataset_id = $2 AND v.status = 'ACTIVE' AND {} \
         ORDER BY v.created_at DESC, v.id",
        current_at("$3")
    );
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(dataset_id)
        .bind(None::<DateTime<Utc>>)
        .fetch_all(pool)
        .await?)
}

/// How many mismatching items a refused schema change names; the rest are counted.
const ITEMS_SHOWN: usize = 10;

/// Items checked by one piece of blocking work during a schema change: large enough that handing
/// work to the blocking pool costs little, small enough that a batch's items stay few megabytes.
const ITEMS_PER_CHECK: usize = 64;

/// What is wrong with the dataset's current items under `schemas`, or `None` when all match.
/// Items are streamed and checked a batch at a time off the async threads within `budget`, so a
/// large dataset costs time (up to the budget), not memory.
pub(crate) async fn mismatching_items(
    tx: &mut PgConnection,
    project: &str,
    dataset_id: &str,
    schemas: Arc<ItemSchemas>,
    budget: Budget,
) -> Result<Option<String>> {
    use futures::TryStreamExt;

    type Row = (String, Option<Json<Value>>, Option<Json<Value>>);
    let mut rows = sqlx::query_as::<_, Row>(
        "SELECT id, input, expected_output FROM dataset_item_versions \
         WHERE project_id = $1 AND dataset_id = $2 AND valid_to IS NULL AND NOT is_deleted ORDER BY id",
    )
    .bind(project)
    .bind(dataset_id)
    .fetch(&mut *tx);
    let (mut shown, mut count) = (Vec::new(), 0usize);
    let mut batch: Vec<Row> = Vec::with_capacity(ITEMS_PER_CHECK);
    let mut read_all = false;
    while !read_all {
        match rows.try_next().await? {
            Some(row) => batch.push(row),
            None => read_all = true,
        }
        if batch.is_empty() || (batch.len() < ITEMS_PER_CHECK && !read_all) {
            continue;
        }
        let (items, schemas) = (std::mem::take(&mut batch), schemas.clone());
        let mismatches = budget
            .run(move || {
                let check = |(id, input, expected): Row| {
                    Some((id, schemas.mismatch(inner(&input), inner(&expected))?))
                };
                items.into_iter().filter_map(check).collect::<Vec<_>>()
            })
            .await?;
        for (id, mismatch) in mismatches {
            count += 1;
            if shown.len() < ITEMS_SHOWN {
                shown.push(format!("item {id}: {mismatch}"));
            }
        }
    }
    if count == 0 {
        return Ok(None);
    }
    let more =
        if count > shown.len() { format!(" (and {} more)", count - shown.len()) } else { String::new() };
    Ok(Some(format!(
        "{count} existing item(s) of the dataset do not match the new schema: {}{more}",
        shown.join(" | ")
    )))
}

/// The JSON of a nullable JSONB column.
fn inner(value: &Option<Json<Value>>) -> Option<&Value> {
    value.as_ref().map(|json| &json.0)
}
