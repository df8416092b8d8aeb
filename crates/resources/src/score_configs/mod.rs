//! Score configs (`/api/public/score-configs`): the schema of a kind of score — its data type, the
//! range of a NUMERIC score, the categories of a CATEGORICAL one. Whether a score naming a config by
//! `configId` fits it is `domain::score_config`'s rule, checked at ingestion.

mod definition;
mod write;

use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;

use reads::Params;
use reads::params::PageRequest;

pub use domain::score_config::{Category, DataType, ScoreConfig};
use storage::score_configs::{COLUMNS, StoredConfig};
pub use write::{NewScoreConfig, ScoreConfigPatch, create, update};

use crate::page::project_page;
use crate::timestamp;
use crate::{Error, Page, Result};

/// The SDK's `ScoreConfig`; absent optional fields are `null`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = ScoreConfig)]
pub struct ScoreConfigBody {
    pub id: String,
    pub name: String,
    pub created_at: String,
    pub updated_at: String,
    pub project_id: String,
    /// `NUMERIC`, `CATEGORICAL` or `BOOLEAN`.
    pub data_type: &'static str,
    pub is_archived: bool,
    pub min_value: Option<f64>,
    pub max_value: Option<f64>,
    #[schema(value_type = Option<Vec<ConfigCategory>>)]
    pub categories: Option<Vec<Category>>,
    pub description: Option<String>,
}

/// One category of a CATEGORICAL or BOOLEAN config (the SDK's `ConfigCategory`), as documented;
/// the wire shape is `domain::score_config::Category`'s.
#[derive(ToSchema)]
#[allow(dead_code)] // documents `Category`, which `domain` keeps free of OpenAPI; never built
pub struct ConfigCategory {
    pub label: String,
    pub value: f64,
}

impl From<ScoreConfig> for ScoreConfigBody {
    fn from(config: ScoreConfig) -> Self {
        Self {
            created_at: timestamp(&config.created_at),
            updated_at: timestamp(&config.updated_at),
            data_type: config.data_type.as_str(),
            id: config.id,
            name: config.name,
            project_id: config.project_id,
            is_archived: config.is_archived,
            min_value: config.min_value,
            max_value: config.max_value,
            categories: config.categories,
            description: config.description,
        }
    }
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
pub async fn get(pool: &PgPool, project: &str, id: &str) -> Result<ScoreConfigBody> {
    Ok(find(pool, project, id, false).await?.into())
}

/// `GET /api/public/score-configs?page=&limit=`, newest first.
pub async fn list(pool: &PgPool, project: &str, params: &Params) -> Result<Page<ScoreConfigBody>> {
    let page = PageRequest::parse(params)?;
    let (rows, total): (Vec<StoredConfig>, _) =
        project_page(pool, "score_configs", COLUMNS, "created_at DESC, id", project, &page).await?;
    let data = rows
        .into_iter()
        .map(|row| ScoreConfig::try_from(row).map(ScoreConfigBody::from))
        .collect::<storage::Result<Vec<_>>>()?;
    Ok(Page::new(data, &page, total))
}
