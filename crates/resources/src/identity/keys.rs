//! API keys of a project or of an organization: the secret is in the create answer only, a
//! deleted key is announced to every web replica (`storage::key_revocations`).

use secrecy::SecretString;
use serde_json::json;
use sqlx::PgPool;

use domain::identity::Action;
use storage::api_keys::{KeyScope, NewKey};
use storage::key_revocations::Revocations;

use super::bodies::{ApiKeyBody, ApiKeyList, ApiKeyResponse, CreateApiKeyRequest, SuccessResponse};
use super::{Acting, conflict};
use crate::Error;

const NOTE_MAX_CHARS: usize = 200;

/// The key a create request describes, checked as Langfuse checks it.
fn new_key(request: CreateApiKeyRequest) -> Result<NewKey, Error> {
    let note = match (request.name, request.note) {
        (Some(_), Some(_)) => return Err(Error::bad_request("Provide either name or note, not both")),
        (name, note) => name.or(note),
    };
    if note.as_ref().is_some_and(|note| note.chars().count() > NOTE_MAX_CHARS) {
        return Err(Error::bad_request(format!("name must be at most {NOTE_MAX_CHARS} characters")));
    }
    if let Some(expires_at) = request.expires_at
        && expires_at <= chrono::Utc::now()
    {
        return Err(Error::bad_request("expiresAt must be in the future"));
    }
    let key_pair = match (request.public_key, request.secret_key) {
        (None, None) => None,
        (Some(public_key), Some(secret_key)) => {
            if !public_key.starts_with("pk-lf-") || !secret_key.starts_with("sk-lf-") {
                return Err(Error::bad_request(
                    "publicKey must start with 'pk-lf-' and secretKey with 'sk-lf-'",
                ));
            }
            // A short secret could be guessed; generated ones carry 122 random bits.
            if secret_key.len() < 16 + "sk-lf-".len() || public_key.len() <= "pk-lf-".len() {
                return Err(Error::bad_request("secretKey must have at least 16 characters after 'sk-lf-'"));
            }
            Some((public_key, SecretString::from(secret_key)))
        }
        _ => return Err(Error::bad_request("publicKey and secretKey must be provided together")),
    };
    Ok(NewKey { note, expires_at: request.expires_at, key_pair })
}

pub async fn create_project_key(
    pool: &PgPool,
    salt: &SecretString,
    acting: &Acting,
    project_id: &str,
    request: CreateApiKeyRequest,
) -> Result<ApiKeyResponse, Error> {
    acting.require(Action::ProjectKeysManage)?;
    let new = new_key(request)?;
    super::require_own_project(pool, acting, project_id).await?;
    let scope = KeyScope::Project(project_id.to_owned());
    create(pool, salt, acting, &scope, Some(project_id), new).await
}

pub async fn list_project_keys(
    pool: &PgPool,
    acting: &Acting,
    project_id: &str,
) -> Result<ApiKeyList, Error> {
    acting.require(Action::ProjectKeysRead)?;
    super::require_own_project(pool, acting, project_id).await?;
    list(pool, &KeyScope::Project(project_id.to_owned())).await
}

pub async fn delete_project_key(
    pool: &PgPool,
    revocations: &Revocations,
    acting: &Acting,
    project_id: &str,
    key_id: &str,
) -> Result<SuccessResponse, Error> {
    acting.require(Action::ProjectKeysManage)?;
    super::require_own_project(pool, acting, project_id).await?;
    delete(pool, revocations, acting, &KeyScope::Project(project_id.to_owned()), Some(project_id), key_id)
        .await
}

pub async fn create_organization_key(
    pool: &PgPool,
    salt: &SecretString,
    acting: &Acting,
    note: Option<String>,
) -> Result<ApiKeyResponse, Error> {
    acting.require(Action::OrganizationKeysManage)?;
    let new = new_key(CreateApiKeyRequest { note, ..Default::default() })?;
    let scope = KeyScope::Organization(acting.org_id.clone());
    create(pool, salt, acting, &scope, None, new).await
}

