//! Dataset run items: creating one (and its run, implicitly) and listing a run's items.

use chrono::{DateTime, SubsecRound, Utc};
use serde::Deserialize;
use serde_json::{Map, Value};
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};
use utoipa::ToSchema;

use domain::config::WriteMode;
use reads::params::{PageRequest, parse_datetime};
use reads::{Params, ReadError};
use storage::clickhouse::ClickHouse;

use super::body::DatasetRunItem;
use super::clickhouse::{RunItemRow, insert_run_item};
use super::items::{ItemVersion, active_at};
pub(crate) use super::run_item::RunItem;
use super::{NOW, require_name, runs_served};
use crate::timestamp;
use crate::{Error, Page, Result};

const SELECT: &str = "SELECT i.id, i.dataset_run_id, r.name AS dataset_run_name, i.dataset_item_id, i.trace_id, \
    i.observation_id, i.created_at, i.updated_at \
    FROM dataset_run_items i JOIN dataset_runs r ON r.project_id = i.project_id AND r.id = i.dataset_run_id";

/// A run's items, newest first; all of them, or one page.
pub(crate) async fn of_run(
    pool: &PgPool,
    project: &str,
    run_id: &str,
    page: Option<&PageRequest>,
) -> Result<Vec<RunItem>> {
    let sql = format!(
        "{SELECT} WHERE i.project_id = $1 AND i.dataset_run_id = $2 ORDER BY i.created_at DESC, i.id \
         LIMIT $3 OFFSET $4"
    );
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(run_id)
        .bind(page.map(|p| p.limit))
        .bind(page.map_or(0, PageRequest::offset))
        .fetch_all(pool)
        .await?)
}

/// The body of `POST /dataset-run-items` (the SDKs' `CreateDatasetRunItemRequest`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewRunItem {
    pub run_name: String,
    #[serde(default)]
    pub run_description: Option<String>,
    #[serde(default)]
    pub metadata: Option<Value>,
    pub dataset_item_id: String,
    #[serde(default)]
    pub observation_id: Option<String>,
    #[serde(default)]
    pub trace_id: Option<String>,
    /// The item version to link (the items as they were at this time); the current one if absent.
    #[serde(default)]
    pub dataset_version: Option<String>,
    #[serde(default)]
    pub created_at: Option<String>,
}

fn datetime(key: &str, raw: Option<&str>) -> Result<Option<DateTime<Utc>>> {
    Ok(raw.map(|raw| parse_datetime(key, raw)).transpose()?.map(|at| at.trunc_subsecs(3)))
}

/// The run's metadata from the body: an object as sent (anything else under `metadata`), plus the
/// dataset version the run used. `None` when there is nothing to set.
fn run_metadata(metadata: Option<Value>, version: Option<DateTime<Utc>>) -> Option<Value> {
    let mut object = match metadata {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(object)) => object,
        Some(other) => Map::from_iter([("metadata".to_owned(), other)]),
    };
    if let Some(version) = version {
        object.insert("dataset_version".to_owned(), Value::String(timestamp(&version)));
    }
    (!object.is_empty()).then_some(Value::Object(object))
}

/// The trace a run item points at: `traceId`, or the trace of `observationId` in the v3 table.
async fn trace_of(clickhouse: &ClickHouse, project: &str, new: &NewRunItem) -> Result<String> {
    if let Some(trace) = &new.trace_id {
        return Ok(trace.clone());
    }
    let observation_id = new.observation_id.as_deref().unwrap_or_default();
    match reads::legacy::observations::get(clickhouse, project, observation_id).await {
        Ok(observation) => Ok(observation.trace_id),
        Err(ReadError::NotFound(_)) => Err(Error::not_found("Observation not found")),
        Err(other) => Err(other.into()),
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct UpsertedRun {
    pub id: String,
    pub description: Option<String>,
    pub metadata: Json<Value>,
    pub created_at: DateTime<Utc>,
}

/// A dataset run's id: the one the SDKs derive for the experiment of the same dataset and run name
/// (first 16 hex digits of SHA-256 over the compact JSON array below), so a run created by
/// `POST /dataset-run-items` and the experiment SDK 5 records from its spans are one and the same.
pub fn run_id(project: &str, dataset_id: &str, run_name: &str) -> String {
    let named = ["langfuse-experiment-v1", project, dataset_id, run_name];
    sha256_hex(&Value::from(named.map(str::to_owned).to_vec()), 16)
}

/// The first `digits` hex digits of SHA-256 over a value's compact JSON text: ids derived from
/// what they name.
pub(crate) fn sha256_hex(value: &Value, digits: usize) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, value.to_string().as_bytes());
    digest.as_ref()[..digits / 2].iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The run a new item goes into, by name within the item's dataset.
pub(crate) struct RunFields<'a> {
    pub name: &'a str,
    pub description: Option<&'a str>,
    pub metadata: Option<Value>,
    pub created_at: Option<DateTime<Utc>>,
}

