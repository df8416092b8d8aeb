//! The stored prompt a generation names: SDKs send a prompt's name and version with a generation;
//! the worker stores the prompt's id with it so reads and the UI link back to the prompt.

use std::collections::HashMap;

use sqlx::PgPool;

use crate::Result;

/// (project, prompt name, version) → prompt id, for the keys that exist.
pub type PromptIds = HashMap<(String, String, u16), String>;

pub async fn prompt_ids(pool: &PgPool, keys: &[(String, String, u16)]) -> Result<PromptIds> {
    if keys.is_empty() {
        return Ok(PromptIds::new());
    }
    let projects: Vec<&str> = keys.iter().map(|(project, _, _)| project.as_str()).collect();
    let names: Vec<&str> = keys.iter().map(|(_, name, _)| name.as_str()).collect();
    let versions: Vec<i32> = keys.iter().map(|(_, _, version)| i32::from(*version)).collect();
    let rows: Vec<(String, String, i32, String)> = sqlx::query_as(
        "SELECT p.project_id, p.name, p.version, p.id FROM prompts p \
         JOIN unnest($1::text[], $2::text[], $3::int[]) AS k(project_id, name, version) \
         ON p.project_id = k.project_id AND p.name = k.name AND p.version = k.version",
    )
    .bind(&projects)
    .bind(&names)
    .bind(&versions)
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(project, name, version, id)| Some(((project, name, u16::try_from(version).ok()?), id)))
        .collect())
}
