//! Upsert and delete: the body's bounds, the encryption of the key and headers, the audit entry
//! in the same transaction as the change.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::PgPool;
use utoipa::ToSchema;
use uuid::Uuid;

use domain::secrets::{ENCRYPTION_KEY, EncryptionKey, display_form};
use storage::audit::{self, Actor};

use super::{COLUMNS, LlmConnectionBody, Row, not_found};
use crate::{Error, Result};

/// Connections per project: far more than providers exist, few enough to list on one page.
const MAX_CONNECTIONS: i64 = 100;
const MAX_PROVIDER: usize = 100;
const MAX_SECRET: usize = 16 * 1024;
const MAX_BASE_URL: usize = 2048;
const MAX_MODELS: usize = 200;
const MAX_MODEL_NAME: usize = 256;
const MAX_HEADERS: usize = 32;
const MAX_HEADER_NAME: usize = 128;
const MAX_HEADER_VALUE: usize = 4096;

/// The SDK's `UpsertLlmConnectionRequest`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = UpsertLlmConnectionRequest)]
pub struct UpsertLlmConnection {
    /// The connection's name, unique in the project (the upsert key).
    pub provider: String,
    /// `openai`, `anthropic`, `azure`, `google-ai-studio`, `google-vertex-ai` (the secret being a
    /// service-account key file); `bedrock` is refused: not supported yet.
    pub adapter: String,
    pub secret_key: String,
    #[serde(rename = "baseURL")]
    pub base_url: Option<String>,
    pub custom_models: Option<Vec<String>>,
    /// Default `true` on create; unchanged on update when absent.
    pub with_default_models: Option<bool>,
    pub extra_headers: Option<BTreeMap<String, String>>,
    /// OpenAI: `{"useResponsesApi": bool}` (accepted; calls use chat completions); Vertex AI:
    /// `{"location": "<gcp-location>"}`.
    #[schema(value_type = Option<Object>)]
    pub config: Option<Value>,
}

/// The request after its checks: what is stored.
struct Checked {
    adapter: llm::Adapter,
    base_url: Option<String>,
    custom_models: Vec<String>,
    header_keys: Vec<String>,
}

fn check(body: &UpsertLlmConnection) -> Result<Checked> {
    let bad = |message: String| Err(Error::bad_request(message));
    let provider = &body.provider;
    if provider.trim().is_empty()
        || provider.chars().count() > MAX_PROVIDER
        || provider.chars().any(char::is_control)
    {
        return bad(format!("provider must be 1 to {MAX_PROVIDER} characters without control characters"));
    }
    let Some(adapter) = llm::Adapter::parse(&body.adapter) else {
        let known: Vec<&str> = llm::Adapter::ALL.iter().map(|a| a.as_str()).collect();
        return bad(format!("adapter must be one of {}; got `{}`", known.join(", "), body.adapter));
    };
    if !adapter.supported() {
        return bad(format!(
            "the {adapter} adapter is not supported yet by Loupe (supported: openai, anthropic, azure, google-ai-studio, google-vertex-ai)"
        ));
    }
    if body.secret_key.trim().is_empty() || body.secret_key.len() > MAX_SECRET {
        return bad(format!("secretKey must be 1 to {MAX_SECRET} bytes"));
    }
    if adapter == llm::Adapter::GoogleVertexAi {
        llm::vertex::check_service_account(&body.secret_key).map_err(Error::bad_request)?;
    }
    let base_url = body.base_url.as_deref().map(str::trim).filter(|url| !url.is_empty());
    if let Some(url) = base_url {
        let parsed = url::Url::parse(url)
            .map_err(|error| Error::bad_request(format!("baseURL is not a URL: {error}")))?;
        if url.len() > MAX_BASE_URL || !matches!(parsed.scheme(), "http" | "https") {
            return bad(format!("baseURL must be an http(s) URL of at most {MAX_BASE_URL} characters"));
        }
    }
    if adapter == llm::Adapter::Azure && base_url.is_none() {
        return bad(
            "an azure connection needs baseURL (https://<resource>.openai.azure.com/openai/deployments)"
                .into(),
        );
    }
    let custom_models = body.custom_models.clone().unwrap_or_default();
    if custom_models.len() > MAX_MODELS {
        return bad(format!("customModels may list at most {MAX_MODELS} models"));
    }
    if let Some(model) = custom_models.iter().find(|m| {
        m.trim().is_empty() || m.chars().count() > MAX_MODEL_NAME || m.chars().any(char::is_control)
    }) {
        return bad(format!(
            "customModels: `{model}` must be 1 to {MAX_MODEL_NAME} characters without control characters"
        ));
    }
    let headers = body.extra_headers.as_ref();
    if headers.is_some_and(|headers| headers.len() > MAX_HEADERS) {
        return bad(format!("extraHeaders may hold at most {MAX_HEADERS} headers"));
    }
    for (name, value) in headers.into_iter().flatten() {
        let token = !name.is_empty()
            && name.len() <= MAX_HEADER_NAME
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !token {
            return bad(format!(
                "extraHeaders: `{name}` is not an HTTP header name (at most {MAX_HEADER_NAME} characters)"
            ));
        }
        // Visible ASCII, spaces and tabs: what every HTTP stack accepts in a value.
        if value.len() > MAX_HEADER_VALUE || !value.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
        {
            return bad(format!(
                "extraHeaders: the value of `{name}` must be at most {MAX_HEADER_VALUE} printable ASCII characters"
            ));
        }
    }
    match (&body.config, adapter) {
        (None | Some(Value::Null), _) => {}
        (Some(Value::Object(config)), llm::Adapter::OpenAi)
            if config.len() == 1 && config.get("useResponsesApi").is_some_and(Value::is_boolean) => {}
        (Some(_), llm::Adapter::OpenAi) => {
            return bad("config for openai must be {\"useResponsesApi\": <boolean>} or null".into());
        }
        (Some(Value::Object(config)), llm::Adapter::GoogleVertexAi)
            if config.len() == 1
                && config.get("location").and_then(Value::as_str).is_some_and(location_ok) => {}
        (Some(_), llm::Adapter::GoogleVertexAi) => {
            return bad(
                "config for google-vertex-ai must be {\"location\": \"<gcp-location>\"} or null".into()
            );
        }
        (Some(_), adapter) => {
            return bad(format!("config is not supported for the {adapter} adapter; omit it or send null"));
        }
    }
    Ok(Checked {
        adapter,
        base_url: base_url.map(str::to_owned),
        custom_models,
        header_keys: headers.map(|headers| headers.keys().cloned().collect()).unwrap_or_default(),
    })
}

