//! Dataset runs: the list of a dataset's runs, one run with its items, and deletion (which also
//! marks the run's rows in ClickHouse deleted).

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::types::Json;
use sqlx::{PgExecutor, PgPool};

use domain::config::WriteMode;
use reads::Params;
use reads::params::PageRequest;
use storage::clickhouse::ClickHouse;

use super::body::{DatasetRun, DatasetRunWithItems};
use super::run_item::RunItem;
use super::{RUN_NOT_FOUND, runs_served};
use crate::timestamp;
use crate::{Error, Message, Page, Result};

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
    fn into_body(self) -> DatasetRun {
        DatasetRun {
            id: self.id,
            name: self.name,
            description: self.description,
            metadata: self.metadata.0,
            dataset_id: self.dataset_id,
            dataset_name: self.dataset_name,
            created_at: timestamp(&self.created_at),
            updated_at: timestamp(&self.updated_at),
        }
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

/// `GET /datasets/{datasetName}/runs?page=&limit=`: newest first.
pub async fn list_runs(
    pool: &PgPool,
    mode: WriteMode,
    project: &str,
    dataset_name: &str,
    params: &Params,
) -> Result<Page<DatasetRun>> {
    runs_served(mode)?;
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
    Ok(Page::new(runs.into_iter().map(Run::into_body).collect(), &page, total))
}

/// `GET /datasets/{datasetName}/runs/{runName}`: the run with all its items.
pub async fn get_run(
    pool: &PgPool,
    mode: WriteMode,
    project: &str,
    dataset_name: &str,
    run_name: &str,
) -> Result<DatasetRunWithItems> {
    runs_served(mode)?;
    let run = find(pool, project, dataset_name, run_name).await?;
    let items = super::run_items::of_run(pool, project, &run.id, None).await?;
    Ok(DatasetRunWithItems {
        run: run.into_body(),
        dataset_run_items: items.into_iter().map(RunItem::into_body).collect(),
    })
}

/// `DELETE /datasets/{datasetName}/runs/{runName}`: the run and its items. ClickHouse gets the
/// deleted versions of the run's rows before PostgreSQL commits, so a failure there leaves the run
/// in place for a retry instead of half deleted.
pub async fn delete_run(
    pool: &PgPool,
    clickhouse: &ClickHouse,
    mode: WriteMode,
    project: &str,
    dataset_name: &str,
    run_name: &str,
) -> Result<Message> {
    runs_served(mode)?;
    let mut tx = pool.begin().await?;
    let run = find(&mut *tx, project, dataset_name, run_name).await?;
    sqlx::query("DELETE FROM dataset_runs WHERE project_id = $1 AND id = $2")
        .bind(project)
        .bind(&run.id)
        .execute(&mut *tx)
        .await?;
    super::clickhouse::mark_run_deleted(clickhouse, project, &run.dataset_id, &run.id).await?;
    tx.commit().await?;
    Ok(Message { message: "Dataset run successfully deleted" })
}
