//! The tables that hold secrets encrypted with `ENCRYPTION_KEY` (`domain::secrets`), and the
//! startup check over them: web and worker refuse to start when such a secret is stored but the
//! key is not configured, or when a stored secret does not decrypt under the configured key (a
//! changed key would otherwise surface later as every evaluator or export failing).
//!
//! A feature that stores a new kind of secret adds one line to [`STORED_SECRETS`].

use domain::secrets::{ENCRYPTION_KEY, EncryptionKey};
use sqlx::PgPool;

/// One column of encrypted values.
#[derive(Debug, Clone, Copy)]
pub struct StoredSecret {
    pub table: &'static str,
    /// A text column of `iv:ciphertext:tag` values (NULL where there is none).
    pub column: &'static str,
    /// What they are, for the startup message.
    pub description: &'static str,
}

pub const STORED_SECRETS: &[StoredSecret] = &[
    StoredSecret { table: "llm_api_keys", column: "secret_key", description: "LLM connections' API keys" },
    StoredSecret {
        table: "blob_storage_integrations",
        column: "secret_access_key",
        description: "blob storage exports' secret keys",
    },
    // A monitor's channels are a JSON list; the first one's secret stands for them all.
    StoredSecret {
        table: "monitors",
        column: "channels->0->>'secret'",
        description: "monitor channels' secrets (webhook secrets, Slack URLs, GitHub tokens)",
    },
];

/// Why startup stops; the message names `ENCRYPTION_KEY` and what needs it.
#[derive(Debug, thiserror::Error)]
pub enum StoredSecretsError {
    #[error(
        "{description} are stored encrypted ({table}), but {ENCRYPTION_KEY} is not set: set it to the key they were stored with (64 hex characters)"
    )]
    KeyMissing { table: &'static str, description: &'static str },
    #[error(
        "a stored secret in {table}.{column} ({description}) does not decrypt under the configured {ENCRYPTION_KEY}: {cause}. Set {ENCRYPTION_KEY} to the key the secrets were stored with (changing the key is not supported; see docs/llm-connections.md)"
    )]
    WrongKey { table: &'static str, column: &'static str, description: &'static str, cause: String },
    #[error(transparent)]
    Storage(#[from] crate::Error),
}

/// Check one stored value per table: present ⇒ the key must be set and must open it.
pub async fn check(pool: &PgPool, key: Option<&EncryptionKey>) -> Result<(), StoredSecretsError> {
    check_tables(pool, key, STORED_SECRETS).await
}

pub async fn check_tables(
    pool: &PgPool,
    key: Option<&EncryptionKey>,
    tables: &[StoredSecret],
) -> Result<(), StoredSecretsError> {
    for secret in tables {
        let sql = format!(
            "SELECT {column} FROM {table} WHERE {column} IS NOT NULL LIMIT 1",
            column = secret.column,
            table = secret.table
        );
        let row: Option<(String,)> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .fetch_optional(pool)
            .await
            .map_err(crate::Error::from)?;
        let Some((stored,)) = row else { continue };
        let Some(key) = key else {
            return Err(StoredSecretsError::KeyMissing {
                table: secret.table,
                description: secret.description,
            });
        };
        if let Err(cause) = key.decrypt(&stored) {
            return Err(StoredSecretsError::WrongKey {
                table: secret.table,
                column: secret.column,
                description: secret.description,
                cause: cause.to_string(),
            });
        }
    }
    Ok(())
}