/// A GCP location: it becomes part of a host name (`{location}-aiplatform.googleapis.com`).
fn location_ok(location: &str) -> bool {
    !location.is_empty()
        && location.len() <= 64
        && location.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Who writes, for the audit log.
pub struct Writer<'a> {
    pub org_id: &'a str,
    pub actor: &'a Actor,
}

#[derive(sqlx::FromRow)]
struct Upserted {
    #[sqlx(flatten)]
    row: Row,
    created: bool,
}

/// `PUT /api/public/llm-connections`: create or replace the connection named `provider`;
/// `true` when it was created (201) rather than updated (200). Fields left out are cleared on
/// update, except `withDefaultModels`, which stays.
pub async fn upsert(
    pool: &PgPool,
    key: Option<&EncryptionKey>,
    project: &str,
    writer: Writer<'_>,
    body: UpsertLlmConnection,
) -> Result<(LlmConnectionBody, bool)> {
    let checked = check(&body)?;
    let Some(key) = key else {
        return Err(Error::bad_request(format!(
            "{ENCRYPTION_KEY} is not configured on this instance; LLM connections store their API key encrypted with it. \
             Set {ENCRYPTION_KEY} (64 hex characters, e.g. `openssl rand -hex 32`) and restart"
        )));
    };
    let secret = key.encrypt(&body.secret_key);
    let headers = body
        .extra_headers
        .as_ref()
        .map(|headers| key.encrypt(&serde_json::to_string(headers).expect("a map of strings serializes")));
    let config = body.config.filter(|config| !config.is_null());
    let mut tx = pool.begin().await?;
    let (count, exists): (i64, bool) = sqlx::query_as(
        "SELECT count(*), coalesce(bool_or(provider = $2), false) FROM llm_api_keys WHERE project_id = $1",
    )
    .bind(project)
    .bind(&body.provider)
    .fetch_one(&mut *tx)
    .await?;
    if !exists && count >= MAX_CONNECTIONS {
        return Err(Error::bad_request(format!(
            "a project holds at most {MAX_CONNECTIONS} LLM connections; delete one first"
        )));
    }
    let sql = format!(
        "INSERT INTO llm_api_keys (id, project_id, provider, adapter, secret_key, display_secret_key, base_url, \
             custom_models, with_default_models, extra_headers, extra_header_keys, config) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, COALESCE($9, TRUE), $10, $11, $12) \
         ON CONFLICT (project_id, provider) DO UPDATE SET adapter = EXCLUDED.adapter, \
             secret_key = EXCLUDED.secret_key, display_secret_key = EXCLUDED.display_secret_key, \
             base_url = EXCLUDED.base_url, custom_models = EXCLUDED.custom_models, \
             with_default_models = COALESCE($9, llm_api_keys.with_default_models), \
             extra_headers = EXCLUDED.extra_headers, extra_header_keys = EXCLUDED.extra_header_keys, \
             config = EXCLUDED.config, updated_at = now() \
         RETURNING {COLUMNS}, (xmax = 0) AS created"
    );
    let upserted: Upserted = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(Uuid::new_v4().to_string())
        .bind(project)
        .bind(&body.provider)
        .bind(checked.adapter.as_str())
        .bind(&secret)
        .bind(display_form(&body.secret_key))
        .bind(&checked.base_url)
        .bind(&checked.custom_models)
        .bind(body.with_default_models)
        .bind(&headers)
        .bind(&checked.header_keys)
        .bind(config.map(sqlx::types::Json))
        .fetch_one(&mut *tx)
        .await?;
    let action = if upserted.created { "llmApiKey.create" } else { "llmApiKey.update" };
    let details = json!({
        "provider": body.provider,
        "adapter": checked.adapter.as_str(),
        "baseURL": checked.base_url,
        "extraHeaderKeys": checked.header_keys,
    });
    audit::record(
        &mut tx,
        audit::Entry {
            org_id: writer.org_id,
            project_id: Some(project),
            actor: writer.actor,
            action,
            target_type: "llmApiKey",
            target_id: &upserted.row.id,
            details,
        },
    )
    .await?;
    tx.commit().await?;
    Ok((upserted.row.into(), upserted.created))
}