/// Creates the run on its first item; later items update its description and metadata when they
/// carry them. The row stays locked until the transaction ends, so a deletion waits for it.
pub(crate) async fn upsert_run(
    tx: &mut PgConnection,
    project: &str,
    dataset_id: &str,
    run: RunFields<'_>,
) -> Result<UpsertedRun> {
    let sql = format!(
        "INSERT INTO dataset_runs AS r (project_id, id, dataset_id, name, description, metadata, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, COALESCE($6, '{{}}'::jsonb), COALESCE($7, {NOW}), COALESCE($7, {NOW})) \
         ON CONFLICT (project_id, dataset_id, name) DO UPDATE SET \
           description = COALESCE($5, r.description), metadata = COALESCE($6, r.metadata), \
           updated_at = CASE WHEN $5::text IS NULL AND $6::jsonb IS NULL THEN r.updated_at ELSE {NOW} END \
         RETURNING r.id, r.description, r.metadata, r.created_at"
    );
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(run_id(project, dataset_id, run.name))
        .bind(dataset_id)
        .bind(run.name)
        .bind(run.description)
        .bind(run.metadata.map(Json))
        .bind(run.created_at)
        .fetch_one(tx)
        .await?)
}

/// The run item that already links the dataset item to the trace in the run, if any. A run has one
/// item per (run, dataset item, trace), whoever records it first: the JS SDK's experiment runner
/// both posts the run item and marks its spans with the experiment attributes the worker records
/// (`experiment_links`), and the two must not become two items. Called after [`upsert_run`] in
/// the same transaction: the run row it locks serialises the two writers, so the second sees the
/// first's committed item.
pub(crate) async fn linked_item(
    tx: &mut PgConnection,
    project: &str,
    run_id: &str,
    dataset_item_id: &str,
    trace_id: &str,
) -> Result<Option<RunItem>> {
    let sql = format!(
        "{SELECT} WHERE i.project_id = $1 AND i.dataset_run_id = $2 AND i.dataset_item_id = $3 \
         AND i.trace_id = $4 ORDER BY i.created_at, i.id LIMIT 1"
    );
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(run_id)
        .bind(dataset_item_id)
        .bind(trace_id)
        .fetch_optional(tx)
        .await?)
}

/// Inserts a run item row; `None` when its id is already stored (a re-delivered link).
pub(crate) async fn insert_item(
    tx: &mut PgConnection,
    project: &str,
    item: &ItemVersion,
    stored: &RunItem,
    created_at: Option<DateTime<Utc>>,
) -> Result<Option<DateTime<Utc>>> {
    let sql = format!(
        "INSERT INTO dataset_run_items (project_id, id, dataset_run_id, dataset_item_id, dataset_item_version, \
         trace_id, observation_id, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE($8, {NOW}), COALESCE($8, {NOW})) \
         ON CONFLICT (project_id, id) DO NOTHING RETURNING created_at"
    );
    let created: Option<(DateTime<Utc>,)> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(&stored.id)
        .bind(&stored.dataset_run_id)
        .bind(&item.id)
        .bind(item.valid_from)
        .bind(&stored.trace_id)
        .bind(&stored.observation_id)
        .bind(created_at)
        .fetch_optional(tx)
        .await?;
    Ok(created.map(|(at,)| at))
}

