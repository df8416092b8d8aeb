//! SCIM 2.0 user provisioning for an organization (`/api/public/scim/...`, organization key), shaped
//! as `langfuse.api.scim` parses it. A provisioned user joins the organization with role NONE (no
//! project until someone grants one) and no password; deleting one removes them from this
//! organization only (they may belong to others).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::PgPool;
use utoipa::ToSchema;

use domain::identity::{Action, Role};
use storage::members::Member;

use super::Acting;
use crate::Error;

const USER_SCHEMA: &str = "urn:ietf:params:scim:schemas:core:2.0:User";
const LIST_SCHEMA: &str = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
pub const ERROR_SCHEMA: &str = "urn:ietf:params:scim:api:messages:2.0:Error";
const MAX_COUNT: i64 = 100;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScimUser {
    pub schemas: Vec<String>,
    pub id: String,
    pub user_name: String,
    pub name: ScimName,
    pub emails: Vec<ScimEmail>,
    pub meta: UserMeta,
}

#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
pub struct ScimName {
    pub formatted: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ScimEmail {
    #[serde(default)]
    pub primary: bool,
    pub value: String,
    #[serde(default, rename = "type")]
    pub kind: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserMeta {
    pub resource_type: String,
    pub created: Option<String>,
    pub last_modified: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScimUsersListResponse {
    pub schemas: Vec<String>,
    pub total_results: usize,
    pub start_index: i64,
    pub items_per_page: usize,
    #[serde(rename = "Resources")]
    pub resources: Vec<ScimUser>,
}

/// `POST /api/public/scim/Users`. Other SCIM attributes an identity provider sends are ignored.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateScimUser {
    pub user_name: String,
    #[serde(default)]
    pub name: ScimName,
    #[serde(default)]
    pub emails: Vec<ScimEmail>,
    pub active: Option<bool>,
    /// Ignored, as in Langfuse: no credential is created for a provisioned user.
    pub password: Option<String>,
}

fn scim_user(member: Member) -> ScimUser {
    let created = member.created_at.to_rfc3339();
    ScimUser {
        schemas: vec![USER_SCHEMA.to_owned()],
        id: member.user_id,
        user_name: member.email.clone(),
        name: ScimName { formatted: member.name },
        emails: vec![ScimEmail { primary: true, value: member.email, kind: "work".to_owned() }],
        meta: UserMeta {
            resource_type: "User".to_owned(),
            created: Some(created.clone()),
            last_modified: Some(created),
        },
    }
}

/// The one filter supported: `userName eq "value"`.
fn user_name_filter(filter: &str) -> Result<String, Error> {
    let mut parts = filter.trim().splitn(3, ' ');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(attribute), Some(op), Some(value))
            if attribute.eq_ignore_ascii_case("userName") && op.eq_ignore_ascii_case("eq") =>
        {
            let value = value.trim();
            Ok(value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value).to_owned())
        }
        _ => Err(Error::bad_request("Only the filter `userName eq \"value\"` is supported")),
    }
}

pub async fn list_users(
    pool: &PgPool,
    acting: &Acting,
    filter: Option<&str>,
    start_index: i64,
    count: i64,
) -> Result<ScimUsersListResponse, Error> {
    acting.require(Action::MembersRead)?;
    if start_index < 1 || !(0..=MAX_COUNT).contains(&count) {
        return Err(Error::bad_request(format!("startIndex must be at least 1 and count 0 to {MAX_COUNT}")));
    }
    let wanted = filter.map(user_name_filter).transpose()?;
    let members: Vec<Member> = storage::members::organization_members(pool, &acting.org_id)
        .await?
        .into_iter()
        .filter(|m| wanted.as_ref().is_none_or(|email| m.email.eq_ignore_ascii_case(email)))
        .collect();
    let total = members.len();
    let skip = usize::try_from(start_index - 1).unwrap_or(usize::MAX);
    let take = usize::try_from(count).unwrap_or(0);
    let resources: Vec<ScimUser> = members.into_iter().skip(skip).take(take).map(scim_user).collect();
    Ok(ScimUsersListResponse {
        schemas: vec![LIST_SCHEMA.to_owned()],
        total_results: total,
        start_index,
        items_per_page: resources.len(),
        resources,
    })
}

