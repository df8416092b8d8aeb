//! The stored score a person's edit or deletion starts from: its author (only they may change it)
//! and everything the edited score keeps (name, subject, config, data type, environment, time).

use serde_json::Value;
use storage::clickhouse::ClickHouse;

use crate::Result;
use crate::latest;
use crate::scores::{SCORE_COLUMNS, ScoreRow, ScoreValue};
use crate::sql::{Sql, project};

/// A live score as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredScore {
    pub id: String,
    pub name: String,
    pub data_type: String,
    pub value: ScoreValue,
    pub source: String,
    pub comment: Option<String>,
    pub config_id: Option<String>,
    pub metadata: Value,
    pub author_user_id: Option<String>,
    pub trace_id: Option<String>,
    pub observation_id: Option<String>,
    pub session_id: Option<String>,
    pub dataset_run_id: Option<String>,
    pub environment: String,
    /// ISO 8601.
    pub timestamp: String,
}

/// The newest live version of score `id` in the project; `None` when there is none (or it is
/// deleted, or still queued).
pub async fn stored(clickhouse: &ClickHouse, project_id: &str, id: &str) -> Result<Option<StoredScore>> {
    let mut sql = Sql::new(&format!("SELECT {SCORE_COLUMNS} FROM "));
    sql.append(&latest::SCORES.newest_of(&project(project_id), vec![id.to_owned()], &Sql::default()));
    let rows: Vec<ScoreRow> = sql.fetch(clickhouse).await?;
    Ok(rows.into_iter().find(|row| row.deleted == 0).map(|mut row| {
        let value = row.typed_value();
        StoredScore {
            id: row.id,
            name: row.name,
            data_type: row.data_type,
            value,
            source: row.source,
            comment: row.comment,
            config_id: row.config_id,
            metadata: row.metadata,
            author_user_id: row.author_user_id,
            trace_id: row.trace_id,
            observation_id: row.observation_id,
            session_id: row.session_id,
            dataset_run_id: row.dataset_run_id,
            environment: row.environment,
            timestamp: row.timestamp,
        }
    }))
}
