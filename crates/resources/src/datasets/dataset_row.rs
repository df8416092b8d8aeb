//! The `datasets` row as PostgreSQL stores it and the lookups by name that the dataset and item
//! writes share (an item write holds its dataset's row against a concurrent schema change).

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::types::Json;
use sqlx::{PgConnection, PgExecutor};

use super::body::Dataset;
use super::{DATASET_NOT_FOUND, shown};
use crate::timestamp;
use crate::{Error, Result};

#[derive(Debug, Clone, sqlx::FromRow)]
pub(crate) struct DatasetRow {
    pub project_id: String,
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub metadata: Option<Json<Value>>,
    pub input_schema: Option<Json<Value>>,
    pub expected_output_schema: Option<Json<Value>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

pub(crate) const COLUMNS: &str = "project_id, id, name, description, metadata, input_schema, expected_output_schema, \
                       created_at, updated_at";

impl DatasetRow {
    pub fn to_body(&self) -> Dataset {
        Dataset {
            id: self.id.clone(),
            name: self.name.clone(),
            description: self.description.clone(),
            metadata: shown(&self.metadata),
            input_schema: shown(&self.input_schema),
            expected_output_schema: shown(&self.expected_output_schema),
            project_id: self.project_id.clone(),
            created_at: timestamp(&self.created_at),
            updated_at: timestamp(&self.updated_at),
        }
    }
}

/// The dataset called `name`, or 404 `Dataset not found`.
pub(crate) async fn find<'e>(db: impl PgExecutor<'e>, project: &str, name: &str) -> Result<DatasetRow> {
    find_row(db, project, name, "").await?.ok_or_else(|| Error::not_found(DATASET_NOT_FOUND))
}

/// As [`find`], holding the row until the transaction ends against a schema change (which locks
/// it for update): an item write checks its data against the schemas it read, so they must stay.
pub(crate) async fn find_for_item_write(
    tx: &mut PgConnection,
    project: &str,
    name: &str,
) -> Result<DatasetRow> {
    find_row(tx, project, name, " FOR SHARE").await?.ok_or_else(|| Error::not_found(DATASET_NOT_FOUND))
}

pub(crate) async fn find_row<'e>(
    db: impl PgExecutor<'e>,
    project: &str,
    name: &str,
    lock: &str,
) -> Result<Option<DatasetRow>> {
    let sql = format!("SELECT {COLUMNS} FROM datasets WHERE project_id = $1 AND name = $2{lock}");
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(name).fetch_optional(db).await?)
}
