//! `GET /v2/prompts`: one entry per prompt name, summarising the versions that match the filters.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::postgres::PgArguments;
use sqlx::query::QueryAs;
use sqlx::types::Json;
use sqlx::{PgPool, Postgres};

use reads::Params;
use reads::params::PageRequest;

use super::PromptMeta;
use crate::{Page, Result, timestamp};

/// The filters of the list; each narrows the versions considered.
const FILTER: &str = "project_id = $1 AND ($2::text IS NULL OR name = $2) AND ($3::text IS NULL OR $3 = ANY(labels)) \
                      AND ($4::text IS NULL OR $4 = ANY(tags)) AND ($5::timestamptz IS NULL OR updated_at >= $5) \
                      AND ($6::timestamptz IS NULL OR updated_at < $6)";

#[derive(sqlx::FromRow)]
struct Version {
    name: String,
    version: i32,
    #[sqlx(rename = "type")]
    kind: String,
    labels: Vec<String>,
    tags: Vec<String>,
    config: Json<Value>,
    updated_at: DateTime<Utc>,
}

struct Filters {
    project: String,
    name: Option<String>,
    label: Option<String>,
    tag: Option<String>,
    from: Option<DateTime<Utc>>,
    to: Option<DateTime<Utc>>,
}

impl Filters {
    /// `sql` (which uses `FILTER`) with the filters bound as `$1`–`$6`.
    fn bind<'q, T>(&'q self, sql: String) -> QueryAs<'q, Postgres, T, PgArguments>
    where
        T: for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>,
    {
        sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(&self.project)
            .bind(&self.name)
            .bind(&self.label)
            .bind(&self.tag)
            .bind(self.from)
            .bind(self.to)
    }
}

/// `GET /v2/prompts?name=&label=&tag=&fromUpdatedAt=&toUpdatedAt=&page=&limit=`, by name.
pub async fn list(pool: &PgPool, project: &str, params: &Params) -> Result<Page<PromptMeta>> {
    let page = PageRequest::parse(params)?;
    let filters = Filters {
        project: project.to_owned(),
        name: params.string("name"),
        label: params.string("label"),
        tag: params.string("tag"),
        from: params.datetime("fromUpdatedAt")?,
        to: params.datetime("toUpdatedAt")?,
    };
    let (total,): (i64,) = filters
        .bind(format!("SELECT count(DISTINCT name) FROM prompts WHERE {FILTER}"))
        .fetch_one(pool)
        .await?;
    let names: Vec<(String,)> = filters
        .bind(format!(
            "SELECT name FROM prompts WHERE {FILTER} GROUP BY name ORDER BY name LIMIT $7 OFFSET $8"
        ))
        .bind(page.limit)
        .bind(page.offset())
        .fetch_all(pool)
        .await?;
    let names: Vec<String> = names.into_iter().map(|(name,)| name).collect();
    let versions: Vec<Version> = filters
        .bind(format!(
            "SELECT name, version, type, labels, tags, config, updated_at FROM prompts \
             WHERE {FILTER} AND name = ANY($7) ORDER BY name, version"
        ))
        .bind(&names)
        .fetch_all(pool)
        .await?;

    let data: Vec<PromptMeta> = versions.chunk_by(|a, b| a.name == b.name).map(summarise).collect();
    Ok(Page::new(data, &page, total))
}

/// One name's matching versions, oldest first (never empty: `chunk_by` makes no empty chunk).
fn summarise(versions: &[Version]) -> PromptMeta {
    let newest = &versions[versions.len() - 1];
    let mut labels: Vec<String> = versions.iter().flat_map(|v| v.labels.iter().cloned()).collect();
    labels.sort();
    labels.dedup();
    let last_updated = versions.iter().map(|v| v.updated_at).max().unwrap_or(newest.updated_at);
    PromptMeta {
        name: newest.name.clone(),
        kind: newest.kind.clone(),
        versions: versions.iter().map(|v| v.version).collect(),
        labels,
        tags: newest.tags.clone(),
        last_updated_at: timestamp(&last_updated),
        last_config: newest.config.0.clone(),
    }
}
