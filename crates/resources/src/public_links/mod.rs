//! Public links: a trace or a session that people without an account may read at
//! `/public/{token}`, turned on and off by a project's members (MEMBER and above; the route checks
//! the role). The token is the only credential of a public read, so it is 32 random bytes (URL-safe
//! base64, 43 characters); it is kept in clear so members can copy the link again, as they can see
//! the data it opens. Turning a link off stamps `revoked_at`: the token stops opening at the next
//! request (nothing caches it), and turning it on again makes a new token.
//!
//! What a token opens is in [`reads`]: only its trace (or its session's traces), never another
//! trace, observation or project id.

pub mod reads;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use ring::rand::{SecureRandom, SystemRandom};
use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;

use crate::{Error, Result};

const TOKEN_BYTES: usize = 32;
/// The length of a token as made here; anything else is not looked up.
const TOKEN_CHARS: usize = 43;
/// A trace or session id longer than this is refused (400); ids are usually 32–64 characters.
pub const MAX_TARGET_CHARS: usize = 1000;

/// What a link opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Trace,
    Session,
}

impl Kind {
    /// `trace` or `session`, as in the route's path.
    pub fn parse(raw: &str) -> Result<Self> {
        match raw {
            "trace" => Ok(Self::Trace),
            "session" => Ok(Self::Session),
            other => Err(Error::bad_request(format!("kind must be trace or session, got {other:?}"))),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Trace => "trace",
            Self::Session => "session",
        }
    }
}

/// Whether a trace or session has a live public link, for the members' toggle.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LinkState {
    pub public: bool,
    /// The token of the live link (the page is `/public/{token}`); absent when off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
}

/// A live link as a public read finds it. Never serialized: its project id stays on the server.
#[derive(Debug, Clone)]
pub struct Shared {
    pub project_id: String,
    pub kind: Kind,
    pub target_id: String,
}

fn checked_target(target_id: &str) -> Result<()> {
    if target_id.is_empty() || target_id.chars().count() > MAX_TARGET_CHARS {
        return Err(Error::bad_request(format!("the id must be 1 to {MAX_TARGET_CHARS} characters")));
    }
    Ok(())
}

fn new_token() -> Result<String> {
    let mut bytes = [0u8; TOKEN_BYTES];
    SystemRandom::new().fill(&mut bytes).map_err(|_| {
        Error::Storage(storage::Error::new(storage::ErrorKind::Internal, "the system random source failed"))
    })?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

type Row = (String, DateTime<Utc>);

fn state_of(row: Option<Row>) -> LinkState {
    match row {
        Some((token, created_at)) => {
            LinkState { public: true, token: Some(token), created_at: Some(crate::timestamp(&created_at)) }
        }
        None => LinkState { public: false, token: None, created_at: None },
    }
}

async fn live(pool: &PgPool, project_id: &str, kind: Kind, target_id: &str) -> Result<Option<Row>> {
    Ok(sqlx::query_as(
        "SELECT token, created_at FROM public_links \
         WHERE project_id = $1 AND kind = $2 AND target_id = $3 AND revoked_at IS NULL",
    )
    .bind(project_id)
    .bind(kind.as_str())
    .bind(target_id)
    .fetch_optional(pool)
    .await?)
}

/// The link state of one trace or session of the project.
pub async fn state(pool: &PgPool, project_id: &str, kind: Kind, target_id: &str) -> Result<LinkState> {
    checked_target(target_id)?;
    Ok(state_of(live(pool, project_id, kind, target_id).await?))
}

/// Turns the link on: the live one when there is one (so two members toggling at once share one
/// link), else a new token, recorded in the audit log with who made it.
pub async fn enable(
    pool: &PgPool,
    project_id: &str,
    kind: Kind,
    target_id: &str,
    user_id: &str,
) -> Result<LinkState> {
    checked_target(target_id)?;
    let mut tx = pool.begin().await?;
    // The partial unique index makes a concurrent second insert do nothing; the read after it
    // sees whichever insert won.
    let made = sqlx::query(
        "INSERT INTO public_links (token, project_id, kind, target_id, created_by) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (project_id, kind, target_id) WHERE revoked_at IS NULL DO NOTHING",
    )
    .bind(new_token()?)
    .bind(project_id)
    .bind(kind.as_str())
    .bind(target_id)
    .bind(user_id)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if made > 0 {
        audit(&mut tx, project_id, user_id, "publicLink.create", kind, target_id).await?;
    }
    tx.commit().await?;
    Ok(state_of(live(pool, project_id, kind, target_id).await?))
}

/// Turns the link off (nothing to do when it is off already); a revocation is audited too.
pub async fn revoke(
    pool: &PgPool,
    project_id: &str,
    kind: Kind,
    target_id: &str,
    user_id: &str,
) -> Result<LinkState> {
    checked_target(target_id)?;
    let mut tx = pool.begin().await?;
    let revoked = sqlx::query(
        "UPDATE public_links SET revoked_at = now() \
         WHERE project_id = $1 AND kind = $2 AND target_id = $3 AND revoked_at IS NULL",
    )
    .bind(project_id)
    .bind(kind.as_str())
    .bind(target_id)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if revoked > 0 {
        audit(&mut tx, project_id, user_id, "publicLink.revoke", kind, target_id).await?;
    }
    tx.commit().await?;
    Ok(state_of(None))
}

/// An audit entry in the project's organization: opening data to anyone with an address is an
/// admin-grade action, owners see who did it.
async fn audit(
    tx: &mut sqlx::PgConnection,
    project_id: &str,
    user_id: &str,
    action: &str,
    kind: Kind,
    target_id: &str,
) -> Result<()> {
    let org_id: String = sqlx::query_scalar("SELECT org_id FROM projects WHERE id = $1")
        .bind(project_id)
        .fetch_one(&mut *tx)
        .await?;
    let actor = storage::audit::Actor::User(user_id.to_owned());
    let entry = storage::audit::Entry {
        org_id: &org_id,
        project_id: Some(project_id),
        actor: &actor,
        action,
        target_type: kind.as_str(),
        target_id,
        details: serde_json::json!({"kind": kind.as_str()}),
    };
    storage::audit::record(tx, entry).await?;
    Ok(())
}

/// The live link of a token; `NotFound` for an unknown, malformed or revoked one (the same answer,
/// so nothing tells them apart).
pub async fn resolve(pool: &PgPool, token: &str) -> Result<Shared> {
    let not_found = || Error::not_found("No such public link");
    let well_formed = token.len() == TOKEN_CHARS
        && token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !well_formed {
        return Err(not_found());
    }
    let row: Option<(String, String, String)> = sqlx::query_as(
        "SELECT project_id, kind, target_id FROM public_links WHERE token = $1 AND revoked_at IS NULL",
    )
    .bind(token)
    .fetch_optional(pool)
    .await?;
    let (project_id, kind, target_id) = row.ok_or_else(not_found)?;
    Ok(Shared { project_id, kind: Kind::parse(&kind)?, target_id })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_url_safe() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_eq!(a.len(), TOKEN_CHARS);
        assert_ne!(a, b);
        assert!(a.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
    }

    #[test]
    fn kinds_are_trace_or_session() {
        assert_eq!(Kind::parse("trace").unwrap(), Kind::Trace);
        assert_eq!(Kind::parse("session").unwrap(), Kind::Session);
        assert!(matches!(Kind::parse("project"), Err(Error::BadRequest(_))));
    }
}