/// `DELETE /api/public/llm-connections/{id}`; the deleted connection's provider.
pub async fn delete(pool: &PgPool, project: &str, writer: Writer<'_>, id: &str) -> Result<String> {
    let mut tx = pool.begin().await?;
    let deleted: Option<(String, String)> = sqlx::query_as(
        "DELETE FROM llm_api_keys WHERE project_id = $1 AND id = $2 RETURNING provider, adapter",
    )
    .bind(project)
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    let (provider, adapter) = deleted.ok_or_else(not_found)?;
    audit::record(
        &mut tx,
        audit::Entry {
            org_id: writer.org_id,
            project_id: Some(project),
            actor: writer.actor,
            action: "llmApiKey.delete",
            target_type: "llmApiKey",
            target_id: id,
            details: json!({ "provider": provider, "adapter": adapter }),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(provider)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(adapter: &str) -> UpsertLlmConnection {
        UpsertLlmConnection {
            provider: "openai".into(),
            adapter: adapter.into(),
            secret_key: "sk-test-1234567890".into(),
            base_url: None,
            custom_models: None,
            with_default_models: None,
            extra_headers: None,
            config: None,
        }
    }

    fn refused(body: UpsertLlmConnection) -> String {
        match check(&body) {
            Err(Error::BadRequest(message)) => message,
            other => panic!("expected a 400, got {:?}", other.map(|c| c.adapter)),
        }
    }

    #[test]
    fn bounds() {
        assert!(check(&body("openai")).is_ok());
        assert!(refused(body("bedrock")).contains("not supported yet"));
        assert!(refused(body("google-vertex-ai")).contains("service-account key file"));
        assert!(refused(body("mistral")).contains("adapter must be one of"));
        assert!(refused(body("azure")).contains("baseURL"));
        let mut b = body("openai");
        b.provider = " ".into();
        assert!(refused(b).contains("provider"));
        let mut b = body("openai");
        b.base_url = Some("ftp://x".into());
        assert!(refused(b).contains("http(s)"));
        let mut b = body("openai");
        b.extra_headers = Some(BTreeMap::from([("bad name".into(), "v".into())]));
        assert!(refused(b).contains("header name"));
        let mut b = body("openai");
        b.extra_headers = Some(BTreeMap::from([("X-Ok".into(), "line\nbreak".into())]));
        assert!(refused(b).contains("printable"));
        let mut b = body("openai");
        b.custom_models = Some(vec!["m".into(); MAX_MODELS + 1]);
        assert!(refused(b).contains("at most"));
        let mut b = body("openai");
        b.config = Some(json!({"useResponsesApi": true}));
        assert!(check(&b).is_ok());
        let mut b = body("anthropic");
        b.config = Some(json!({"region": "x"}));
        assert!(refused(b).contains("not supported for the anthropic"));
        let mut b = body("openai");
        b.secret_key = String::new();
        assert!(refused(b).contains("secretKey"));
    }
}
