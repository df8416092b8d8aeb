//! Request authentication: project API keys (Basic `pk:sk`), the UI's session on a project (cookie
//! plus `X-Loupe-Project`), organization keys and the instance admin key (Bearer).

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method};
use secrecy::ExposeSecret;
use subtle::ConstantTimeEq;

use domain::auth::{
    Credentials, CredentialsError, hash_secret, imported_secret_matches, is_imported_hash, secret_matches,
};
use domain::identity::Action;
use resources::identity::people;
use storage::projects::Project;

use crate::error::ApiError;
use crate::session::UserSession;
use crate::state::AppState;

const INVALID_CREDENTIALS: &str = "Invalid credentials. Confirm that you've configured the correct host.";

/// The header that names the project a signed-in person's request is for, in place of a key pair.
pub const PROJECT_HEADER: &str = "x-loupe-project";

/// A request authenticated for one project: with the project's full key pair, or (on the routes
/// that take this extractor) as a signed-in person with access to the project.
#[derive(Clone)]
pub struct ProjectAuth {
    pub project: Project,
    /// The key pair's public key; empty for a person.
    pub public_key: String,
    /// The signed-in person, when it is one (the author of what they write).
    pub user_id: Option<String>,
}

impl FromRequestParts<AppState> for ProjectAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if !parts.headers.contains_key(AUTHORIZATION) && parts.headers.contains_key(PROJECT_HEADER) {
            return person_on_project(parts, state).await;
        }
        authenticate_project(state, &parts.headers).await
    }
}

/// The UI reads and writes through the public API as the signed-in person: the session cookie (with
/// its CSRF token on a state change, checked by [`UserSession`]) and `X-Loupe-Project`. Reading
/// needs any role with access to the project, anything else `ProjectWrite`; a project the person
/// cannot see is 404, as if it did not exist.
async fn person_on_project(parts: &mut Parts, state: &AppState) -> Result<ProjectAuth, ApiError> {
    let session = UserSession::from_request_parts(parts, state).await?;
    let project_id = parts
        .headers
        .get(PROJECT_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| ApiError::bad_request("X-Loupe-Project must name a project"))?
        .to_owned();
    let pool = &state.stores.postgres;
    let (acting, project) = people::with_project(pool, &session.user.id, &project_id).await?;
    if !matches!(parts.method, Method::GET | Method::HEAD | Method::OPTIONS) {
        acting.require(Action::ProjectWrite)?;
    }
    Ok(ProjectAuth { project, public_key: String::new(), user_id: Some(session.user.id) })
}

/// The project a full key pair opens. Shared by HTTP and gRPC, whose metadata converts to the same
/// header map.
pub async fn authenticate_project(state: &AppState, headers: &HeaderMap) -> Result<ProjectAuth, ApiError> {
    match credentials(headers)? {
        Credentials::Basic { public_key, secret_key } => {
            let key = state.keys.find(&state.stores.postgres, &public_key).await?;
            // The secret is checked against the hash stored for *this* public key, so a valid
            // secret paired with another project's public key is refused.
            match key {
                Some(key)
                    if !expired(key.expires_at)
                        && opens(state, &public_key, &secret_key, &key.hashed_secret_key).await =>
                {
                    state.keys.note_use(&state.stores.postgres, &public_key);
                    Ok(ProjectAuth { project: key.project, public_key, user_id: None })
                }
                _ => Err(ApiError::unauthorized(INVALID_CREDENTIALS)),
            }
        }
        // A public key alone never opens these routes. The answer is the same whether or not the
        // key exists, so it tells a caller nothing about which keys do.
        Credentials::Bearer(_) => Err(ApiError::unauthorized(
            "Access denied - need to use basic auth with secret key. Confirm that you've configured the correct host.",
        )),
    }
}

/// Like [`authenticate_project`], but a public key alone (`Bearer pk-…`, the browser SDK) is
/// accepted too, for scores only; the flag says which it was.
pub async fn authenticate_project_or_scores(
    state: &AppState,
    headers: &HeaderMap,
) -> Result<(ProjectAuth, bool), ApiError> {
    if let Credentials::Bearer(public_key) = credentials(headers)? {
        return match state.keys.find(&state.stores.postgres, &public_key).await? {
            Some(key) => Ok((ProjectAuth { project: key.project, public_key, user_id: None }, true)),
            None => Err(ApiError::unauthorized(
                "Invalid public key. Confirm that you've configured the correct host.",
            )),
        };
    }
    Ok((authenticate_project(state, headers).await?, false))
}

