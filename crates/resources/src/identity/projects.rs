//! Projects within the acting organization: create, change, delete, list.

use serde_json::json;
use sqlx::PgPool;

use domain::identity::Action;
use storage::key_revocations::Revocations;
use storage::project_admin::ProjectChange;

use super::bodies::{
    CreateProjectRequest, OrganizationProjectBody, OrganizationProjectsResponse, ProjectBody,
    ProjectDeletionResponse, UpdateProjectRequest,
};
use super::{Acting, conflict, metadata_object, name};
use crate::Error;

/// Langfuse's limit on a project name.
const MAX_NAME_CHARS: usize = 60;

pub const NOT_FOUND: &str = "Project not found or you don't have access to it";

/// `retention`: 0 keeps data forever; otherwise at least 3 days, as Langfuse requires.
fn retention_days(retention: i64) -> Result<Option<i32>, Error> {
    match retention {
        0 => Ok(None),
        3.. => i32::try_from(retention).map(Some).map_err(|_| Error::bad_request("retention is too large")),
        _ => Err(Error::bad_request("retention must be 0 (keep forever) or at least 3 days")),
    }
}

pub async fn create(
    pool: &PgPool,
    acting: &Acting,
    request: CreateProjectRequest,
) -> Result<ProjectBody, Error> {
    acting.require(Action::ProjectCreate)?;
    let name = name(&request.name, "Project", MAX_NAME_CHARS)?;
    let retention = retention_days(request.retention)?;
    let metadata = metadata_object(request.metadata)?.unwrap_or_else(|| json!({}));
    let mut tx = pool.begin().await?;
    let project = storage::project_admin::create(&mut tx, &acting.org_id, &name, retention, &metadata)
        .await
        .map_err(conflict)?;
    let details = json!({"name": project.name, "retentionDays": project.retention_days});
    storage::audit::record(
        &mut tx,
        acting.audit(Some(&project.id), "project.create", ("project", &project.id), details),
    )
    .await?;
    tx.commit().await?;
    Ok(project.into())
}

pub async fn update(
    pool: &PgPool,
    acting: &Acting,
    project_id: &str,
    request: UpdateProjectRequest,
) -> Result<ProjectBody, Error> {
    acting.require(Action::ProjectUpdate)?;
    let name = name(&request.name, "Project", MAX_NAME_CHARS)?;
    let metadata = metadata_object(request.metadata)?;
    let retention = request.retention.map(retention_days).transpose()?;
    let mut tx = pool.begin().await?;
    let change = ProjectChange { name: &name, metadata: metadata.as_ref(), retention_days: retention };
    let project = storage::project_admin::update(&mut tx, &acting.org_id, project_id, change)
        .await
        .map_err(conflict)?
        .ok_or_else(|| Error::not_found(NOT_FOUND))?;
    let details = json!({"name": project.name, "retentionDays": project.retention_days, "metadataChanged": metadata.is_some()});
    storage::audit::record(
        &mut tx,
        acting.audit(Some(project_id), "project.update", ("project", project_id), details),
    )
    .await?;
    tx.commit().await?;
    Ok(project.into())
}

/// Deletes the project's PostgreSQL rows at once and its keys with them (announced to every web,
/// so they stop working at once); the worker removes its ClickHouse rows and blobs.
pub async fn delete(
    pool: &PgPool,
    revocations: &Revocations,
    acting: &Acting,
    project_id: &str,
) -> Result<ProjectDeletionResponse, Error> {
    acting.require(Action::ProjectDelete)?;
    let mut tx = pool.begin().await?;
    let keys = storage::project_admin::delete(&mut tx, &acting.org_id, project_id)
        .await?
        .ok_or_else(|| Error::not_found(NOT_FOUND))?;
    storage::audit::record(
        &mut tx,
        acting.audit(
            Some(project_id),
            "project.delete",
            ("project", project_id),
            json!({"apiKeysRevoked": keys.len()}),
        ),
    )
    .await?;
    tx.commit().await?;
    super::announce(revocations, &keys).await;
    Ok(ProjectDeletionResponse {
        success: true,
        message: "Project deleted; its stored data is being removed in the background".to_owned(),
    })
}

pub async fn list(pool: &PgPool, acting: &Acting) -> Result<OrganizationProjectsResponse, Error> {
    acting.require(Action::OrganizationRead)?;
    let mut connection = pool.acquire().await?;
    let projects = storage::organizations::projects(&mut connection, &acting.org_id).await?;
    Ok(OrganizationProjectsResponse {
        projects: projects.into_iter().map(OrganizationProjectBody::from).collect(),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn retention_is_zero_or_at_least_three_days() {
        assert_eq!(super::retention_days(0).unwrap(), None);
        assert_eq!(super::retention_days(3).unwrap(), Some(3));
        assert!(super::retention_days(1).is_err());
        assert!(super::retention_days(-1).is_err());
        assert!(super::retention_days(i64::MAX).is_err());
    }
}
