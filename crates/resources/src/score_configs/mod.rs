//! Score configs (`/api/public/score-configs`): the schema of a kind of score — its data type, the
//! range of a NUMERIC score, the categories of a CATEGORICAL one — and, at ingestion, the check that
//! a score naming a config by `configId` fits it ([`ScoreConfigs::fit`]).

mod check;
mod definition;
mod write;

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sqlx::PgPool;
use sqlx::types::Json;

use reads::Params;
use reads::params::PageRequest;

pub use check::{CATEGORY_VALUE_KEY, check};
pub use write::{NewScoreConfig, ScoreConfigPatch, create, update};

use crate::timestamp;
use crate::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    Numeric,
    Categorical,
    Boolean,
    Text,
}

impl DataType {
    pub const ALL: [Self; 4] = [Self::Numeric, Self::Categorical, Self::Boolean, Self::Text];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Numeric => "NUMERIC",
            Self::Categorical => "CATEGORICAL",
            Self::Boolean => "BOOLEAN",
            Self::Text => "TEXT",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|data_type| data_type.as_str() == raw)
    }
}

/// One category of a CATEGORICAL (or BOOLEAN) config: scores carry the label, analyses the value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Category {
    pub label: String,
    pub value: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ScoreConfig {
    pub id: String,
    pub project_id: String,
    pub name: String,
    pub data_type: DataType,
    pub is_archived: bool,
    pub min_value: Option<f64>,
    pub max_value: Option<f64>,
    pub categories: Option<Vec<Category>>,
    pub description: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl ScoreConfig {
    /// The SDK's `ScoreConfig`; absent optional fields are `null`.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "createdAt": timestamp(&self.created_at),
            "updatedAt": timestamp(&self.updated_at),
            "projectId": self.project_id,
            "dataType": self.data_type.as_str(),
            "isArchived": self.is_archived,
            "minValue": self.min_value,
            "maxValue": self.max_value,
            "categories": self.categories,
            "description": self.description,
        })
    }
}

#[derive(sqlx::FromRow)]
struct StoredConfig {
    id: String,
    project_id: String,
    name: String,
    data_type: String,
    is_archived: bool,
    min_value: Option<f64>,
    max_value: Option<f64>,
    categories: Option<Json<Vec<Category>>>,
    description: Option<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

const COLUMNS: &str = "id, project_id, name, data_type, is_archived, min_value, max_value, categories, description, \
                       created_at, updated_at";

impl TryFrom<StoredConfig> for ScoreConfig {
    type Error = Error;

    fn try_from(row: StoredConfig) -> Result<Self> {
        // The table's CHECK admits only known types; anything else is a corrupt row, not a 400.
        let data_type = DataType::parse(&row.data_type).ok_or_else(|| {
            Error::Storage(storage::Error::new(
                storage::ErrorKind::Internal,
                format!("score config {} has an unknown data type {:?}", row.id, row.data_type),
            ))
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
    row.ok_or_else(not_found)?.try_into()
}

/// `GET /api/public/score-configs/{configId}`.
pub async fn get(pool: &PgPool, project: &str, id: &str) -> Result<Value> {
    Ok(find(pool, project, id, false).await?.to_json())
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
        .map(|row| ScoreConfig::try_from(row).map(|config| config.to_json()))
        .collect::<Result<Vec<Value>>>()?;
    Ok(json!({ "data": data, "meta": page.meta(u64::try_from(total).unwrap_or_default()) }))
}

/// The configs a set of scores names, looked up once for the whole request, so that a batch of
/// scores costs one query however many it holds. Not cached: an archived or edited config takes
/// effect on the next score.
#[derive(Debug, Default)]
pub struct ScoreConfigs {
    by_id: HashMap<String, ScoreConfig>,
}

impl ScoreConfigs {
    /// The configs named by the `configId` of `scores` (score bodies as sent) in `project`.
    pub async fn lookup<'a>(
        pool: &PgPool,
        project: &str,
        scores: impl IntoIterator<Item = &'a Map<String, Value>>,
    ) -> Result<Self> {
        let mut ids: Vec<&str> = scores.into_iter().filter_map(|score| config_id(score)).collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.is_empty() {
            return Ok(Self::default());
        }
        let sql = format!("SELECT {COLUMNS} FROM score_configs WHERE project_id = $1 AND id = ANY($2)");
        let rows: Vec<StoredConfig> =
            sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(&ids).fetch_all(pool).await?;
        let by_id = rows
            .into_iter()
            .map(|row| ScoreConfig::try_from(row).map(|config| (config.id.clone(), config)))
            .collect::<Result<_>>()?;
        Ok(Self { by_id })
    }

    /// Checks a score body against the config its `configId` names and rewrites it as it is to be
    /// stored (see [`check::fit`]); a body without a `configId` is left alone. The error says which
    /// rule the score broke.
    pub fn fit(&self, score: &mut Map<String, Value>) -> Result<(), Misfit> {
        let Some(id) = config_id(score) else { return Ok(()) };
        let config = self.by_id.get(id).ok_or_else(|| {
            Misfit::UnknownConfig(format!("configId `{id}` does not match a score config of this project"))
        })?;
        check::fit(config, score).map_err(Misfit::BrokenRule)
    }
}

/// Why a score was refused: a config the project does not have (a 404, as upstream answers), or a
/// rule of its config that the score breaks (a 400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Misfit {
    UnknownConfig(String),
    BrokenRule(String),
}

impl Misfit {
    pub fn message(&self) -> &str {
        match self {
            Misfit::UnknownConfig(message) | Misfit::BrokenRule(message) => message,
        }
    }
}

/// A score body's `configId` when it is a string; other shapes are the score parser's to refuse.
fn config_id(score: &Map<String, Value>) -> Option<&str> {
    score.get("configId").and_then(Value::as_str)
}
