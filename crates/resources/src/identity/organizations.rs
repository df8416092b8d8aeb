//! Organizations, as the instance admin API (`ADMIN_API_KEY`) manages them.

use serde_json::json;
use sqlx::PgPool;

use domain::identity::Action;

use super::bodies::{OrganizationBody, OrganizationRequest, Organizations, SuccessResponse};
use super::{Acting, conflict, metadata_object, name};
use crate::Error;

const MAX_NAME_CHARS: usize = 60;
const NOT_FOUND: &str = "Organization not found";

pub async fn create(pool: &PgPool, request: OrganizationRequest) -> Result<OrganizationBody, Error> {
    insert(pool, request, None).await
}

pub async fn list(pool: &PgPool) -> Result<Organizations, Error> {
    let mut connection = pool.acquire().await?;
    let mut organizations = Vec::new();
    for organization in storage::organizations::list(pool).await? {
        let projects = storage::organizations::projects(&mut connection, &organization.id).await?;
        organizations.push(OrganizationBody::new(organization, projects));
    }
    Ok(Organizations { organizations })
}

pub async fn get(pool: &PgPool, id: &str) -> Result<OrganizationBody, Error> {
    let mut connection = pool.acquire().await?;
    let organization =
        storage::organizations::get(&mut connection, id).await?.ok_or_else(|| Error::not_found(NOT_FOUND))?;
    let projects = storage::organizations::projects(&mut connection, id).await?;
    Ok(OrganizationBody::new(organization, projects))
}

pub async fn update(
    pool: &PgPool,
    acting: &Acting,
    request: OrganizationRequest,
) -> Result<OrganizationBody, Error> {
    acting.require(Action::OrganizationUpdate)?;
    let name = name(&request.name, "Organization", MAX_NAME_CHARS)?;
    let metadata = metadata_object(request.metadata)?;
    let mut tx = pool.begin().await?;
    let organization = storage::organizations::update(&mut tx, &acting.org_id, &name, metadata.as_ref())
        .await?
        .ok_or_else(|| Error::not_found(NOT_FOUND))?;
    let projects = storage::organizations::projects(&mut tx, &acting.org_id).await?;
    storage::audit::record(
        &mut tx,
        acting.audit(None, "organization.update", ("organization", &acting.org_id), json!({"name": name})),
    )
    .await?;
    tx.commit().await?;
    Ok(OrganizationBody::new(organization, projects))
}

/// Deletes an organization without projects (409 while it has any: their data must be deleted on
/// purpose first). Its audit log stays.
pub async fn delete(pool: &PgPool, acting: &Acting) -> Result<SuccessResponse, Error> {
    acting.require(Action::OrganizationDelete)?;
    let mut tx = pool.begin().await?;
    if !storage::organizations::delete(&mut tx, &acting.org_id).await.map_err(conflict)? {
        return Err(Error::not_found(NOT_FOUND));
    }
    storage::audit::record(
        &mut tx,
        acting.audit(None, "organization.delete", ("organization", &acting.org_id), json!({})),
    )
    .await?;
    tx.commit().await?;
    Ok(SuccessResponse { success: true })
}

/// 404 unless the organization exists (for the admin routes under `/organizations/{id}`).
pub async fn require_exists(pool: &PgPool, id: &str) -> Result<(), Error> {
    let mut connection = pool.acquire().await?;
    match storage::organizations::get(&mut connection, id).await? {
        Some(_) => Ok(()),
        None => Err(Error::not_found(NOT_FOUND)),
    }
}

/// An organization created by a signed-in person, who becomes its owner.
pub async fn create_for_user(
    pool: &PgPool,
    user_id: &str,
    request: OrganizationRequest,
) -> Result<OrganizationBody, Error> {
    insert(pool, request, Some(user_id)).await
}

/// A new organization, its owner's membership when a person creates it (the instance admin's
/// have none), and its audit record, in one transaction.
async fn insert(
    pool: &PgPool,
    request: OrganizationRequest,
    owner: Option<&str>,
) -> Result<OrganizationBody, Error> {
    let name = name(&request.name, "Organization", MAX_NAME_CHARS)?;
    let metadata = metadata_object(request.metadata)?.unwrap_or_else(|| json!({}));
    let id = uuid::Uuid::now_v7().to_string();
    let acting = match owner {
        None => Acting::instance_admin(&id),
        Some(user_id) => Acting {
            org_id: id.clone(),
            actor: storage::audit::Actor::User(user_id.to_owned()),
            subject: domain::identity::Subject::Role(domain::identity::Role::Owner),
        },
    };
    let mut tx = pool.begin().await?;
    let organization =
        storage::organizations::create(&mut tx, &id, &name, &metadata).await.map_err(conflict)?;
    if let Some(user_id) = owner {
        storage::members::set_organization_role(&mut tx, &id, user_id, "OWNER").await?;
    }
    storage::audit::record(
        &mut tx,
        acting.audit(None, "organization.create", ("organization", &id), json!({"name": name})),
    )
    .await?;
    tx.commit().await?;
    Ok(OrganizationBody::new(organization, Vec::new()))
}
