//! Creating versions, moving labels and deleting versions. Each runs in one transaction under a
//! per-name advisory lock, so concurrent writers of one prompt get distinct version numbers and a
//! label never ends up on two versions.

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::{Map, Value};
use sqlx::{PgConnection, PgPool};
use utoipa::ToSchema;

use reads::Params;

use super::references::{self, Selector};
use super::validate::{self, LATEST};
use super::{COLUMNS, Prompt, StoredPrompt, not_found};
use crate::{Error, Result};

/// The body of `POST /v2/prompts` (the SDKs' `CreateTextPromptRequest` or
/// `CreateChatPromptRequest`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewPrompt {
    /// The full name, folders included (`team/summarise`).
    pub name: String,
    /// `text` (the default) or `chat`.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// A string for `text`, a list of messages and placeholders for `chat`.
    pub prompt: Value,
    #[serde(default)]
    pub config: Option<Value>,
    #[serde(default)]
    pub labels: Vec<String>,
    /// Absent: the new version keeps the prompt's tags. Present: every version gets these tags.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    #[serde(default)]
    pub commit_message: Option<String>,
}

async fn lock_name(tx: &mut PgConnection, project: &str, name: &str) -> Result<()> {
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1 || '/prompt/' || $2, 0))")
        .bind(project)
        .bind(name)
        .execute(tx)
        .await?;
    Ok(())
}

/// Takes `labels` off every other version of the prompt.
async fn take_labels(
    tx: &mut PgConnection,
    project: &str,
    name: &str,
    labels: &[String],
    keep: i32,
) -> Result<()> {
    sqlx::query(
        "UPDATE prompts SET labels = array(SELECT l FROM unnest(labels) l WHERE l <> ALL($3)), updated_at = now() \
         WHERE project_id = $1 AND name = $2 AND version <> $4 AND labels && $3",
    )
    .bind(project)
    .bind(name)
    .bind(labels)
    .bind(keep)
    .execute(tx)
    .await?;
    Ok(())
}

fn unique(labels: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    labels.into_iter().filter(|label| seen.insert(label.clone())).collect()
}

/// The body of `PATCH /v2/prompts/{promptName}/versions/{version}`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewLabels {
    /// Added to the version and taken off whichever version had them.
    pub new_labels: Vec<String>,
}

/// `POST /v2/prompts`: the next version of `name` (1 for a new name), carrying `latest`.
/// `created_by` is `API` for a key, the person's user id through the UI (as upstream).
pub async fn create(pool: &PgPool, project: &str, new: NewPrompt, created_by: &str) -> Result<Prompt> {
    validate::name(&new.name)?;
    validate::labels(&new.labels, false)?;
    let kind = new.kind.unwrap_or_else(|| "text".to_owned());
    let body = validate::body(&kind, &new.prompt)?;
    let config = match new.config {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(config) => config,
    };
    // References must point at existing text prompts and never lead back to this name.
    super::resolve::resolve(pool, project, &new.name, "new", &body).await?;

    let mut tx = pool.begin().await?;
    lock_name(&mut tx, project, &new.name).await?;
    let newest: Option<(i32, Vec<String>)> = sqlx::query_as(
        "SELECT version, tags FROM prompts WHERE project_id = $1 AND name = $2 ORDER BY version DESC LIMIT 1",
    )
    .bind(project)
    .bind(&new.name)
    .fetch_optional(&mut *tx)
    .await?;
    let version = newest.as_ref().map_or(1, |(version, _)| version + 1);
    let tags = match (new.tags, newest) {
        (Some(tags), _) => {
            let tags = unique(tags);
            sqlx::query("UPDATE prompts SET tags = $3, updated_at = now() WHERE project_id = $1 AND name = $2 AND tags <> $3")
                .bind(project)
                .bind(&new.name)
                .bind(&tags)
                .execute(&mut *tx)
                .await?;
            tags
        }
        (None, Some((_, tags))) => tags,
        (None, None) => Vec::new(),
    };
    let labels = unique(new.labels.into_iter().chain([LATEST.to_owned()]));
    take_labels(&mut tx, project, &new.name, &labels, version).await?;
    let sql = format!(
        "INSERT INTO prompts (id, project_id, name, version, type, prompt, config, labels, tags, commit_message, created_by) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING {COLUMNS}"
    );
    let stored: StoredPrompt = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(uuid::Uuid::new_v4().to_string())
        .bind(project)
        .bind(&new.name)
        .bind(version)
        .bind(&kind)
        .bind(sqlx::types::Json(&body))
        .bind(sqlx::types::Json(&config))
        .bind(&labels)
        .bind(&tags)
        .bind(&new.commit_message)
        .bind(created_by)
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(stored.into_stored_body())
}

