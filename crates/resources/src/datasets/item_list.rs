//! `GET /dataset-items`: the active items, now or as they were at `version`, newest first.
//!
//! Archived items are left out, as upstream's versioned lists do: the SDK runs experiments over
//! exactly what this list returns and does not filter by status itself.

use chrono::{DateTime, Utc};
use sqlx::PgPool;

use reads::Params;
use reads::params::PageRequest;

use super::body::DatasetItem;
use super::items::{ItemVersion, SELECT, current_at, with_media};
use crate::media::Urls;
use crate::{Error, Page, Result};

/// `$1` project, `$2` dataset id, `$3` source trace, `$4` source observation, `$5` version.
fn filter() -> String {
    format!(
        "v.project_id = $1 AND ($2::text IS NULL OR v.dataset_id = $2) \
         AND ($3::text IS NULL OR v.source_trace_id = $3) AND ($4::text IS NULL OR v.source_observation_id = $4) \
         AND v.status = 'ACTIVE' AND {}",
        current_at("$5")
    )
}

/// `GET /dataset-items?datasetName=&sourceTraceId=&sourceObservationId=&version=&page=&limit=`.
pub async fn list_items(
    pool: &PgPool,
    project: &str,
    params: &Params,
    urls: &Urls<'_>,
) -> Result<Page<DatasetItem>> {
    let page = PageRequest::parse(params)?;
    let version: Option<DateTime<Utc>> = params.datetime("version")?;
    let dataset_name = params.string("datasetName");
    if version.is_some() && dataset_name.is_none() {
        return Err(Error::bad_request("datasetName is required when version parameter is provided"));
    }
    let dataset_id = match dataset_name {
        Some(name) => Some(super::dataset_row::find(pool, project, &name).await?.id),
        None => None,
    };
    let source_trace = params.string("sourceTraceId");
    let source_observation = params.string("sourceObservationId");

    let count_sql = format!("SELECT count(*) FROM dataset_item_versions v WHERE {}", filter());
    let (total,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(count_sql))
        .bind(project)
        .bind(&dataset_id)
        .bind(&source_trace)
        .bind(&source_observation)
        .bind(version)
        .fetch_one(pool)
        .await?;
    let sql = format!("{SELECT} WHERE {} ORDER BY v.created_at DESC, v.id LIMIT $6 OFFSET $7", filter());
    let items: Vec<ItemVersion> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(&dataset_id)
        .bind(&source_trace)
        .bind(&source_observation)
        .bind(version)
        .bind(page.limit)
        .bind(page.offset())
        .fetch_all(pool)
        .await?;
    Ok(Page::new(with_media(pool, project, items, urls).await?, &page, total))
}
