//! Who is assigned to a queue. Only people with access to the project can be assigned (404
//! otherwise, as for anyone the caller cannot see); assigning twice is the same as once.

use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use utoipa::ToSchema;

use super::find;
use crate::identity::people;
use crate::{Error, Result};

/// The body of both assignment routes (the SDK's `AnnotationQueueAssignmentRequest`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssignmentRequest {
    pub user_id: String,
}

/// The SDK's `CreateAnnotationQueueAssignmentResponse`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Assignment {
    pub user_id: String,
    pub queue_id: String,
    pub project_id: String,
}

/// The SDK's `DeleteAnnotationQueueAssignmentResponse`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeletedAssignment {
    pub success: bool,
}

fn checked_user(request: &AssignmentRequest) -> Result<&str> {
    let user = request.user_id.trim();
    if user.is_empty() || user.len() > 255 {
        return Err(Error::bad_request("`userId` must be 1 to 255 characters long"));
    }
    Ok(user)
}

/// `POST /api/public/annotation-queues/{queueId}/assignments`.
pub async fn create(
    pool: &PgPool,
    project: &str,
    queue: &str,
    request: AssignmentRequest,
) -> Result<Assignment> {
    let user = checked_user(&request)?;
    find(pool, project, queue).await?;
    if people::on_project(pool, user, project).await.is_err() {
        return Err(Error::not_found(format!("No user with id `{user}` has access to this project")));
    }
    sqlx::query(
        "INSERT INTO annotation_queue_assignments (queue_id, project_id, user_id) VALUES ($1, $2, $3) \
         ON CONFLICT (queue_id, user_id) DO NOTHING",
    )
    .bind(queue)
    .bind(project)
    .bind(user)
    .execute(pool)
    .await?;
    Ok(Assignment { user_id: user.to_owned(), queue_id: queue.to_owned(), project_id: project.to_owned() })
}

/// `DELETE /api/public/annotation-queues/{queueId}/assignments`; removing an assignment that does
/// not exist succeeds too (the state asked for holds).
pub async fn delete(
    pool: &PgPool,
    project: &str,
    queue: &str,
    request: AssignmentRequest,
) -> Result<DeletedAssignment> {
    let user = checked_user(&request)?;
    find(pool, project, queue).await?;
    sqlx::query(
        "DELETE FROM annotation_queue_assignments WHERE queue_id = $1 AND project_id = $2 AND user_id = $3",
    )
    .bind(queue)
    .bind(project)
    .bind(user)
    .execute(pool)
    .await?;
    Ok(DeletedAssignment { success: true })
}
