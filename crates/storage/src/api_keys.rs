//! API keys of a project or of an organization: created with a secret shown once, listed without
//! it, deleted. Only a salted hash of each secret is stored (`domain::auth::hash_secret`).

use chrono::{DateTime, Utc};
use secrecy::SecretString;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use domain::auth::hash_secret;

use crate::{Error, ErrorKind, Result};

/// What a key opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyScope {
    Project(String),
    Organization(String),
}

impl KeyScope {
    /// The `WHERE` clause that matches this scope's keys, with its id bound as `$1`.
    fn clause(&self) -> (&'static str, &str) {
        match self {
            KeyScope::Project(id) => ("scope = 'PROJECT' AND project_id = $1", id),
            KeyScope::Organization(id) => ("scope = 'ORGANIZATION' AND org_id = $1", id),
        }
    }
}

/// A key as listed: never its secret.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ApiKeySummary {
    pub id: Uuid,
    pub public_key: String,
    pub display_secret_key: String,
    pub note: Option<String>,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
}

/// A key just created: the only time its secret exists outside the caller's hands.
#[derive(Debug, Clone)]
pub struct CreatedKey {
    pub summary: ApiKeySummary,
    pub secret_key: SecretString,
}

/// What a new key is made of. A caller may bring its own key pair (Langfuse's `publicKey` and
/// `secretKey`), otherwise one is generated.
#[derive(Debug, Default)]
pub struct NewKey {
    pub note: Option<String>,
    pub expires_at: Option<DateTime<Utc>>,
    pub key_pair: Option<(String, SecretString)>,
}

/// A random key pair as Langfuse makes them: `pk-lf-<uuid>` and `sk-lf-<uuid>` (122 random bits
/// each, from the operating system's generator).
pub fn generate_key_pair() -> (String, SecretString) {
    (format!("pk-lf-{}", Uuid::new_v4()), SecretString::from(format!("sk-lf-{}", Uuid::new_v4())))
}

/// Creates a key for `scope`; a public key that already exists is a conflict.
pub async fn create(
    connection: &mut PgConnection,
    scope: &KeyScope,
    new: NewKey,
    salt: &SecretString,
) -> Result<CreatedKey> {
    use secrecy::ExposeSecret;
    let (public_key, secret_key) = new.key_pair.unwrap_or_else(generate_key_pair);
    let secret = secret_key.expose_secret();
    let (project_id, org_id, scope_name) = match scope {
        KeyScope::Project(id) => (Some(id.as_str()), None, "PROJECT"),
        KeyScope::Organization(id) => (None, Some(id.as_str()), "ORGANIZATION"),
    };
    let summary: ApiKeySummary = sqlx::query_as(
        "INSERT INTO api_keys (id, project_id, org_id, scope, public_key, hashed_secret_key, \
             display_secret_key, note, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
         RETURNING id, public_key, display_secret_key, note, created_at, last_used_at, expires_at",
    )
    .bind(Uuid::now_v7())
    .bind(project_id)
    .bind(org_id)
    .bind(scope_name)
    .bind(&public_key)
    .bind(hash_secret(secret, salt))
    .bind(display_secret(secret))
    .bind(&new.note)
    .bind(new.expires_at)
    .fetch_one(&mut *connection)
    .await
    .map_err(|e| match Error::from(e) {
        error if error.kind == ErrorKind::Conflict => {
            Error::new(ErrorKind::Conflict, format!("public key {public_key} already exists"))
        }
        error => error,
    })?;
    Ok(CreatedKey { summary, secret_key })
}

/// The scope's keys, oldest first.
pub async fn list(pool: &PgPool, scope: &KeyScope) -> Result<Vec<ApiKeySummary>> {
    let (clause, id) = scope.clause();
    let sql = format!(
        "SELECT id, public_key, display_secret_key, note, created_at, last_used_at, expires_at \
         FROM api_keys WHERE {clause} ORDER BY created_at, id"
    );
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).fetch_all(pool).await?)
}

/// Deletes one of the scope's keys; its public key, or `None` when the scope has no such key (a key
/// of another scope is not found, never deleted).
pub async fn delete(connection: &mut PgConnection, scope: &KeyScope, key_id: &str) -> Result<Option<String>> {
    let Ok(key_id) = Uuid::parse_str(key_id) else { return Ok(None) };
    let (clause, id) = scope.clause();
    let sql = format!("DELETE FROM api_keys WHERE {clause} AND id = $2 RETURNING public_key");
    Ok(sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).bind(id).bind(key_id).fetch_optional(connection).await?)
}

/// The public keys of a project, for revoking them when it is deleted.
pub async fn project_public_keys(connection: &mut PgConnection, project_id: &str) -> Result<Vec<String>> {
    Ok(sqlx::query_scalar("SELECT public_key FROM api_keys WHERE project_id = $1")
        .bind(project_id)
        .fetch_all(connection)
        .await?)
}

/// An organization key as stored, with its organization.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct StoredOrganizationKey {
    pub id: Uuid,
    pub public_key: String,
    pub hashed_secret_key: String,
    pub expires_at: Option<DateTime<Utc>>,
    pub org_id: String,
    pub org_name: String,
}

pub async fn find_organization_key(pool: &PgPool, public_key: &str) -> Result<Option<StoredOrganizationKey>> {
    Ok(sqlx::query_as(
        "SELECT k.id, k.public_key, k.hashed_secret_key, k.expires_at, o.id AS org_id, o.name AS org_name \
         FROM api_keys k JOIN organizations o ON o.id = k.org_id \
         WHERE k.public_key = $1 AND k.scope = 'ORGANIZATION'",
    )
    .bind(public_key)
    .fetch_optional(pool)
    .await?)
}

/// Records that a key was used; callers throttle (a write per request would undo the key cache).
pub async fn touch(pool: &PgPool, public_key: &str) -> Result<()> {
    sqlx::query("UPDATE api_keys SET last_used_at = now() WHERE public_key = $1")
        .bind(public_key)
        .execute(pool)
        .await?;
    Ok(())
}

/// `sk-lf-...abcd`: enough to recognise a key, useless to an attacker.
pub fn display_secret(secret: &str) -> String {
    let tail: String = secret.chars().rev().take(4).collect::<Vec<_>>().into_iter().rev().collect();
    let head: String = secret.chars().take(6).collect();
    format!("{head}...{tail}")
}

/// Replaces a key's secret hash by Loupe's own once an imported (Langfuse v3 bcrypt) hash has
/// verified, if it is still `old` (another replica may have done it first).
pub async fn replace_secret_hash(pool: &PgPool, public_key: &str, old: &str, new: &str) -> Result<()> {
    sqlx::query(
        "UPDATE api_keys SET hashed_secret_key = $3 WHERE public_key = $1 AND hashed_secret_key = $2",
    )
    .bind(public_key)
    .bind(old)
    .bind(new)
    .execute(pool)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use secrecy::ExposeSecret;

    #[test]
    fn display_secret_keeps_only_prefix_and_tail() {
        assert_eq!(super::display_secret("sk-lf-0123456789abcd"), "sk-lf-...abcd");
    }

    #[test]
    fn generated_pairs_are_langfuse_shaped_and_distinct() {
        let (pk1, sk1) = super::generate_key_pair();
        let (pk2, sk2) = super::generate_key_pair();
        assert!(pk1.starts_with("pk-lf-") && sk1.expose_secret().starts_with("sk-lf-"));
        assert_ne!(pk1, pk2);
        assert_ne!(sk1.expose_secret(), sk2.expose_secret());
    }
}
