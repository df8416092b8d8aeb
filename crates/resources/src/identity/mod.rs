//! Organizations, projects and API keys as the instance admin API and the organization-key routes
//! manage them. Every function takes who acts (`Acting`), checks `domain::identity::permits` first,
//! scopes every statement by the acting organization (a project of another organization is "not
//! found", never "forbidden", so its existence does not leak), and records an audit entry in the
//! transaction that makes the change.

pub mod accounts;
pub mod bodies;
pub mod deletion;
pub mod invitations;
pub mod keys;
pub mod memberships;
pub mod organizations;
pub mod people;
pub mod projects;
pub mod scim;

use domain::identity::{Action, Subject, permits};
use storage::audit::Actor;

use crate::Error;

/// Who acts, in which organization.
#[derive(Debug, Clone)]
pub struct Acting {
    pub org_id: String,
    pub actor: Actor,
    pub subject: Subject,
}

impl Acting {
    /// The instance admin (`ADMIN_API_KEY`) acting on one organization: every action.
    pub fn instance_admin(org_id: impl Into<String>) -> Self {
        Self {
            org_id: org_id.into(),
            actor: Actor::InstanceAdmin,
            subject: Subject::Role(domain::identity::Role::Owner),
        }
    }

    /// An organization-scoped API key acting on its own organization.
    pub fn organization_key(org_id: impl Into<String>, public_key: impl Into<String>) -> Self {
        Self {
            org_id: org_id.into(),
            actor: Actor::OrganizationKey(public_key.into()),
            subject: Subject::OrganizationKey,
        }
    }

    pub fn require(&self, action: Action) -> Result<(), Error> {
        if permits(self.subject, action) {
            Ok(())
        } else {
            Err(Error::Forbidden(format!("Your role does not allow this action ({action:?})")))
        }
    }

    fn audit<'a>(
        &'a self,
        project_id: Option<&'a str>,
        action: &'a str,
        target: (&'a str, &'a str),
        details: serde_json::Value,
    ) -> storage::audit::Entry<'a> {
        storage::audit::Entry {
            org_id: &self.org_id,
            project_id,
            actor: &self.actor,
            action,
            target_type: target.0,
            target_id: target.1,
            details,
        }
    }
}

/// A storage conflict (a name or key taken) is the caller's to fix: a 409, not a 500.
fn conflict(error: storage::Error) -> Error {
    match error.kind {
        storage::ErrorKind::Conflict => Error::Conflict(error.to_string()),
        _ => Error::Storage(error),
    }
}

/// Metadata, when given, is a JSON object.
fn metadata_object(metadata: Option<serde_json::Value>) -> Result<Option<serde_json::Value>, Error> {
    match metadata {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(value @ serde_json::Value::Object(_)) => Ok(Some(value)),
        Some(_) => Err(Error::bad_request("Invalid metadata. Should be a JSON object")),
    }
}

/// A name: not blank, at most `max` characters, kept as sent but trimmed.
fn name(text: &str, what: &str, max: usize) -> Result<String, Error> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(Error::bad_request(format!("{what} name must not be empty")));
    }
    if trimmed.chars().count() > max {
        return Err(Error::bad_request(format!("{what} name must be at most {max} characters")));
    }
    Ok(trimmed.to_owned())
}

/// Tells every web replica the keys are gone. The deletion is committed whatever happens here: if
/// Redis cannot be reached, the replicas' subscriptions are broken too, and a replica without a
/// subscription does not trust its cache (web's `key_cache`), so the keys still stop working.
async fn announce(revocations: &storage::key_revocations::Revocations, public_keys: &[String]) {
    if let Err(error) = revocations.publish(public_keys).await {
        tracing::error!(%error, keys = public_keys.len(), "could not announce revoked API keys");
    }
}

/// Whether the acting organization has this live project (else 404 with the same words whether it
/// exists elsewhere or not).
async fn require_own_project(pool: &sqlx::PgPool, acting: &Acting, project_id: &str) -> Result<(), Error> {
    match storage::projects::find_project(pool, project_id).await? {
        Some(project) if project.org_id == acting.org_id => Ok(()),
        _ => Err(Error::not_found(projects::NOT_FOUND)),
    }
}
