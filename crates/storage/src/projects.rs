//! Organizations, projects and their API keys.

use secrecy::{ExposeSecret, SecretString};
use sqlx::PgPool;

use domain::auth::hash_secret;
use domain::config::BootstrapSettings;

use crate::api_keys::display_secret;
use crate::{Error, ErrorKind, Result};

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Project {
    pub id: String,
    pub name: String,
    pub org_id: String,
    pub org_name: String,
    pub retention_days: Option<i32>,
    pub metadata: sqlx::types::Json<serde_json::Value>,
}

/// An API key as stored, with the project it opens.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct StoredApiKey {
    pub public_key: String,
    pub hashed_secret_key: String,
    /// After this the key opens nothing.
    pub expires_at: Option<chrono::DateTime<chrono::Utc>>,
    #[sqlx(flatten)]
    pub project: Project,
}

const PROJECT_COLUMNS: &str = "p.id, p.name, p.org_id, o.name AS org_name, p.retention_days, p.metadata";

pub async fn find_api_key(pool: &PgPool, public_key: &str) -> Result<Option<StoredApiKey>> {
    let sql = format!(
        "SELECT k.public_key, k.hashed_secret_key, k.expires_at, {PROJECT_COLUMNS} FROM api_keys k \
         JOIN projects p ON p.id = k.project_id JOIN organizations o ON o.id = p.org_id \
         WHERE k.public_key = $1 AND p.deleted_at IS NULL"
    );
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(public_key).fetch_optional(pool).await?)
}

pub async fn find_project(pool: &PgPool, id: &str) -> Result<Option<Project>> {
    let sql = format!(
        "SELECT {PROJECT_COLUMNS} FROM projects p JOIN organizations o ON o.id = p.org_id \
         WHERE p.id = $1 AND p.deleted_at IS NULL"
    );
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(pool).await?)
}

/// Creates or updates the organization, project and API key named by `LANGFUSE_INIT_*`.
///
/// Safe to run on every start of every instance: the environment is authoritative, so renamed
/// organizations/projects and a rotated secret take effect; a public key already owned by another
/// project is refused rather than moved.
pub async fn bootstrap(pool: &PgPool, settings: &BootstrapSettings, salt: &SecretString) -> Result<()> {
    let mut tx = pool.begin().await?;
    sqlx::query(
        "INSERT INTO organizations (id, name) VALUES ($1, $2) \
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, updated_at = now() \
         WHERE organizations.name IS DISTINCT FROM EXCLUDED.name",
    )
    .bind(&settings.org_id)
    .bind(&settings.org_name)
    .execute(&mut *tx)
    .await?;
    let owner: Option<String> = sqlx::query_scalar(
        "INSERT INTO projects (id, org_id, name) VALUES ($1, $2, $3) \
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, updated_at = now() \
         WHERE projects.org_id = EXCLUDED.org_id \
         RETURNING org_id",
    )
    .bind(&settings.project_id)
    .bind(&settings.org_id)
    .bind(&settings.project_name)
    .fetch_optional(&mut *tx)
    .await?;
    if owner.is_none() {
        return Err(Error::new(
            ErrorKind::Conflict,
            format!(
                "LANGFUSE_INIT_PROJECT_ID {} already belongs to another organization than {}",
                settings.project_id, settings.org_id
            ),
        ));
    }
    let secret = settings.secret_key.expose_secret();
    let key_project: Option<String> = sqlx::query_scalar(
        "INSERT INTO api_keys (id, project_id, public_key, hashed_secret_key, display_secret_key, note) \
         VALUES ($1, $2, $3, $4, $5, 'LANGFUSE_INIT_* bootstrap') \
         ON CONFLICT (public_key) DO UPDATE SET hashed_secret_key = EXCLUDED.hashed_secret_key, \
             display_secret_key = EXCLUDED.display_secret_key \
         WHERE api_keys.project_id = EXCLUDED.project_id \
         RETURNING project_id",
    )
    .bind(uuid::Uuid::now_v7())
    .bind(&settings.project_id)
    .bind(&settings.public_key)
    .bind(hash_secret(secret, salt))
    .bind(display_secret(secret))
    .fetch_optional(&mut *tx)
    .await?;
    if key_project.is_none() {
        return Err(Error::new(
            ErrorKind::Conflict,
            format!("LANGFUSE_INIT_PROJECT_PUBLIC_KEY {} belongs to another project", settings.public_key),
        ));
    }
    tx.commit().await?;
    Ok(())
}

/// Every live project's retention in days (`None`: data is kept forever).
pub async fn retention_days(pool: &PgPool) -> Result<Vec<(String, Option<i32>)>> {
    Ok(sqlx::query_as("SELECT id, retention_days FROM projects WHERE deleted_at IS NULL ORDER BY id")
        .fetch_all(pool)
        .await?)
}