/// `POST /dataset-run-items`: links the item (as it is, or as it was at `datasetVersion`) to a
/// trace in the run `runName`, in PostgreSQL and in ClickHouse. The ClickHouse row is written
/// before PostgreSQL commits: a failed insert rolls the run item back, so the two never disagree
/// about an item a client was told exists. The body (any JSON) is read as a [`NewRunItem`] only
/// past the write-mode gate, so `events_only` answers its 404 to any body, as upstream's
/// route-level rejection does.
pub async fn create_run_item(
    pool: &PgPool,
    clickhouse: &ClickHouse,
    mode: WriteMode,
    project: &str,
    body: Value,
) -> Result<DatasetRunItem> {
    runs_served(mode)?;
    let mut new: NewRunItem =
        serde_json::from_value(body).map_err(|error| Error::InvalidBody(error.to_string()))?;
    require_name("runName", &new.run_name)?;
    new.trace_id = new.trace_id.take().filter(|id| !id.is_empty());
    new.observation_id = new.observation_id.take().filter(|id| !id.is_empty());
    if new.trace_id.is_none() && new.observation_id.is_none() {
        return Err(Error::bad_request("observationId or traceId must be provided"));
    }
    let version = datetime("datasetVersion", new.dataset_version.as_deref())?;
    let created_at = datetime("createdAt", new.created_at.as_deref())?;
    let item = active_at(pool, project, &new.dataset_item_id, version).await?;
    let trace_id = trace_of(clickhouse, project, &new).await?;

    let mut tx = pool.begin().await?;
    let fields = RunFields {
        name: &new.run_name,
        description: new.run_description.as_deref(),
        metadata: run_metadata(new.metadata.take(), version),
        created_at,
    };
    let run = upsert_run(&mut tx, project, &item.dataset_id, fields).await?;
    // The item is already in the run for this trace (posted before, or recorded from the
    // experiment spans): the same item, not a second one.
    if let Some(existing) = linked_item(&mut tx, project, &run.id, &item.id, &trace_id).await? {
        tx.commit().await?;
        return Ok(existing.into_body());
    }
    let mut stored = RunItem {
        id: uuid::Uuid::new_v4().to_string(),
        dataset_run_id: run.id.clone(),
        dataset_run_name: new.run_name,
        dataset_item_id: item.id.clone(),
        trace_id,
        observation_id: new.observation_id,
        created_at: Utc::now(),
        updated_at: Utc::now(),
    };
    let created = insert_item(&mut tx, project, &item, &stored, created_at).await?;
    stored.created_at = created.ok_or_else(|| Error::Conflict("run item id already taken".into()))?;
    stored.updated_at = stored.created_at;
    let row = RunItemRow::new(project, &stored, &item, run.description, &run.metadata.0, run.created_at);
    insert_run_item(clickhouse, row).await?;
    tx.commit().await?;
    Ok(stored.into_body())
}

/// `GET /dataset-run-items?datasetId=&runName=&page=&limit=`: one page of the run's items, newest
/// first.
pub async fn list_run_items(
    pool: &PgPool,
    mode: WriteMode,
    project: &str,
    params: &Params,
) -> Result<Page<DatasetRunItem>> {
    runs_served(mode)?;
    let page = PageRequest::parse(params)?;
    let (Some(dataset_id), Some(run_name)) = (params.string("datasetId"), params.string("runName")) else {
        return Err(Error::bad_request("`datasetId` and `runName` are both required"));
    };
    let run: Option<(String,)> =
        sqlx::query_as("SELECT id FROM dataset_runs WHERE project_id = $1 AND dataset_id = $2 AND name = $3")
            .bind(project)
            .bind(&dataset_id)
            .bind(&run_name)
            .fetch_optional(pool)
            .await?;
    let Some((run_id,)) = run else {
        return Err(Error::not_found("Dataset run not found for the given project and dataset id"));
    };
    let (total,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM dataset_run_items WHERE project_id = $1 AND dataset_run_id = $2",
    )
    .bind(project)
    .bind(&run_id)
    .fetch_one(pool)
    .await?;
    let items = of_run(pool, project, &run_id, Some(&page)).await?;
    Ok(Page::new(items.into_iter().map(RunItem::into_body).collect(), &page, total))
}