/// `PATCH /v2/prompts/{promptName}/versions/{version}`: adds `new_labels` to the version, taking
/// them off whichever version had them. `version` is the path segment as sent.
pub async fn update_labels(
    pool: &PgPool,
    project: &str,
    name: &str,
    version: &str,
    NewLabels { new_labels }: NewLabels,
) -> Result<Prompt> {
    let version: i32 = version
        .parse()
        .map_err(|_| Error::bad_request(format!("`version` must be a positive integer, got `{version}`")))?;
    validate::labels(&new_labels, false)?;
    let mut tx = pool.begin().await?;
    lock_name(&mut tx, project, name).await?;
    let selector = Selector::Version(version);
    let current =
        super::find(&mut *tx, project, name, &selector).await?.ok_or_else(|| not_found(name, &selector))?;
    let labels = unique(current.labels.into_iter().chain(new_labels));
    take_labels(&mut tx, project, name, &labels, version).await?;
    let sql = format!(
        "UPDATE prompts SET labels = $4, updated_at = now() WHERE project_id = $1 AND name = $2 AND version = $3 \
         RETURNING {COLUMNS}"
    );
    let stored: StoredPrompt = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(name)
        .bind(version)
        .bind(&labels)
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(stored.into_stored_body())
}

/// `DELETE /v2/prompts/{promptName}?version=&label=`: the version with `label`, the version
/// `version`, or (neither) every version. Refused while another prompt's reference would be left
/// pointing at nothing.
pub async fn delete(pool: &PgPool, project: &str, name: &str, params: &Params) -> Result<()> {
    let selector = Selector::from_params(params)?;
    let mut tx = pool.begin().await?;
    lock_name(&mut tx, project, name).await?;
    let all: Vec<(i32, Vec<String>)> = sqlx::query_as(
        "SELECT version, labels FROM prompts WHERE project_id = $1 AND name = $2 ORDER BY version",
    )
    .bind(project)
    .bind(name)
    .fetch_all(&mut *tx)
    .await?;
    let doomed: Vec<&(i32, Vec<String>)> = all
        .iter()
        .filter(|(version, labels)| match &selector {
            None => true,
            Some(Selector::Version(wanted)) => version == wanted,
            Some(Selector::Label(label)) => labels.contains(label),
        })
        .collect();
    if doomed.is_empty() {
        return Err(match &selector {
            Some(selector) => not_found(name, selector),
            None => Error::not_found(format!("Prompt not found: '{name}'")),
        });
    }
    let versions: Vec<i32> = doomed.iter().map(|(version, _)| *version).collect();
    let everything = versions.len() == all.len();
    refuse_if_referenced(&mut tx, project, name, &doomed, everything).await?;

    sqlx::query("DELETE FROM prompts WHERE project_id = $1 AND name = $2 AND version = ANY($3)")
        .bind(project)
        .bind(name)
        .bind(&versions)
        .execute(&mut *tx)
        .await?;
    if !everything && doomed.iter().any(|(_, labels)| labels.iter().any(|label| label == LATEST)) {
        // The newest version went: `latest` moves to the newest that is left.
        sqlx::query(
            "UPDATE prompts SET labels = array_append(labels, 'latest'), updated_at = now() \
             WHERE project_id = $1 AND name = $2 AND version = \
             (SELECT max(version) FROM prompts WHERE project_id = $1 AND name = $2)",
        )
        .bind(project)
        .bind(name)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

async fn refuse_if_referenced(
    tx: &mut PgConnection,
    project: &str,
    name: &str,
    doomed: &[&(i32, Vec<String>)],
    everything: bool,
) -> Result<()> {
    let sql = format!(
        "SELECT {COLUMNS} FROM prompts WHERE project_id = $1 AND name <> $2 \
         AND strpos(prompt::text, '@@@langfusePrompt:name=' || $2 || '|') > 0"
    );
    let referrers: Vec<StoredPrompt> =
        sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(name).fetch_all(&mut *tx).await?;
    for referrer in referrers {
        let broken = references::in_body(&referrer.prompt.0).into_iter().find(|reference| {
            reference.name == name
                && match &reference.selector {
                    Selector::Version(version) => doomed.iter().any(|(v, _)| v == version),
                    Selector::Label(label) if label == LATEST => everything,
                    Selector::Label(label) => doomed.iter().any(|(_, labels)| labels.contains(label)),
                }
        });
        if let Some(reference) = broken {
            return Err(Error::Conflict(format!(
                "Prompt '{}' version {} references {}; update or delete it first",
                referrer.name,
                referrer.version,
                reference.describe()
            )));
        }
    }
    Ok(())
}
