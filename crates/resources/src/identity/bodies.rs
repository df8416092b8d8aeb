//! The bodies of the identity routes, named and shaped as the Langfuse SDKs' generated clients
//! parse them (`langfuse.api.projects`, `langfuse.api.organizations`) and as Langfuse's admin API
//! answers.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use storage::api_keys::{ApiKeySummary, CreatedKey};
use storage::organizations::{Organization, OrganizationProject};
use storage::projects::Project;

#[derive(Debug, Serialize, ToSchema)]
pub struct OrganizationRef {
    pub id: String,
    pub name: String,
}

/// A project as `GET/POST/PUT /api/public/projects` answer it. Langfuse's create answer leaves out
/// `organization`, which the SDK's `Project` type requires; we follow the client.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectBody {
    pub id: String,
    pub name: String,
    pub organization: OrganizationRef,
    #[schema(value_type = Object)]
    pub metadata: serde_json::Value,
    /// Omitted when unset, as upstream does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retention_days: Option<i32>,
}

impl From<Project> for ProjectBody {
    fn from(project: Project) -> Self {
        Self {
            id: project.id,
            name: project.name,
            organization: OrganizationRef { id: project.org_id, name: project.org_name },
            metadata: project.metadata.0,
            retention_days: project.retention_days,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Projects {
    pub data: Vec<ProjectBody>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProjectDeletionResponse {
    pub success: bool,
    pub message: String,
}

/// `POST /api/public/projects`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateProjectRequest {
    pub name: String,
    /// Days of data kept: 0 (forever) or at least 3.
    pub retention: i64,
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<serde_json::Value>,
}

/// `PUT /api/public/projects/{projectId}`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateProjectRequest {
    pub name: String,
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<serde_json::Value>,
    /// Kept as it is when omitted.
    pub retention: Option<i64>,
}

/// A key as listed: `ApiKeySummary` (project) and `OrganizationApiKey` have the same fields.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyBody {
    pub id: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    /// The same value as `note`.
    pub name: Option<String>,
    pub note: Option<String>,
    pub public_key: String,
    pub display_secret_key: String,
}

impl From<ApiKeySummary> for ApiKeyBody {
    fn from(key: ApiKeySummary) -> Self {
        Self {
            id: key.id.to_string(),
            created_at: key.created_at,
            expires_at: key.expires_at,
            last_used_at: key.last_used_at,
            name: key.note.clone(),
            note: key.note,
            public_key: key.public_key,
            display_secret_key: key.display_secret_key,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyList {
    pub api_keys: Vec<ApiKeyBody>,
}

/// A key just created, with its secret: shown this once.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyResponse {
    pub id: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub public_key: String,
    pub secret_key: String,
    pub display_secret_key: String,
    pub name: Option<String>,
    pub note: Option<String>,
}

impl From<CreatedKey> for ApiKeyResponse {
    fn from(created: CreatedKey) -> Self {
        use secrecy::ExposeSecret;
        let key = created.summary;
        Self {
            id: key.id.to_string(),
            created_at: key.created_at,
            expires_at: key.expires_at,
            public_key: key.public_key,
            secret_key: created.secret_key.expose_secret().to_owned(),
            display_secret_key: key.display_secret_key,
            name: key.note.clone(),
            note: key.note,
        }
    }
}

/// `POST …/apiKeys`: `name` and its deprecated alias `note` exclude each other.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateApiKeyRequest {
    pub name: Option<String>,
    pub note: Option<String>,
    pub expires_at: Option<DateTime<Utc>>,
    /// A predefined key pair: `pk-lf-…` with `secretKey` `sk-lf-…`.
    pub public_key: Option<String>,
    pub secret_key: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SuccessResponse {
    pub success: bool,
}

/// A project as an organization lists it (`OrganizationProject`, and the admin API's `projects`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrganizationProjectBody {
    pub id: String,
    pub name: String,
    #[schema(value_type = Object)]
    pub metadata: serde_json::Value,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<OrganizationProject> for OrganizationProjectBody {
    fn from(project: OrganizationProject) -> Self {
        Self {
            id: project.id,
            name: project.name,
            metadata: project.metadata.0,
            created_at: project.created_at,
            updated_at: project.updated_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OrganizationProjectsResponse {
    pub projects: Vec<OrganizationProjectBody>,
}

/// An organization as the instance admin API answers it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrganizationBody {
    pub id: String,
    pub name: String,
    pub created_at: DateTime<Utc>,
    #[schema(value_type = Object)]
    pub metadata: serde_json::Value,
    pub projects: Vec<OrganizationProjectBody>,
}

impl OrganizationBody {
    pub fn new(organization: Organization, projects: Vec<OrganizationProject>) -> Self {
        Self {
            id: organization.id,
            name: organization.name,
            created_at: organization.created_at,
            metadata: organization.metadata.0,
            projects: projects.into_iter().map(Into::into).collect(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Organizations {
    pub organizations: Vec<OrganizationBody>,
}

/// `POST`/`PUT /api/admin/organizations[/{id}]`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OrganizationRequest {
    pub name: String,
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<serde_json::Value>,
}

/// `POST /api/admin/organizations/{id}/apiKeys`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OrganizationKeyRequest {
    pub note: Option<String>,
}
