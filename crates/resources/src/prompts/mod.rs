//! Prompts v2 (reference/public-api.md §4.10): versions of a named prompt, labels that move between
//! versions (`latest` kept on the newest by the server), shared tags, and references between
//! prompts resolved on read.

mod body;
pub mod browse;
mod list;
mod references;
mod resolve;
mod validate;
mod write;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgPool;
use sqlx::types::Json;

use reads::Params;

pub use body::{Prompt, PromptMeta, PromptNode, ResolutionGraph};
pub use list::list;
pub use references::Selector;
pub use validate::PRODUCTION;
pub use write::{NewLabels, NewPrompt, create, delete, update_labels};

use crate::{Error, Result, timestamp};

/// One stored version of a prompt.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct StoredPrompt {
    pub id: String,
    pub project_id: String,
    pub name: String,
    pub version: i32,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub prompt: Json<Value>,
    pub config: Json<Value>,
    pub labels: Vec<String>,
    pub tags: Vec<String>,
    pub commit_message: Option<String>,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

const COLUMNS: &str = "id, project_id, name, version, type, prompt, config, labels, tags, commit_message, \
                       created_by, created_at, updated_at";

impl StoredPrompt {
    /// The Prompt object of the SDKs, with the server's extra keys; `prompt` is the given body
    /// (resolved or as stored).
    fn into_body(self, prompt: Value, resolution_graph: Option<ResolutionGraph>) -> Prompt {
        Prompt {
            id: self.id,
            created_at: timestamp(&self.created_at),
            updated_at: timestamp(&self.updated_at),
            project_id: self.project_id,
            created_by: self.created_by,
            name: self.name,
            version: self.version,
            kind: self.kind,
            prompt,
            config: self.config.0,
            labels: self.labels,
            tags: self.tags,
            commit_message: self.commit_message,
            is_active: None,
            resolution_graph,
        }
    }

    pub fn into_stored_body(mut self) -> Prompt {
        let prompt = self.prompt.0.take();
        self.into_body(prompt, None)
    }

    fn node(&self) -> PromptNode {
        PromptNode { id: self.id.clone(), name: self.name.clone(), version: self.version }
    }
}

/// The versions each version pulled in, by the referencing version's id.
pub(crate) type Dependencies = BTreeMap<String, Vec<PromptNode>>;

fn not_found(name: &str, selector: &Selector) -> Error {
    match selector {
        Selector::Version(version) => {
            Error::not_found(format!("Prompt not found: '{name}' with version {version}"))
        }
        Selector::Label(label) => {
            Error::not_found(format!("Prompt not found: '{name}' with label '{label}'"))
        }
    }
}

/// One version by number or label.
pub(crate) async fn find<'e>(
    db: impl sqlx::PgExecutor<'e>,
    project: &str,
    name: &str,
    selector: &Selector,
) -> Result<Option<StoredPrompt>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM prompts WHERE project_id = $1 AND name = $2 \
         AND (version = $3 OR $4 = ANY(labels)) ORDER BY version DESC LIMIT 1"
    );
    let (version, label) = match selector {
        Selector::Version(version) => (Some(*version), None),
        Selector::Label(label) => (None, Some(label.as_str())),
    };
    let query = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(name).bind(version).bind(label);
    Ok(query.fetch_optional(db).await?)
}

/// `GET /v2/prompts/{promptName}?version=&label=&resolve=`: the version asked for (label
/// `production` when neither is given), with references replaced by the texts they point at unless
/// `resolve` is false.
pub async fn get(pool: &PgPool, project: &str, name: &str, params: &Params) -> Result<Prompt> {
    let selector = Selector::from_params(params)?.unwrap_or_else(|| Selector::Label(PRODUCTION.to_owned()));
    let resolve = params.bool("resolve")?.unwrap_or(true);
    let prompt = find(pool, project, name, &selector).await?.ok_or_else(|| not_found(name, &selector))?;
    if !resolve {
        return Ok(prompt.into_stored_body());
    }
    let (body, dependencies) =
        resolve::resolve(pool, project, &prompt.name, &prompt.id, &prompt.prompt.0).await?;
    let graph = (!dependencies.is_empty()).then(|| ResolutionGraph { root: prompt.node(), dependencies });
    Ok(prompt.into_body(body, graph))
}