pub async fn list_organization_keys(pool: &PgPool, acting: &Acting) -> Result<ApiKeyList, Error> {
    acting.require(Action::OrganizationKeysRead)?;
    list(pool, &KeyScope::Organization(acting.org_id.clone())).await
}

pub async fn delete_organization_key(
    pool: &PgPool,
    revocations: &Revocations,
    acting: &Acting,
    key_id: &str,
) -> Result<SuccessResponse, Error> {
    acting.require(Action::OrganizationKeysManage)?;
    delete(pool, revocations, acting, &KeyScope::Organization(acting.org_id.clone()), None, key_id).await
}

async fn create(
    pool: &PgPool,
    salt: &SecretString,
    acting: &Acting,
    scope: &KeyScope,
    project_id: Option<&str>,
    new: NewKey,
) -> Result<ApiKeyResponse, Error> {
    let mut tx = pool.begin().await?;
    let created = storage::api_keys::create(&mut tx, scope, new, salt).await.map_err(conflict)?;
    let id = created.summary.id.to_string();
    let details = json!({"publicKey": created.summary.public_key, "scope": scope_name(scope)});
    storage::audit::record(&mut tx, acting.audit(project_id, "apiKey.create", ("apiKey", &id), details))
        .await?;
    tx.commit().await?;
    Ok(created.into())
}

async fn list(pool: &PgPool, scope: &KeyScope) -> Result<ApiKeyList, Error> {
    let keys = storage::api_keys::list(pool, scope).await?;
    Ok(ApiKeyList { api_keys: keys.into_iter().map(ApiKeyBody::from).collect() })
}

async fn delete(
    pool: &PgPool,
    revocations: &Revocations,
    acting: &Acting,
    scope: &KeyScope,
    project_id: Option<&str>,
    key_id: &str,
) -> Result<SuccessResponse, Error> {
    let mut tx = pool.begin().await?;
    let public_key = storage::api_keys::delete(&mut tx, scope, key_id)
        .await?
        .ok_or_else(|| Error::not_found("API key not found"))?;
    let details = json!({"publicKey": public_key, "scope": scope_name(scope)});
    storage::audit::record(&mut tx, acting.audit(project_id, "apiKey.delete", ("apiKey", key_id), details))
        .await?;
    tx.commit().await?;
    super::announce(revocations, &[public_key]).await;
    Ok(SuccessResponse { success: true })
}

fn scope_name(scope: &KeyScope) -> &'static str {
    match scope {
        KeyScope::Project(_) => "PROJECT",
        KeyScope::Organization(_) => "ORGANIZATION",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_requests_are_checked() {
        let both =
            CreateApiKeyRequest { name: Some("a".into()), note: Some("b".into()), ..Default::default() };
        assert!(new_key(both).is_err());
        let past = CreateApiKeyRequest {
            expires_at: Some(chrono::Utc::now() - chrono::Duration::hours(1)),
            ..Default::default()
        };
        assert!(new_key(past).is_err());
        let half_pair = CreateApiKeyRequest { public_key: Some("pk-lf-x".into()), ..Default::default() };
        assert!(new_key(half_pair).is_err());
        let bad_prefix = CreateApiKeyRequest {
            public_key: Some("pk-x".into()),
            secret_key: Some("sk-lf-0123456789abcdef".into()),
            ..Default::default()
        };
        assert!(new_key(bad_prefix).is_err());
        let good = CreateApiKeyRequest {
            name: Some("ci".into()),
            public_key: Some("pk-lf-mine".into()),
            secret_key: Some("sk-lf-0123456789abcdef".into()),
            ..Default::default()
        };
        let key = new_key(good).unwrap();
        assert_eq!(key.note.as_deref(), Some("ci"));
        assert_eq!(key.key_pair.unwrap().0, "pk-lf-mine");
    }
}
