//! Sign-in: users' password hashes, server-side sessions, and the first user of `LANGFUSE_INIT_USER_*`.
//! A session is a random token in a cookie; only its SHA-256 is stored, so reading this table opens
//! no session.

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};

use crate::members::User;
use crate::{Error, ErrorKind, Result};

/// A user's id and password hash, for a sign-in check.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Credentials {
    pub id: String,
    pub password_hash: Option<String>,
}

pub async fn credentials_by_email(pool: &PgPool, email: &str) -> Result<Option<Credentials>> {
    Ok(sqlx::query_as("SELECT id, password_hash FROM users WHERE lower(email) = lower($1)")
        .bind(email)
        .fetch_optional(pool)
        .await?)
}

pub async fn credentials_by_id(pool: &PgPool, id: &str) -> Result<Option<Credentials>> {
    Ok(sqlx::query_as("SELECT id, password_hash FROM users WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await?)
}

/// A new user with a password; an address already taken is a conflict.
pub async fn sign_up(pool: &PgPool, email: &str, name: Option<&str>, password_hash: &str) -> Result<User> {
    // An account without a password (invited from the settings pages, or provisioned by SCIM) is
    // claimed by signing up with its address: it keeps its id, so its memberships apply at once.
    let user: Option<User> = sqlx::query_as(
        "INSERT INTO users (id, email, name, password_hash) VALUES ($1, $2, $3, $4) \
         ON CONFLICT ((lower(email))) DO UPDATE SET password_hash = EXCLUDED.password_hash, \
         name = COALESCE(users.name, EXCLUDED.name), updated_at = now() WHERE users.password_hash IS NULL \
         RETURNING id, email, name, created_at, updated_at",
    )
    .bind(uuid::Uuid::now_v7().to_string())
    .bind(email)
    .bind(name)
    .bind(password_hash)
    .fetch_optional(pool)
    .await?;
    user.ok_or_else(|| Error::new(ErrorKind::Conflict, "An account with this email exists"))
}

/// Sets a user's password and ends every session they have, in one transaction.
pub async fn set_password(pool: &PgPool, user_id: &str, password_hash: &str) -> Result<()> {
    let mut tx = pool.begin().await?;
    sqlx::query("UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1")
        .bind(user_id)
        .bind(password_hash)
        .execute(&mut *tx)
        .await?;
    sqlx::query("DELETE FROM user_sessions WHERE user_id = $1").bind(user_id).execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(())
}

/// Replaces a password hash by another of the same password (an imported bcrypt hash by argon2id),
/// if it is still `old`; sessions stay.
pub async fn replace_password_hash(pool: &PgPool, user_id: &str, old: &str, new: &str) -> Result<()> {
    sqlx::query("UPDATE users SET password_hash = $3 WHERE id = $1 AND password_hash = $2")
        .bind(user_id)
        .bind(old)
        .bind(new)
        .execute(pool)
        .await?;
    Ok(())
}

/// A live session with its user.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Session {
    pub user_id: String,
    pub email: String,
    pub name: Option<String>,
    pub csrf_token: String,
    pub expires_at: DateTime<Utc>,
}

pub async fn create_session(
    pool: &PgPool,
    token_hash: &str,
    user_id: &str,
    csrf_token: &str,
    expires_at: DateTime<Utc>,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO user_sessions (token_hash, user_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)",
    )
    .bind(token_hash)
    .bind(user_id)
    .bind(csrf_token)
    .bind(expires_at)
    .execute(pool)
    .await?;
    Ok(())
}

/// The unexpired session with this token hash.
pub async fn find_session(pool: &PgPool, token_hash: &str) -> Result<Option<Session>> {
    Ok(sqlx::query_as(
        "SELECT s.user_id, u.email, u.name, s.csrf_token, s.expires_at FROM user_sessions s \
         JOIN users u ON u.id = s.user_id WHERE s.token_hash = $1 AND s.expires_at > now()",
    )
    .bind(token_hash)
    .fetch_optional(pool)
    .await?)
}

pub async fn delete_session(pool: &PgPool, token_hash: &str) -> Result<()> {
    sqlx::query("DELETE FROM user_sessions WHERE token_hash = $1").bind(token_hash).execute(pool).await?;
    Ok(())
}

/// Removes expired sessions (called now and then, so the table does not grow without bound).
pub async fn delete_expired_sessions(pool: &PgPool) -> Result<u64> {
    Ok(sqlx::query("DELETE FROM user_sessions WHERE expires_at <= now()")
        .execute(pool)
        .await?
        .rows_affected())
}

/// The first user (`LANGFUSE_INIT_USER_*`): created or updated (name; password when `password_hash`
/// is given, `None` keeps the stored one), made an instance admin and OWNER of the init
/// organization. Idempotent; run after the organization bootstrap.
pub async fn bootstrap_user(
    connection: &mut PgConnection,
    org_id: &str,
    email: &str,
    name: Option<&str>,
    password_hash: Option<&str>,
) -> Result<String> {
    let id: String = sqlx::query_scalar(
        "INSERT INTO users (id, email, name, password_hash, instance_admin) VALUES ($1, $2, $3, $4, true) \
         ON CONFLICT ((lower(email))) DO UPDATE SET name = COALESCE(EXCLUDED.name, users.name), \
             password_hash = COALESCE(EXCLUDED.password_hash, users.password_hash), \
             instance_admin = true, updated_at = now() \
         RETURNING id",
    )
    .bind(uuid::Uuid::now_v7().to_string())
    .bind(email)
    .bind(name)
    .bind(password_hash)
    .fetch_one(&mut *connection)
    .await?;
    if password_hash.is_some() {
        // A changed password ends the sessions signed in with the old one.
        sqlx::query("DELETE FROM user_sessions WHERE user_id = $1")
            .bind(&id)
            .execute(&mut *connection)
            .await?;
    }
    crate::members::set_organization_role(connection, org_id, &id, "OWNER").await?;
    Ok(id)
}
