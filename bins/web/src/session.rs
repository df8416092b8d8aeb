//! Signed-in people: the session cookie and the extractor of the UI's JSON routes (`/api/ui/...`).
//!
//! The cookie (`loupe_session`) is HttpOnly, SameSite=Lax, `Secure` when the request came over
//! HTTPS (directly or as `X-Forwarded-Proto: https`), and carries a random token whose salted hash
//! is the session's key in PostgreSQL. Every state-changing request (any method but GET, HEAD,
//! OPTIONS) must also carry the session's CSRF token in `X-CSRF-Token`; the extractor refuses it
//! otherwise, so no handler can forget.

use axum::extract::FromRequestParts;
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method};

use resources::identity::accounts::{self, NewSession, UserBody, csrf_matches};

use crate::error::ApiError;
use crate::state::AppState;

pub const COOKIE_NAME: &str = "loupe_session";
pub const CSRF_HEADER: &str = "x-csrf-token";

/// A request from a signed-in person (with its CSRF token checked when it changes state).
pub struct UserSession {
    pub user: UserBody,
    pub csrf_token: String,
    /// The cookie's token, to end this session.
    pub token: String,
}

/// The session token the request's cookie carries, if any.
pub fn cookie_token(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| {
            let (name, value) = pair.trim().split_once('=')?;
            (name == COOKIE_NAME && !value.is_empty()).then(|| value.to_owned())
        })
}

fn changes_state(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

impl FromRequestParts<AppState> for UserSession {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let unauthorized = || ApiError::unauthorized("Sign in first");
        let token = cookie_token(&parts.headers).ok_or_else(unauthorized)?;
        let session = accounts::session(&state.stores.postgres, &state.config.auth.salt, &token)
            .await?
            .ok_or_else(unauthorized)?;
        if changes_state(&parts.method) {
            let presented = parts.headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok()).unwrap_or_default();
            if !csrf_matches(presented, &session.csrf_token) {
                return Err(ApiError::forbidden("Missing or wrong X-CSRF-Token header"));
            }
        }
        Ok(Self {
            user: UserBody { id: session.user_id, email: session.email, name: session.name },
            csrf_token: session.csrf_token,
            token,
        })
    }
}

/// Whether the client reached us over HTTPS (directly or through a proxy that says so).
fn secure(headers: &HeaderMap, uri: &axum::http::Uri) -> bool {
    uri.scheme_str() == Some("https")
        || headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("https"))
}

/// `Set-Cookie` for a new session.
pub fn set_cookie(session: &NewSession, headers: &HeaderMap, uri: &axum::http::Uri) -> HeaderValue {
    let secure = if secure(headers, uri) { "; Secure" } else { "" };
    let value = format!(
        "{COOKIE_NAME}={}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{secure}",
        accounts::expose(&session.token),
        session.max_age_seconds
    );
    HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// `Set-Cookie` that removes the session cookie.
pub fn clear_cookie() -> (axum::http::HeaderName, HeaderValue) {
    (SET_COOKIE, HeaderValue::from_static("loupe_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0"))
}

/// The client's address for rate limits: the nearest proxy's `X-Forwarded-For` entry (the last one)
/// when there is one, else the connection's peer.
pub fn client_address(parts_headers: &HeaderMap, peer: Option<std::net::SocketAddr>) -> String {
    parts_headers
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit(',').next())
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
        .or_else(|| peer.map(|p| p.ip().to_string()))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The client's address (see [`client_address`]), as an extractor.
pub struct ClientAddress(pub String);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let peer = parts.extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0);
        Ok(Self(client_address(&parts.headers, peer)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let mut headers = HeaderMap::new();
        headers.append(COOKIE, HeaderValue::from_static("a=1; loupe_session=tok; b=2"));
        assert_eq!(cookie_token(&headers).as_deref(), Some("tok"));
        assert_eq!(cookie_token(&HeaderMap::new()), None);
    }

    #[test]
    fn the_nearest_proxy_names_the_client() {
        let mut headers = HeaderMap::new();
        let peer = Some("10.0.0.1:5000".parse().unwrap());
        assert_eq!(client_address(&headers, peer), "10.0.0.1");
        headers.insert("x-forwarded-for", HeaderValue::from_static("1.1.1.1, 2.2.2.2"));
        assert_eq!(client_address(&headers, peer), "2.2.2.2");
    }
}
