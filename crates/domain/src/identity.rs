//! Who may do what: roles, the actions they are checked for, and the one function that decides
//! ([`permits`]). docs/identity.md shows the same table, rendered by [`permission_table`] and checked
//! against it by a test, so the document cannot drift from the code.

use std::fmt;
use std::str::FromStr;

/// A person's role in an organization, or on one project (where it overrides the organization's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Owner,
    Admin,
    Member,
    Viewer,
    /// On a project: no access to it, whatever the organization role says. In an organization: a
    /// member (e.g. provisioned by SCIM) with access only where a project role grants it.
    None,
}

impl Role {
    pub const ALL: [Role; 5] = [Role::Owner, Role::Admin, Role::Member, Role::Viewer, Role::None];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "OWNER",
            Role::Admin => "ADMIN",
            Role::Member => "MEMBER",
            Role::Viewer => "VIEWER",
            Role::None => "NONE",
        }
    }

    /// A role the Langfuse SDKs' `MembershipRole` can name (it has no NONE).
    pub fn parse_public(text: &str) -> Result<Self, UnknownRole> {
        match text.parse()? {
            Role::None => Err(UnknownRole(text.to_owned())),
            role => Ok(role),
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown role {0:?}: expected one of OWNER, ADMIN, MEMBER, VIEWER")]
pub struct UnknownRole(pub String);

impl FromStr for Role {
    type Err = UnknownRole;

    fn from_str(text: &str) -> Result<Self, UnknownRole> {
        Role::ALL.into_iter().find(|role| role.as_str() == text).ok_or_else(|| UnknownRole(text.to_owned()))
    }
}

/// Who is acting: a person with their (effective) role, or an organization-scoped API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    Role(Role),
    /// Basic auth with an organization key: manages the organization's projects, keys and members
    /// through the public API, but cannot delete the organization, mint organization keys (the
    /// instance admin API does) or read the audit log (owners do).
    OrganizationKey,
}

impl Subject {
    pub const ALL: [Subject; 6] = [
        Subject::Role(Role::Owner),
        Subject::Role(Role::Admin),
        Subject::Role(Role::Member),
        Subject::Role(Role::Viewer),
        Subject::Role(Role::None),
        Subject::OrganizationKey,
    ];

    fn column(self) -> &'static str {
        match self {
            Subject::Role(role) => role.as_str(),
            Subject::OrganizationKey => "organization API key",
        }
    }
}

/// What a subject may be allowed to do. Organization actions are checked against the organization
/// role; project actions against the effective role on that project ([`effective_project_role`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// See the organization, its name and the projects one can read.
    OrganizationRead,
    OrganizationUpdate,
    OrganizationDelete,
    ProjectCreate,
    /// See the organization's members and their roles.
    MembersRead,
    /// Add, change or remove members below OWNER.
    MembersManage,
    /// Grant or take away OWNER (so an ADMIN cannot make themselves owner).
    OwnersManage,
    OrganizationKeysRead,
    OrganizationKeysManage,
    AuditLogRead,
    /// Read a project's traces, prompts, datasets and settings.
    ProjectRead,
    /// Write a project's data: prompts, datasets, scores, annotations.
    ProjectWrite,
    /// Rename a project, change its retention and metadata.
    ProjectUpdate,
    ProjectDelete,
    ProjectKeysRead,
    ProjectKeysManage,
    /// Set or remove project roles on that project.
    ProjectMembersManage,
    /// Create, change or delete a project's LLM connections (their API keys); Langfuse's
    /// `llmApiKeys:create`/`:update`/`:delete`, given to OWNER and ADMIN.
    LlmConnectionsManage,
    /// See and change a project's integrations (blob storage exports), as Langfuse's `integrations:CRUD`.
    IntegrationsManage,
}

impl Action {
    pub const ALL: [Action; 19] = [
        Action::OrganizationRead,
        Action::OrganizationUpdate,
        Action::OrganizationDelete,
        Action::ProjectCreate,
        Action::MembersRead,
        Action::MembersManage,
        Action::OwnersManage,
        Action::OrganizationKeysRead,
        Action::OrganizationKeysManage,
        Action::AuditLogRead,
        Action::ProjectRead,
        Action::ProjectWrite,
        Action::ProjectUpdate,
        Action::ProjectDelete,
        Action::ProjectKeysRead,
        Action::ProjectKeysManage,
        Action::ProjectMembersManage,
        Action::LlmConnectionsManage,
        Action::IntegrationsManage,
    ];

    fn describe(self) -> &'static str {
        match self {
            Action::OrganizationRead => "see the organization and its projects",
            Action::OrganizationUpdate => "rename the organization",
            Action::OrganizationDelete => "delete the organization",
            Action::ProjectCreate => "create a project",
            Action::MembersRead => "list members and roles",
            Action::MembersManage => "add, change, remove members (below OWNER)",
            Action::OwnersManage => "grant or remove OWNER",
            Action::OrganizationKeysRead => "list organization API keys",
            Action::OrganizationKeysManage => "create, delete organization API keys",
            Action::AuditLogRead => "read the audit log",
            Action::ProjectRead => "read a project's data",
            Action::ProjectWrite => "write a project's data (prompts, datasets, scores)",
            Action::ProjectUpdate => "change a project's name, retention, metadata",
            Action::ProjectDelete => "delete a project",
            Action::ProjectKeysRead => "list a project's API keys",
            Action::ProjectKeysManage => "create, delete a project's API keys",
            Action::ProjectMembersManage => "set or remove project roles",
            Action::LlmConnectionsManage => "create, change, delete a project's LLM connections",
            Action::IntegrationsManage => "see, change a project's integrations (exports)",
        }
    }
}

