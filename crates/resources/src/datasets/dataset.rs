//! The datasets themselves: upsert by name, get by name, and the v2 and v1 lists.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;
use sqlx::PgPool;
use utoipa::ToSchema;

use reads::Params;
use reads::params::PageRequest;

use super::body::{Dataset, DatasetWithItemIds, DatasetWithItems};
use super::budget::{self, Budget};
use super::dataset_row::{COLUMNS, DatasetRow, find, find_row};
use super::items;
use super::schema::ItemSchemas;
use super::{NOW, present, require_name, stored};
use crate::media::Urls;
use crate::page::project_page;
use crate::{Error, Page, Result};

/// The body of `POST /v2/datasets` (and v1; the SDKs' `CreateDatasetRequest`). On an existing
/// name, absent or null `description` and `metadata` keep what is stored; the schemas are replaced
/// when sent, cleared when null.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewDataset {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub metadata: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub input_schema: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub expected_output_schema: Option<Value>,
}

async fn upsert_row(pool: &PgPool, project: &str, new: NewDataset) -> Result<DatasetRow> {
    require_name("name", &new.name)?;
    // Compiling refuses an invalid schema, with what is wrong. Compiling and checking the items
    // run off the async threads, within one budget.
    let budget = Budget::start(budget::SCHEMA_CHANGE, "checking the dataset's items against its new schemas");
    let sent = (new.input_schema.clone(), new.expected_output_schema.clone());
    let new_schemas =
        Arc::new(budget.run(move || ItemSchemas::compile(sent.0.as_ref(), sent.1.as_ref())).await??);
    let mut tx = pool.begin().await?;
    // New schemas must fit the items already in the dataset, as upstream checks; the row lock
    // keeps item writes (which share it) out until this commits.
    if !new_schemas.is_empty()
        && let Some(existing) = find_row(&mut *tx, project, &new.name, " FOR UPDATE").await?
        && let Some(mismatches) =
            items::mismatching_items(&mut tx, project, &existing.id, new_schemas.clone(), budget).await?
    {
        return Err(Error::bad_request(mismatches));
    }
    let sql = format!(
        "INSERT INTO datasets AS d ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, {NOW}, {NOW}) \
         ON CONFLICT (project_id, name) DO UPDATE SET \
           description = COALESCE(EXCLUDED.description, d.description), \
           metadata = COALESCE(EXCLUDED.metadata, d.metadata), \
           input_schema = CASE WHEN $8 THEN EXCLUDED.input_schema ELSE d.input_schema END, \
           expected_output_schema = CASE WHEN $9 THEN EXCLUDED.expected_output_schema \
                                    ELSE d.expected_output_schema END, \
           updated_at = EXCLUDED.updated_at \
         RETURNING {COLUMNS}"
    );
    let replace_input_schema = new.input_schema.is_some();
    let replace_output_schema = new.expected_output_schema.is_some();
    let dataset = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(uuid::Uuid::new_v4().to_string())
        .bind(&new.name)
        .bind(&new.description)
        .bind(stored(new.metadata))
        .bind(stored(new.input_schema))
        .bind(stored(new.expected_output_schema))
        .bind(replace_input_schema)
        .bind(replace_output_schema)
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(dataset)
}

/// `POST /v2/datasets`: creates the dataset, or updates the one with that name.
pub async fn upsert(pool: &PgPool, project: &str, new: NewDataset) -> Result<Dataset> {
    Ok(upsert_row(pool, project, new).await?.to_body())
}

/// `POST /datasets` (v1): as v2, with the v1 object's `items` and `runs` (empty, as upstream).
pub async fn upsert_v1(pool: &PgPool, project: &str, new: NewDataset) -> Result<DatasetWithItemIds> {
    let dataset = upsert(pool, project, new).await?;
    Ok(DatasetWithItemIds { dataset, items: Vec::new(), runs: Vec::new() })
}

/// `GET /v2/datasets/{datasetName}`.
pub async fn get(pool: &PgPool, project: &str, name: &str) -> Result<Dataset> {
    Ok(find(pool, project, name).await?.to_body())
}

/// One page of datasets, newest first, and the count of all of them.
pub(super) async fn page(pool: &PgPool, project: &str, page: &PageRequest) -> Result<(Vec<DatasetRow>, i64)> {
    Ok(project_page(pool, "datasets", COLUMNS, "created_at DESC, id", project, page).await?)
}

/// `GET /v2/datasets?page=&limit=`.
pub async fn list(pool: &PgPool, project: &str, params: &Params) -> Result<Page<Dataset>> {
    let request = PageRequest::parse(params)?;
    let (datasets, total) = page(pool, project, &request).await?;
    Ok(Page::new(datasets.iter().map(DatasetRow::to_body).collect(), &request, total))
}

/// `(dataset id, value)` rows grouped by dataset id, in query order.
fn grouped(rows: Vec<(String, String)>) -> HashMap<String, Vec<String>> {
    let mut groups: HashMap<String, Vec<String>> = HashMap::new();
    for (dataset, value) in rows {
        groups.entry(dataset).or_default().push(value);
    }
    groups
}

/// The names of each dataset's runs, newest first.
async fn run_names(
    pool: &PgPool,
    project: &str,
    datasets: &[String],
) -> Result<HashMap<String, Vec<String>>> {
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT dataset_id, name FROM dataset_runs WHERE project_id = $1 AND dataset_id = ANY($2) \
         ORDER BY created_at DESC, id",
    )
    .bind(project)
    .bind(datasets)
    .fetch_all(pool)
    .await?;
    Ok(grouped(rows))
}

/// `GET /datasets?page=&limit=` (v1): each dataset with its active items' ids and its runs' names.
pub async fn list_v1(pool: &PgPool, project: &str, params: &Params) -> Result<Page<DatasetWithItemIds>> {
    let request = PageRequest::parse(params)?;
    let (datasets, total) = page(pool, project, &request).await?;
    let ids: Vec<String> = datasets.iter().map(|d| d.id.clone()).collect();
    let items: Vec<(String, String)> = sqlx::query_as(
        "SELECT dataset_id, id FROM dataset_item_versions WHERE project_id = $1 AND dataset_id = ANY($2) \
         AND valid_to IS NULL AND NOT is_deleted AND status = 'ACTIVE' ORDER BY created_at DESC, id",
    )
    .bind(project)
    .bind(&ids)
    .fetch_all(pool)
    .await?;
    let mut items = grouped(items);
    let mut runs = run_names(pool, project, &ids).await?;
    let data = datasets
        .iter()
        .map(|dataset| DatasetWithItemIds {
            dataset: dataset.to_body(),
            items: items.remove(&dataset.id).unwrap_or_default(),
            runs: runs.remove(&dataset.id).unwrap_or_default(),
        })
        .collect();
    Ok(Page::new(data, &request, total))
}

/// `GET /datasets/{datasetName}` (v1): the dataset with its active items in full (with their
/// media, URLs for this caller) and its runs' names.
pub async fn get_v1(pool: &PgPool, project: &str, name: &str, urls: &Urls<'_>) -> Result<DatasetWithItems> {
    let dataset = find(pool, project, name).await?;
    let items = items::current_active(pool, project, &dataset.id).await?;
    let mut runs = run_names(pool, project, std::slice::from_ref(&dataset.id)).await?;
    Ok(DatasetWithItems {
        items: items::with_media(pool, project, items, urls).await?,
        runs: runs.remove(&dataset.id).unwrap_or_default(),
        dataset: dataset.to_body(),
    })
}
