//! LLM connections (`/api/public/llm-connections`): how a project's evaluators reach an LLM
//! provider. One connection per `provider` name in a project (the upsert key); its API key and
//! extra headers are stored encrypted with `ENCRYPTION_KEY` and never answered (the API shows
//! `displaySecretKey` and the header names). [`connection_for`] decrypts one for a call through
//! the `llm` crate.

mod write;

use std::collections::BTreeMap;

use secrecy::SecretString;
use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;

use domain::secrets::EncryptionKey;
use reads::Params;
use reads::params::PageRequest;

pub use write::{UpsertLlmConnection, Writer, delete, upsert};

use crate::page::project_page;
use crate::{Error, Page, Result, timestamp};

/// The SDK's `LlmConnection` (secrets excluded).
#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
#[schema(as = LlmConnection)]
pub struct LlmConnectionBody {
    pub id: String,
    pub provider: String,
    /// The `LlmAdapter` value.
    pub adapter: String,
    /// `...` and the key's last four characters.
    pub display_secret_key: String,
    #[serde(rename = "baseURL")]
    pub base_url: Option<String>,
    pub custom_models: Vec<String>,
    pub with_default_models: bool,
    /// The names of the extra headers; their values are never shown.
    pub extra_header_keys: Vec<String>,
    #[schema(value_type = Option<Object>)]
    pub config: Option<serde_json::Value>,
    pub created_at: String,
    pub updated_at: String,
}

/// The columns every read selects (never `secret_key` or `extra_headers`).
const COLUMNS: &str = "id, provider, adapter, display_secret_key, base_url, custom_models, \
    with_default_models, extra_header_keys, config, created_at, updated_at";

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    provider: String,
    adapter: String,
    display_secret_key: String,
    base_url: Option<String>,
    custom_models: Vec<String>,
    with_default_models: bool,
    extra_header_keys: Vec<String>,
    config: Option<sqlx::types::Json<serde_json::Value>>,
    created_at: chrono::DateTime<chrono::Utc>,
    updated_at: chrono::DateTime<chrono::Utc>,
}

impl From<Row> for LlmConnectionBody {
    fn from(row: Row) -> Self {
        Self {
            id: row.id,
            provider: row.provider,
            adapter: row.adapter,
            display_secret_key: row.display_secret_key,
            base_url: row.base_url,
            custom_models: row.custom_models,
            with_default_models: row.with_default_models,
            extra_header_keys: row.extra_header_keys,
            config: row.config.map(|json| json.0),
            created_at: timestamp(&row.created_at),
            updated_at: timestamp(&row.updated_at),
        }
    }
}

/// `GET /api/public/llm-connections?page=&limit=`, newest first.
pub async fn list(pool: &PgPool, project: &str, params: &Params) -> Result<Page<LlmConnectionBody>> {
    let page = PageRequest::parse(params)?;
    let (rows, total): (Vec<Row>, _) =
        project_page(pool, "llm_api_keys", COLUMNS, "created_at DESC, id", project, &page).await?;
    Ok(Page::new(rows.into_iter().map(Into::into).collect(), &page, total))
}

/// The connection named `provider` in `project`, decrypted for a call (`None` when there is none).
/// A stored value that does not decrypt under `key` is an error naming `ENCRYPTION_KEY`.
pub async fn connection_for(
    pool: &PgPool,
    key: &EncryptionKey,
    project: &str,
    provider: &str,
) -> Result<Option<llm::Connection>> {
    let row: Option<SecretRow> = sqlx::query_as(
        "SELECT adapter, base_url, secret_key, extra_headers, config FROM llm_api_keys \
         WHERE project_id = $1 AND provider = $2",
    )
    .bind(project)
    .bind(provider)
    .fetch_optional(pool)
    .await?;
    row.map(|row| row.decrypt(key, provider)).transpose()
}

#[derive(sqlx::FromRow)]
struct SecretRow {
    adapter: String,
    base_url: Option<String>,
    secret_key: String,
    extra_headers: Option<String>,
    config: Option<sqlx::types::Json<serde_json::Value>>,
}

impl SecretRow {
    fn decrypt(self, key: &EncryptionKey, provider: &str) -> Result<llm::Connection> {
        let internal =
            |message: String| Error::Storage(storage::Error::new(storage::ErrorKind::Internal, message));
        let adapter = llm::Adapter::parse(&self.adapter).ok_or_else(|| {
            internal(format!("LLM connection `{provider}` has an unknown adapter `{}`", self.adapter))
        })?;
        let undecryptable = |what: &str, error: domain::secrets::SecretError| {
            internal(format!("the {what} of LLM connection `{provider}` cannot be read: {error}"))
        };
        let api_key = key.decrypt(&self.secret_key).map_err(|error| undecryptable("API key", error))?;
        let extra_headers = match self.extra_headers {
            None => Vec::new(),
            Some(stored) => {
                let json = key.decrypt(&stored).map_err(|error| undecryptable("extra headers", error))?;
                let map: BTreeMap<String, String> = serde_json::from_str(&json).map_err(|error| {
                    internal(format!("the extra headers of `{provider}` are not a JSON object: {error}"))
                })?;
                map.into_iter().collect()
            }
        };
        Ok(llm::Connection {
            adapter,
            base_url: self.base_url,
            api_key: SecretString::from(api_key),
            extra_headers,
            config: self.config.map(|json| json.0),
        })
    }
}

fn not_found() -> Error {
    Error::not_found("LLM connection not found")
}