/// Whether `subject` may perform `action`. The one place this is decided.
pub fn permits(subject: Subject, action: Action) -> bool {
    use Action::*;
    let role = match subject {
        Subject::OrganizationKey => {
            return !matches!(action, OrganizationDelete | OrganizationKeysManage | AuditLogRead);
        }
        Subject::Role(role) => role,
    };
    match role {
        Role::Owner => true,
        Role::Admin => !matches!(action, OrganizationDelete | OwnersManage | AuditLogRead),
        Role::Member => matches!(action, OrganizationRead | MembersRead | ProjectRead | ProjectWrite),
        Role::Viewer => matches!(action, OrganizationRead | ProjectRead),
        Role::None => false,
    }
}

/// The role that counts on a project: the project role when one is set (NONE included), else the
/// organization role; `None` when the person is not in the organization at all.
pub fn effective_project_role(organization: Option<Role>, project: Option<Role>) -> Option<Role> {
    organization.map(|org_role| project.unwrap_or(org_role))
}

/// The who-may-do-what table as Markdown, exactly as docs/identity.md shows it.
pub fn permission_table() -> String {
    let mut out = String::from("| action |");
    for subject in Subject::ALL {
        out.push_str(&format!(" {} |", subject.column()));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(Subject::ALL.len()));
    out.push('\n');
    for action in Action::ALL {
        out.push_str(&format!("| {} |", action.describe()));
        for subject in Subject::ALL {
            out.push_str(if permits(subject, action) { " ✓ |" } else { " |" });
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every role × action, spelled out: a change to the rules must change this table on purpose.
    #[test]
    fn every_role_and_action() {
        use Action::*;
        // (action, [OWNER, ADMIN, MEMBER, VIEWER, NONE, organization key])
        let expected: [(Action, [bool; 6]); 19] = [
            (OrganizationRead, [true, true, true, true, false, true]),
            (OrganizationUpdate, [true, true, false, false, false, true]),
            (OrganizationDelete, [true, false, false, false, false, false]),
            (ProjectCreate, [true, true, false, false, false, true]),
            (MembersRead, [true, true, true, false, false, true]),
            (MembersManage, [true, true, false, false, false, true]),
            (OwnersManage, [true, false, false, false, false, true]),
            (OrganizationKeysRead, [true, true, false, false, false, true]),
            (OrganizationKeysManage, [true, true, false, false, false, false]),
            (AuditLogRead, [true, false, false, false, false, false]),
            (ProjectRead, [true, true, true, true, false, true]),
            (ProjectWrite, [true, true, true, false, false, true]),
            (ProjectUpdate, [true, true, false, false, false, true]),
            (ProjectDelete, [true, true, false, false, false, true]),
            (ProjectKeysRead, [true, true, false, false, false, true]),
            (ProjectKeysManage, [true, true, false, false, false, true]),
            (ProjectMembersManage, [true, true, false, false, false, true]),
            (LlmConnectionsManage, [true, true, false, false, false, true]),
            (IntegrationsManage, [true, true, false, false, false, true]),
        ];
        assert_eq!(expected.map(|(action, _)| action), Action::ALL, "every action, in order");
        for (action, row) in expected {
            for (subject, allowed) in Subject::ALL.into_iter().zip(row) {
                assert_eq!(permits(subject, action), allowed, "{subject:?} × {action:?}");
            }
        }
    }

    #[test]
    fn the_docs_show_this_table() {
        let docs = include_str!("../../../docs/identity.md");
        let table = permission_table();
        assert!(
            docs.contains(&table),
            "docs/identity.md does not show the table permits() decides; paste this:\n{table}"
        );
    }

    #[test]
    fn a_project_role_overrides_the_organization_role() {
        assert_eq!(effective_project_role(Some(Role::Viewer), None), Some(Role::Viewer));
        assert_eq!(effective_project_role(Some(Role::Viewer), Some(Role::Admin)), Some(Role::Admin));
        assert_eq!(effective_project_role(Some(Role::Owner), Some(Role::None)), Some(Role::None));
        assert_eq!(effective_project_role(None, Some(Role::Admin)), None, "not in the organization");
        assert!(!permits(
            Subject::Role(effective_project_role(Some(Role::Owner), Some(Role::None)).unwrap()),
            Action::ProjectRead
        ));
    }

    #[test]
    fn roles_parse_and_print() {
        for role in Role::ALL {
            assert_eq!(role.as_str().parse::<Role>(), Ok(role));
        }
        assert!("owner".parse::<Role>().is_err());
        assert!(Role::parse_public("NONE").is_err());
        assert_eq!(Role::parse_public("VIEWER"), Ok(Role::Viewer));
    }
}
