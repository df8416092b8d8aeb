//! Score configs (`/api/public/score-configs`): the schema of a kind of score — its data type, the
//! range of a NUMERIC score, the categories of a CATEGORICAL one — and, at ingestion, the check that
//! a score naming a config by `configId` fits it ([`ScoreConfigs::fit`]).

mod definition;
mod write;

use serde_json::{Value, json};
use sqlx::PgPool;

use reads::Params;
use reads::params::PageRequest;

pub use domain::score_config::{
    CATEGORY_VALUE_KEY, Category, DataType, Misfit, ScoreConfig, ScoreConfigs, check, fit,
};
pub use storage::score_configs::lookup;
use storage::score_configs::{COLUMNS, StoredConfig};
pub use write::{NewScoreConfig, ScoreConfigPatch, create, update};

use crate::timestamp;
use crate::{Error, Result};

/// The SDK's `ScoreConfig`; absent optional fields are `null`.
fn to_json(config: &ScoreConfig) -> Value {
    json!({
        "id": config.id,
        "name": config.name,
        "createdAt": timestamp(&config.created_at),
        "updatedAt": timestamp(&config.updated_at),
        "projectId": config.project_id,
        "dataType": config.data_type.as_str(),
        "isArchived": config.is_archived,
        "minValue": config.min_value,
        "maxValue": config.max_value,
        "categories": config.categories,
        "description": config.description,
    })
}

fn not_found() -> Error {
    Error::not_found("Score config not found within authorized project")
}

/// One config of `project`; `for_update` locks its row until the transaction ends.
async fn find<'e>(
    db: impl sqlx::PgExecutor<'e>,
    project: &str,
    id: &str,
    for_update: bool,
) -> Result<ScoreConfig> {
    let lock = if for_update { " FOR UPDATE" } else { "" };
    let sql = format!("SELECT {COLUMNS} FROM score_configs WHERE project_id = $1 AND id = $2{lock}");
    let row: Option<StoredConfig> =
        sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(id).fetch_optional(db).await?;
    Ok(row.ok_or_else(not_found)?.try_into()?)
}

/// `GET /api/public/score-configs/{configId}`.
pub async fn get(pool: &PgPool, project: &str, id: &str) -> Result<Value> {
    Ok(to_json(&find(pool, project, id, false).await?))
}

/// `GET /api/public/score-configs?page=&limit=`, newest first.
pub async fn list(pool: &PgPool, project: &str, params: &Params) -> Result<Value> {
    let page = PageRequest::parse(params)?;
    let (total,): (i64,) = sqlx::query_as("SELECT count(*) FROM score_configs WHERE project_id = $1")
        .bind(project)
        .fetch_one(pool)
        .await?;
    let sql = format!(
        "SELECT {COLUMNS} FROM score_configs WHERE project_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3"
    );
    let rows: Vec<StoredConfig> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(page.limit)
        .bind(page.offset())
        .fetch_all(pool)
        .await?;
    let data = rows
        .into_iter()
        .map(|row| ScoreConfig::try_from(row).map(|config| to_json(&config)))
        .collect::<storage::Result<Vec<Value>>>()?;
    Ok(json!({ "data": data, "meta": page.meta(u64::try_from(total).unwrap_or_default()) }))
}
