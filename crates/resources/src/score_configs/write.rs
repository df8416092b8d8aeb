//! Creating and updating score configs. A PATCH is merged onto the stored config and the result
//! is checked by the same rules as a new config, under a row lock so two PATCHes cannot interleave.

use serde::{Deserialize, Deserializer};
use sqlx::PgPool;
use sqlx::types::Json;
use utoipa::ToSchema;

use super::definition::{self, Definition};
use super::{COLUMNS, Category, DataType, ScoreConfig, ScoreConfigBody, StoredConfig, find};
use crate::{Error, Result};

/// The body of `POST /api/public/score-configs` (the SDK's `CreateScoreConfigRequest`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewScoreConfig {
    pub name: String,
    /// `NUMERIC`, `CATEGORICAL` or `BOOLEAN`.
    pub data_type: String,
    #[serde(default)]
    #[schema(value_type = Option<Vec<super::ConfigCategory>>)]
    pub categories: Option<Vec<Category>>,
    #[serde(default)]
    pub min_value: Option<f64>,
    #[serde(default)]
    pub max_value: Option<f64>,
    #[serde(default)]
    pub description: Option<String>,
}

/// The body of `PATCH /api/public/score-configs/{configId}` (the SDK's `UpdateScoreConfigRequest`).
/// An absent field keeps its value; `null` clears the nullable ones (`minValue`, `maxValue`,
/// `description`) and means "absent" for the others.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoreConfigPatch {
    #[serde(default)]
    pub is_archived: Option<bool>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<Vec<super::ConfigCategory>>)]
    pub categories: Option<Vec<Category>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<f64>)]
    pub min_value: Option<Option<f64>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<f64>)]
    pub max_value: Option<Option<f64>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub description: Option<Option<String>>,
}

/// `Some(value)` for a key that is present, `null` included; serde's default covers absence.
fn present<'de, T: Deserialize<'de>, D: Deserializer<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

impl ScoreConfigPatch {
    fn is_empty(&self) -> bool {
        self.is_archived.is_none()
            && self.name.is_none()
            && self.categories.is_none()
            && self.min_value.is_none()
            && self.max_value.is_none()
            && self.description.is_none()
    }

    /// The stored config's definition with this patch applied. A BOOLEAN config's categories are
    /// the server's, so only categories passed in the patch count as given (and are refused).
    fn apply(self, stored: &ScoreConfig) -> Definition {
        let kept_categories =
            if stored.data_type == DataType::Boolean { None } else { stored.categories.clone() };
        Definition {
            name: self.name.unwrap_or_else(|| stored.name.clone()),
            data_type: stored.data_type,
            min_value: self.min_value.unwrap_or(stored.min_value),
            max_value: self.max_value.unwrap_or(stored.max_value),
            categories: self.categories.or(kept_categories),
            description: self.description.unwrap_or_else(|| stored.description.clone()),
        }
    }
}

/// `POST /api/public/score-configs`: the new config.
pub async fn create(pool: &PgPool, project: &str, new: NewScoreConfig) -> Result<ScoreConfigBody> {
    let definition = definition::validate(Definition {
        data_type: definition::data_type(&new.data_type)?,
        name: new.name,
        min_value: new.min_value,
        max_value: new.max_value,
        categories: new.categories,
        description: new.description,
    })?;
    let sql = format!(
        "INSERT INTO score_configs (id, project_id, name, data_type, min_value, max_value, categories, description) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {COLUMNS}"
    );
    let row: StoredConfig = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(uuid::Uuid::new_v4().to_string())
        .bind(project)
        .bind(&definition.name)
        .bind(definition.data_type.as_str())
        .bind(definition.min_value)
        .bind(definition.max_value)
        .bind(definition.categories.as_ref().map(Json))
        .bind(&definition.description)
        .fetch_one(pool)
        .await?;
    Ok(ScoreConfig::try_from(row)?.into())
}

/// `PATCH /api/public/score-configs/{configId}`: the updated config.
pub async fn update(
    pool: &PgPool,
    project: &str,
    id: &str,
    patch: ScoreConfigPatch,
) -> Result<ScoreConfigBody> {
    if patch.is_empty() {
        return Err(Error::bad_request(
            "Nothing to update: pass at least one of isArchived, name, categories, minValue, maxValue, description",
        ));
    }
    let mut tx = pool.begin().await?;
    let stored = find(&mut *tx, project, id, true).await?;
    let is_archived = patch.is_archived.unwrap_or(stored.is_archived);
    let definition = definition::validate(patch.apply(&stored))?;
    let sql = format!(
        "UPDATE score_configs SET name = $3, is_archived = $4, min_value = $5, max_value = $6, categories = $7, \
         description = $8, updated_at = now() WHERE project_id = $1 AND id = $2 RETURNING {COLUMNS}"
    );
    let row: StoredConfig = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(id)
        .bind(&definition.name)
        .bind(is_archived)
        .bind(definition.min_value)
        .bind(definition.max_value)
        .bind(definition.categories.as_ref().map(Json))
        .bind(&definition.description)
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(ScoreConfig::try_from(row)?.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(data_type: DataType, categories: Option<Vec<Category>>) -> ScoreConfig {
        ScoreConfig {
            id: "cfg".into(),
            project_id: "p".into(),
            name: "quality".into(),
            data_type,
            is_archived: false,
            min_value: Some(0.0),
            max_value: Some(1.0),
            categories,
            description: Some("old".into()),
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn absent_keys_keep_and_null_clears() {
        let patch: ScoreConfigPatch =
            serde_json::from_value(serde_json::json!({"maxValue": null, "description": null, "name": null}))
                .unwrap();
        let merged = patch.apply(&stored(DataType::Numeric, None));
        assert_eq!((merged.min_value, merged.max_value), (Some(0.0), None));
        assert_eq!((merged.name.as_str(), merged.description), ("quality", None));
        let empty: ScoreConfigPatch = serde_json::from_value(serde_json::json!({"name": null})).unwrap();
        assert!(empty.is_empty(), "null for a non-nullable field is no change");
    }

    #[test]
    fn a_boolean_configs_own_categories_are_not_taken_as_given() {
        let true_false = vec![Category { label: "True".into(), value: 1.0 }];
        let merged = ScoreConfigPatch { name: Some("ok".into()), ..Default::default() }
            .apply(&stored(DataType::Boolean, Some(true_false)));
        assert_eq!(merged.categories, None);
    }
}