/// Whether `secret` opens the key stored with `stored_hash`. A key imported from Langfuse v3 keeps
/// its v3 bcrypt hash until its first successful use: that check runs off the async threads, and
/// the hash is then replaced by Loupe's own (salted SHA-256), so only the first use pays for
/// bcrypt (docs/takeover.md).
async fn opens(state: &AppState, public_key: &str, secret: &str, stored_hash: &str) -> bool {
    let salt = &state.config.auth.salt;
    if !is_imported_hash(stored_hash) {
        return secret_matches(secret, stored_hash, salt);
    }
    let (checked, hash) = (secret.to_owned(), stored_hash.to_owned());
    let matches =
        tokio::task::spawn_blocking(move || imported_secret_matches(&checked, &hash)).await.unwrap_or(false);
    if matches {
        let own = hash_secret(secret, salt);
        match storage::api_keys::replace_secret_hash(&state.stores.postgres, public_key, stored_hash, &own)
            .await
        {
            Ok(()) => state.keys.evict(public_key),
            Err(error) => {
                tracing::warn!(%error, "could not replace an imported key's hash; checked again next time")
            }
        }
    }
    matches
}

fn expired(expires_at: Option<chrono::DateTime<chrono::Utc>>) -> bool {
    expires_at.is_some_and(|at| at <= chrono::Utc::now())
}

/// The 403 Langfuse answers a project key with on an organization route; SDK users know its words.
pub const ORGANIZATION_KEY_REQUIRED: &str =
    "Invalid API key. Organization-scoped API key required for this operation.";

/// A request authenticated with an organization-scoped key pair (Basic auth). A valid project key
/// gets 403 with Langfuse's text; anything else 401.
#[derive(Clone)]
pub struct OrganizationAuth {
    pub org_id: String,
    pub public_key: String,
}

impl OrganizationAuth {
    pub fn acting(&self) -> resources::identity::Acting {
        resources::identity::Acting::organization_key(&self.org_id, &self.public_key)
    }
}

impl FromRequestParts<AppState> for OrganizationAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Credentials::Basic { public_key, secret_key } = credentials(&parts.headers)? else {
            return Err(ApiError::unauthorized(INVALID_CREDENTIALS));
        };
        // Organization keys are not cached: these routes are rare, and a deleted key must fail on
        // its next request everywhere.
        if let Some(key) =
            storage::api_keys::find_organization_key(&state.stores.postgres, &public_key).await?
        {
            if !expired(key.expires_at)
                && opens(state, &public_key, &secret_key, &key.hashed_secret_key).await
            {
                state.keys.note_use(&state.stores.postgres, &public_key);
                return Ok(Self { org_id: key.org_id, public_key });
            }
            return Err(ApiError::unauthorized(INVALID_CREDENTIALS));
        }
        authenticate_project(state, &parts.headers).await?;
        Err(ApiError::new(axum::http::StatusCode::FORBIDDEN, ORGANIZATION_KEY_REQUIRED, "ForbiddenError"))
    }
}

/// The instance admin routes that manage organizations: `Authorization: Bearer <ADMIN_API_KEY>`;
/// without `ADMIN_API_KEY` they do not exist (404, the same answer as an unknown path).
pub struct InstanceAdmin;

impl FromRequestParts<AppState> for InstanceAdmin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if state.config.auth.admin_api_key.is_none() {
            return Err(ApiError::not_found(format!("No such endpoint: {}", parts.uri.path())));
        }
        AdminAuth::from_request_parts(parts, state).await.map(|AdminAuth| Self)
    }
}

/// A request carrying `Authorization: Bearer <ADMIN_API_KEY>`.
pub struct AdminAuth;

impl FromRequestParts<AppState> for AdminAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Some(admin_key) = &state.config.auth.admin_api_key else {
            return Err(ApiError::forbidden(
                "Admin API key is not configured on this instance (set ADMIN_API_KEY)",
            ));
        };
        match credentials(&parts.headers)? {
            Credentials::Bearer(token)
                if bool::from(token.as_bytes().ct_eq(admin_key.expose_secret().as_bytes())) =>
            {
                Ok(Self)
            }
            _ => Err(ApiError::unauthorized("Invalid admin API key")),
        }
    }
}

fn credentials(headers: &HeaderMap) -> Result<Credentials, ApiError> {
    let header = match headers.get(AUTHORIZATION) {
        None => None,
        Some(value) => Some(
            value.to_str().map_err(|_| ApiError::unauthorized(CredentialsError::Malformed.to_string()))?,
        ),
    };
    Credentials::parse(header).map_err(|e| ApiError::unauthorized(e.to_string()))
}