pub async fn create_user(pool: &PgPool, acting: &Acting, request: CreateScimUser) -> Result<ScimUser, Error> {
    acting.require(Action::MembersManage)?;
    let email = request.user_name.trim();
    if !email.contains('@') || email.len() > 320 {
        return Err(Error::bad_request("userName must be the user's email address"));
    }
    let name = request.name.formatted.as_deref().map(str::trim).filter(|n| !n.is_empty());
    let mut tx = pool.begin().await?;
    let (user, _) = storage::members::ensure_user(&mut tx, email, name).await?;
    if storage::members::organization_member(&mut tx, &acting.org_id, &user.id).await?.is_some() {
        return Err(Error::Conflict("User already exists in this organization".to_owned()));
    }
    storage::members::set_organization_role(&mut tx, &acting.org_id, &user.id, Role::None.as_str()).await?;
    storage::audit::record(
        &mut tx,
        acting.audit(None, "scim.user.create", ("user", &user.id), json!({"email": email, "role": "NONE"})),
    )
    .await?;
    let member = storage::members::organization_member(&mut tx, &acting.org_id, &user.id)
        .await?
        .ok_or_else(|| Error::not_found("User not found"))?;
    tx.commit().await?;
    Ok(scim_user(member))
}

pub async fn get_user(pool: &PgPool, acting: &Acting, user_id: &str) -> Result<ScimUser, Error> {
    acting.require(Action::MembersRead)?;
    let mut connection = pool.acquire().await?;
    storage::members::organization_member(&mut connection, &acting.org_id, user_id)
        .await?
        .map(scim_user)
        .ok_or_else(|| Error::not_found("User not found"))
}

pub async fn delete_user(pool: &PgPool, acting: &Acting, user_id: &str) -> Result<(), Error> {
    acting.require(Action::MembersManage)?;
    let mut tx = pool.begin().await?;
    let member = storage::members::organization_member(&mut tx, &acting.org_id, user_id)
        .await?
        .ok_or_else(|| Error::not_found("User not found"))?;
    if member.role == Role::Owner.as_str() {
        acting.require(Action::OwnersManage)?;
        if storage::members::owner_count(&mut tx, &acting.org_id).await? <= 1 {
            return Err(Error::bad_request("The organization's last owner cannot be removed"));
        }
    }
    storage::members::remove_organization_member(&mut tx, &acting.org_id, user_id).await?;
    storage::audit::record(&mut tx, acting.audit(None, "scim.user.delete", ("user", user_id), json!({})))
        .await?;
    tx.commit().await?;
    Ok(())
}

fn meta(resource_type: &str, location: &str) -> Value {
    json!({"resourceType": resource_type, "location": location})
}

pub fn service_provider_config() -> Value {
    json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
        "documentationUri": "https://langfuse.com/docs/administration/scim-and-org-api",
        "patch": {"supported": false},
        "bulk": {"supported": false, "maxOperations": 0, "maxPayloadSize": 0},
        "filter": {"supported": true, "maxResults": MAX_COUNT},
        "changePassword": {"supported": false},
        "sort": {"supported": false},
        "etag": {"supported": false},
        "authenticationSchemes": [{
            "name": "HTTP Basic", "description": "An organization API key pair as Basic credentials",
            "specUri": "https://www.rfc-editor.org/info/rfc2617", "type": "httpbasic", "primary": true
        }],
        "meta": meta("ServiceProviderConfig", "/api/public/scim/ServiceProviderConfig"),
    })
}

pub fn resource_types() -> Value {
    json!({
        "schemas": [LIST_SCHEMA],
        "totalResults": 1,
        "Resources": [{
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
            "id": "User", "name": "User", "endpoint": "/Users", "description": "User Account",
            "schema": USER_SCHEMA, "schemaExtensions": [],
            "meta": meta("ResourceType", "/api/public/scim/ResourceTypes/User"),
        }],
    })
}

pub fn schemas() -> Value {
    let attribute = |name: &str, required: bool| {
        json!({"name": name, "type": "string", "multiValued": false, "required": required,
               "caseExact": false, "mutability": "readWrite", "returned": "default", "uniqueness": "none"})
    };
    json!({
        "schemas": [LIST_SCHEMA],
        "totalResults": 1,
        "Resources": [{
            "id": USER_SCHEMA, "name": "User", "description": "User Account",
            "attributes": [attribute("userName", true), attribute("name", false), attribute("emails", false)],
            "meta": meta("Schema", &format!("/api/public/scim/Schemas/{USER_SCHEMA}")),
        }],
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_user_name_eq_filters() {
        assert_eq!(super::user_name_filter(r#"userName eq "a@b.c""#).unwrap(), "a@b.c");
        assert_eq!(super::user_name_filter("username EQ a@b.c").unwrap(), "a@b.c");
        assert!(super::user_name_filter(r#"emails co "x""#).is_err());
        assert!(super::user_name_filter("").is_err());
    }
}
