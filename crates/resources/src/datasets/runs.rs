//! Dataset runs: the list of a dataset's runs, one run with its items, and deletion (which also
//! marks the run's rows in ClickHouse deleted).

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use sqlx::types::Json;
use sqlx::{PgExecutor, PgPool};

use reads::Params;
use reads::params::PageRequest;
use storage::clickhouse::ClickHouse;

use super::RUN_NOT_FOUND;
use super::run_item::RunItem;
use crate::timestamp;
use crate::{Error, Result};

#[derive(Debug, Clone, sqlx::FromRow)]
pub(crate) struct Run {
    pub id: String,
    pub dataset_id: String,
    pub dataset_name: String,
    pub name: String,
    pub description: Option<String>,
    pub metadata: Json<Value>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// Runs joined to their dataset; callers add `WHERE` on `r.` and `d.` columns.
pub(crate) const SELECT: &str = "SELECT r.id, r.dataset_id, d.name AS dataset_name, r.name, r.description, \
    r.metadata, r.created_at, r.updated_at \
    FROM dataset_runs r JOIN datasets d ON d.project_id = r.project_id AND d.id = r.dataset_id";

impl Run {
    /// The DatasetRun object of the SDKs.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "metadata": self.metadata.0,
            "datasetId": self.dataset_id,
            "datasetName": self.dataset_name,
            "createdAt": timestamp(&self.created_at),
            "updatedAt": timestamp(&self.updated_at),
        })
    }
}

/// The run `run_name` of the dataset `dataset_name`, or 404 `Dataset run not found`.
async fn find<'e>(db: impl PgExecutor<'e>, project: &str, dataset_name: &str, run_name: &str) -> Result<Run> {
    let sql = format!("{SELECT} WHERE r.project_id = $1 AND d.name = $2 AND r.name = $3");
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(dataset_name)
        .bind(run_name)
        .fetch_optional(db)
        .await?
        .ok_or_else(|| Error::not_found(RUN_NOT_FOUND))
}

/// `GET /datasets/{datasetName}/runs`: newest first.
pub async fn list_runs(pool: &PgPool, project: &str, dataset_name: &str, params: &Params) -> Result<Value> {
    let page = PageRequest::parse(params)?;
    let dataset = super::dataset_row::find(pool, project, dataset_name).await?;
    let (total,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM dataset_runs WHERE project_id = $1 AND dataset_id = $2")
            .bind(project)
            .bind(&dataset.id)
            .fetch_one(pool)
            .await?;
    let sql = format!(
        "{SELECT} WHERE r.project_id = $1 AND r.dataset_id = $2 ORDER BY r.created_at DESC, r.id LIMIT $3 OFFSET $4"
    );
    let runs: Vec<Run> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(&dataset.id)
        .bind(page.limit)
        .bind(page.offset())
        .fetch_all(pool)
        .await?;
    let data: Vec<Value> = runs.iter().map(Run::to_json).collect();
    Ok(json!({ "data": data, "meta": page.meta(u64::try_from(total).unwrap_or_default()) }))
}

/// `GET /datasets/{datasetName}/runs/{runName}`: the run with all its items (DatasetRunWithItems).
pub async fn get_run(pool: &PgPool, project: &str, dataset_name: &str, run_name: &str) -> Result<Value> {
    let run = find(pool, project, dataset_name, run_name).await?;
    let items = super::run_items::of_run(pool, project, &run.id, None).await?;
    let mut body = run.to_json();
    body["datasetRunItems"] = Value::Array(items.iter().map(RunItem::to_json).collect());
    Ok(body)
}

/// `DELETE /datasets/{datasetName}/runs/{runName}`: the run and its items. ClickHouse gets the
/// deleted versions of the run's rows before PostgreSQL commits, so a failure there leaves the run
/// in place for a retry instead of half deleted.
pub async fn delete_run(
    pool: &PgPool,
    clickhouse: &ClickHouse,
    project: &str,
    dataset_name: &str,
    run_name: &str,
) -> Result<Value> {
    let mut tx = pool.begin().await?;
    let run = find(&mut *tx, project, dataset_name, run_name).await?;
    sqlx::query("DELETE FROM dataset_runs WHERE project_id = $1 AND id = $2")
        .bind(project)
        .bind(&run.id)
        .execute(&mut *tx)
        .await?;
    super::clickhouse::mark_run_deleted(clickhouse, project, &run.dataset_id, &run.id).await?;
    tx.commit().await?;
    Ok(json!({ "message": "Dataset run successfully deleted" }))
}
