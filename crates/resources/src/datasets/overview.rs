//! The datasets page's list: each dataset with how many active items it has, how many runs, and
//! when the newest run started. Two grouped queries over the page's datasets, so the cost is one
//! page whatever the project holds.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;

use reads::Params;
use reads::params::PageRequest;

use super::body::Dataset;
use crate::{Page, Result, timestamp};

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DatasetOverview {
    #[serde(flatten)]
    pub dataset: Dataset,
    /// Active items now.
    pub item_count: i64,
    pub run_count: i64,
    /// When the newest run was created; null without runs.
    pub last_run_at: Option<String>,
}

/// One page of the project's datasets, newest first, with their counts.
pub async fn overview(pool: &PgPool, project: &str, params: &Params) -> Result<Page<DatasetOverview>> {
    let request = PageRequest::parse(params)?;
    let (datasets, total) = super::dataset::page(pool, project, &request).await?;
    let ids: Vec<String> = datasets.iter().map(|d| d.id.clone()).collect();
    let items: HashMap<String, i64> = sqlx::query_as(
        "SELECT dataset_id, count(*) FROM dataset_item_versions WHERE project_id = $1 AND dataset_id = ANY($2) \
         AND valid_to IS NULL AND NOT is_deleted AND status = 'ACTIVE' GROUP BY dataset_id",
    )
    .bind(project)
    .bind(&ids)
    .fetch_all(pool)
    .await?
    .into_iter()
    .collect();
    let runs: Vec<(String, i64, DateTime<Utc>)> = sqlx::query_as(
        "SELECT dataset_id, count(*), max(created_at) FROM dataset_runs WHERE project_id = $1 \
         AND dataset_id = ANY($2) GROUP BY dataset_id",
    )
    .bind(project)
    .bind(&ids)
    .fetch_all(pool)
    .await?;
    let data = datasets
        .iter()
        .map(|row| {
            let run = runs.iter().find(|(id, ..)| *id == row.id);
            DatasetOverview {
                dataset: row.to_body(),
                item_count: items.get(&row.id).copied().unwrap_or(0),
                run_count: run.map_or(0, |r| r.1),
                last_run_at: run.map(|r| timestamp(&r.2)),
            }
        })
        .collect();
    Ok(Page::new(data, &request, total))
}
