//! Signing up, signing in and changing a password, with sessions. Web owns the cookie; this module
//! owns the rules: argon2id hashes computed off the async threads, the same time spent whether the
//! account exists or not, failed attempts limited per account and per client address, a new
//! session on every sign-in, all of a user's sessions ended by a password change.

use chrono::{Duration, Utc};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use utoipa::ToSchema;

use domain::auth::hash_secret;
use domain::password::{check_new_password, decoy_hash, hash_password, needs_rehash, verify_password};
use storage::login_attempts::{Limits, LoginAttempts};

use crate::Error;

/// Failed sign-ins allowed per account and per client address in one window.
pub const LIMITS: Limits = Limits { per_account: 10, per_address: 100, window_seconds: 15 * 60 };

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SignUpRequest {
    pub email: String,
    pub password: String,
    pub name: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SignInRequest {
    pub email: String,
    pub password: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PasswordChange {
    pub current_password: String,
    pub new_password: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UserBody {
    pub id: String,
    pub email: String,
    pub name: Option<String>,
}

/// A new session: the token goes into the cookie (never into a body), the CSRF token to the UI,
/// which echoes it in `X-CSRF-Token` on every state change.
pub struct NewSession {
    pub token: SecretString,
    pub csrf_token: String,
    pub max_age_seconds: i64,
    pub user: UserBody,
}

/// Why a sign-in was refused.
#[derive(Debug)]
pub enum SignInError {
    /// Wrong address or password: one answer for both, so it tells nothing about which accounts exist.
    Invalid,
    /// Too many failures; try again after this many seconds.
    Limited(u64),
    Other(Error),
}

impl From<Error> for SignInError {
    fn from(error: Error) -> Self {
        Self::Other(error)
    }
}

impl From<storage::Error> for SignInError {
    fn from(error: storage::Error) -> Self {
        Self::Other(error.into())
    }
}

/// Stored form of a session token: like API-key secrets, a salted SHA-256 (the token is random).
pub fn token_hash(token: &str, salt: &SecretString) -> String {
    hash_secret(token, salt)
}

fn random_token(prefix: &str) -> String {
    format!("{prefix}{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

fn normalized_email(email: &str) -> Result<String, Error> {
    let email = email.trim();
    if !email.contains('@') || email.len() > 320 || email.chars().any(char::is_whitespace) {
        return Err(Error::bad_request("A valid email address is required"));
    }
    Ok(email.to_owned())
}

async fn hashed(password: String) -> Result<String, Error> {
    let salt = *uuid::Uuid::new_v4().as_bytes();
    tokio::task::spawn_blocking(move || hash_password(&password, &salt))
        .await
        .map_err(|e| Error::bad_request(e.to_string()))?
        .map_err(Error::bad_request)
}

async fn verified(password: String, hash: String) -> bool {
    tokio::task::spawn_blocking(move || verify_password(&password, &hash)).await.unwrap_or(false)
}

async fn new_session(
    pool: &PgPool,
    salt: &SecretString,
    user: UserBody,
    max_age_minutes: u64,
) -> Result<NewSession, Error> {
    let token = random_token("ls_");
    let csrf_token = random_token("");
    let max_age_seconds = i64::try_from(max_age_minutes.saturating_mul(60)).unwrap_or(i64::MAX);
    let expires_at = Utc::now() + Duration::seconds(max_age_seconds);
    storage::accounts::create_session(pool, &token_hash(&token, salt), &user.id, &csrf_token, expires_at)
        .await?;
    Ok(NewSession { token: token.into(), csrf_token, max_age_seconds, user })
}

pub async fn sign_up(
    pool: &PgPool,
    salt: &SecretString,
    max_age_minutes: u64,
    request: SignUpRequest,
) -> Result<NewSession, Error> {
    let email = normalized_email(&request.email)?;
    check_new_password(&request.password).map_err(Error::bad_request)?;
    let name = request.name.as_deref().map(str::trim).filter(|n| !n.is_empty());
    let hash = hashed(request.password).await?;
    let user = storage::accounts::sign_up(pool, &email, name, &hash).await.map_err(super::conflict)?;
    let user = UserBody { id: user.id, email: user.email, name: user.name };
    new_session(pool, salt, user, max_age_minutes).await
}

/// Checks the password and opens a new session. `previous` (the token of a session the browser
/// still presents) is ended, so a sign-in always rotates the session.
pub async fn sign_in(
    pool: &PgPool,
    attempts: &LoginAttempts,
    salt: &SecretString,
    max_age_minutes: u64,
    address: &str,
    previous: Option<&str>,
    request: SignInRequest,
) -> Result<NewSession, SignInError> {
    let email = request.email.trim().to_owned();
    if let Some(wait) = attempts.blocked(&email, address, LIMITS).await? {
        return Err(SignInError::Limited(wait));
    }
    let stored = storage::accounts::credentials_by_email(pool, &email).await?;
    // An unknown address or a user without a password is checked against a decoy hash, so the
    // answer takes as long as for a wrong password.
    let hash =
        stored.as_ref().and_then(|c| c.password_hash.clone()).unwrap_or_else(|| decoy_hash().to_owned());
    let password = request.password;
    let matches = verified(password.clone(), hash.clone()).await;
    let Some(user_id) = stored.filter(|c| matches && c.password_hash.is_some()).map(|c| c.id) else {
        attempts.record_failure(&email, address, LIMITS).await?;
        return Err(SignInError::Invalid);
    };
    // A hash imported from Langfuse v3 (bcrypt) is replaced by argon2id now that the password is
    // known; only if it is still the one just checked, so a concurrent change of password wins.
    if needs_rehash(&hash) {
        let upgraded = hashed(password).await?;
        storage::accounts::replace_password_hash(pool, &user_id, &hash, &upgraded).await?;
    }
    attempts.clear_account(&email).await?;
    // Sessions nobody signs out of would pile up: a sign-in sweeps the expired ones.
    storage::accounts::delete_expired_sessions(pool).await?;
    if let Some(previous) = previous {
        storage::accounts::delete_session(pool, &token_hash(previous, salt)).await?;
    }
    let user = storage::members::find_user(pool, &user_id).await?.ok_or(SignInError::Invalid)?;
    let user = UserBody { id: user.id, email: user.email, name: user.name };
    Ok(new_session(pool, salt, user, max_age_minutes).await?)
}

pub async fn sign_out(pool: &PgPool, salt: &SecretString, token: &str) -> Result<(), Error> {
    storage::accounts::delete_session(pool, &token_hash(token, salt)).await?;
    Ok(())
}

/// Changes the password after checking the current one, ends every session of the user (on every
/// device) and opens a new one for this browser.
pub async fn change_password(
    pool: &PgPool,
    salt: &SecretString,
    max_age_minutes: u64,
    user: UserBody,
    change: PasswordChange,
) -> Result<NewSession, Error> {
    check_new_password(&change.new_password).map_err(Error::bad_request)?;
    let stored = storage::accounts::credentials_by_id(pool, &user.id).await?.and_then(|c| c.password_hash);
    let current_ok = match stored {
        Some(hash) => verified(change.current_password, hash).await,
        None => false,
    };
    if !current_ok {
        return Err(Error::Forbidden("The current password is wrong".to_owned()));
    }
    let hash = hashed(change.new_password).await?;
    storage::accounts::set_password(pool, &user.id, &hash).await?;
    new_session(pool, salt, user, max_age_minutes).await
}

/// The session a cookie's token opens, if it is live.
pub async fn session(
    pool: &PgPool,
    salt: &SecretString,
    token: &str,
) -> Result<Option<storage::accounts::Session>, Error> {
    Ok(storage::accounts::find_session(pool, &token_hash(token, salt)).await?)
}

/// Constant-time comparison of the CSRF token a request presents with its session's.
pub fn csrf_matches(presented: &str, expected: &str) -> bool {
    use subtle::ConstantTimeEq;
    presented.as_bytes().ct_eq(expected.as_bytes()).into() && !expected.is_empty()
}

/// Keeps the secret in `SecretString` for callers that log their state.
pub fn expose(token: &SecretString) -> &str {
    token.expose_secret()
}
