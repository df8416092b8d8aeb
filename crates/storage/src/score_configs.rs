//! The `score_configs` table: the row type the score-config resource reads and writes, and the one
//! query ingestion makes, for the configs a request's scores name.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use sqlx::PgPool;
use sqlx::types::Json;

use domain::score_config::{Category, DataType, ScoreConfig, ScoreConfigs, config_id};

use crate::{Error, ErrorKind, Result};

/// A `score_configs` row as PostgreSQL returns it.
#[derive(sqlx::FromRow)]
pub struct StoredConfig {
    pub id: String,
    pub project_id: String,
    pub name: String,
    pub data_type: String,
    pub is_archived: bool,
    pub min_value: Option<f64>,
    pub max_value: Option<f64>,
    pub categories: Option<Json<Vec<Category>>>,
    pub description: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

pub const COLUMNS: &str = "id, project_id, name, data_type, is_archived, min_value, max_value, categories, description, \
                       created_at, updated_at";

impl TryFrom<StoredConfig> for ScoreConfig {
    type Error = Error;

    fn try_from(row: StoredConfig) -> Result<Self> {
        // The table's CHECK admits only known types; anything else is a corrupt row, not a 400.
        let data_type = DataType::parse(&row.data_type).ok_or_else(|| {
            Error::new(
                ErrorKind::Internal,
                format!("score config {} has an unknown data type {:?}", row.id, row.data_type),
            )
        })?;
        Ok(Self {
            id: row.id,
            project_id: row.project_id,
            name: row.name,
            data_type,
            is_archived: row.is_archived,
            min_value: row.min_value,
            max_value: row.max_value,
            categories: row.categories.map(|categories| categories.0),
            description: row.description,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }
}

/// The configs named by the `configId` of `scores` (score bodies as sent) in `project`.
pub async fn lookup<'a>(
    pool: &PgPool,
    project: &str,
    scores: impl IntoIterator<Item = &'a Map<String, Value>>,
) -> Result<ScoreConfigs> {
    let mut ids: Vec<&str> = scores.into_iter().filter_map(|score| config_id(score)).collect();
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Ok(ScoreConfigs::default());
    }
    let sql = format!("SELECT {COLUMNS} FROM score_configs WHERE project_id = $1 AND id = ANY($2)");
    let rows: Vec<StoredConfig> =
        sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(&ids).fetch_all(pool).await?;
    let configs = rows.into_iter().map(ScoreConfig::try_from).collect::<Result<Vec<_>>>()?;
    Ok(ScoreConfigs::new(configs))
}
