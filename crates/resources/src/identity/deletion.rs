//! The worker's job that removes a deleted project's ClickHouse rows and blobs (its PostgreSQL rows
//! went with the project). Each step — one table, one blob folder — is recorded when done, so a
//! restart goes on where it stopped and repeats at most one step, which deletes nothing the second
//! time. Progress is the `project_deletions` row (`steps_done` of `steps_total`, `blobs_deleted`).

use std::time::Duration;

use sqlx::PgPool;
use tokio_util::sync::CancellationToken;

use storage::blob::BlobStore;
use storage::clickhouse::{ClickHouse, PROJECT_TABLES, delete_project_rows};
use storage::project_deletions::{self, ProjectDeletion};
use storage::queue::IngestionQueue;

/// The blob folders that hold a project's data under `<folder>/<project id>/`: OTLP exports and
/// ingestion batches as accepted, and media.
pub const BLOB_FOLDERS: [&str; 4] = ["otel", "ingestion", "media", "exports"];

/// A failed deletion is tried again after this.
const RETRY_AFTER: chrono::Duration = chrono::Duration::seconds(30);
/// A running deletion whose worker has not recorded a step for this long is taken over: longer than
/// the longest step (a ClickHouse statement's bulk bound, 30 minutes).
const STALE_AFTER: chrono::Duration = chrono::Duration::minutes(35);

pub struct ProjectDeletions {
    pub postgres: PgPool,
    pub clickhouse: ClickHouse,
    pub blobs: BlobStore,
    /// Payloads of the project still queued would write rows after the deletion: it waits for them.
    pub queue: IngestionQueue,
    /// How often the worker looks for a deletion to do when there was none.
    pub poll: Duration,
}

fn steps() -> Vec<String> {
    PROJECT_TABLES
        .iter()
        .map(|table| format!("clickhouse:{table}"))
        .chain(BLOB_FOLDERS.iter().map(|folder| format!("blobs:{folder}")))
        .collect()
}

impl ProjectDeletions {
    pub async fn run(self, shutdown: CancellationToken) {
        while !shutdown.is_cancelled() {
            let wait = match self.run_once().await {
                Ok(Some(_)) => continue,
                Ok(None) => self.poll,
                Err(error) => {
                    tracing::warn!(%error, "project deletion job");
                    self.poll
                }
            };
            tokio::select! {
                () = shutdown.cancelled() => {}
                () = tokio::time::sleep(wait) => {}
            }
        }
    }

    /// Takes one due deletion and carries it out; the deletion worked on, `None` when none was due.
    pub async fn run_once(&self) -> storage::Result<Option<String>> {
        let steps = steps();
        let total = i32::try_from(steps.len()).unwrap_or(i32::MAX);
        let Some(job) = project_deletions::claim(&self.postgres, total, RETRY_AFTER, STALE_AFTER).await?
        else {
            return Ok(None);
        };
        let outcome = self.carry_out(&job, &steps).await;
        let error = outcome.as_ref().err().map(ToString::to_string);
        project_deletions::finish(&self.postgres, &job.project_id, error.as_deref()).await?;
        match error {
            None => tracing::info!(project_id = %job.project_id, "deleted a project's stored data"),
            Some(error) => {
                tracing::warn!(project_id = %job.project_id, %error, "project deletion failed; will retry")
            }
        }
        Ok(Some(job.project_id))
    }

    async fn carry_out(&self, job: &ProjectDeletion, steps: &[String]) -> storage::Result<()> {
        let project = job.project_id.as_str();
        // A project made again under the same id (e.g. by LANGFUSE_INIT_* at the next start) owns
        // whatever is stored under it now: its data is not deleted.
        if storage::projects::find_project(&self.postgres, project).await?.is_some() {
            return Err(storage::Error::new(
                storage::ErrorKind::Conflict,
                "a project with this id exists again; its data is kept (delete that project to remove it)",
            ));
        }
        let queued = self.queue.backlog().await?.by_project.get(project).copied().unwrap_or(0);
        if queued > 0 {
            return Err(storage::Error::new(
                storage::ErrorKind::Unavailable,
                format!("{queued} payloads of the project are still queued; deleting once they are written"),
            ));
        }
        for step in steps.iter().filter(|step| !job.steps_done.contains(step)) {
            let blobs = match step.split_once(':') {
                Some(("clickhouse", table)) => {
                    delete_project_rows(&self.clickhouse, table, project).await?;
                    0
                }
                Some(("blobs", folder)) => self.blobs.delete_under(&format!("{folder}/{project}")).await?,
                _ => unreachable!("steps() names only these kinds"),
            };
            project_deletions::step_done(
                &self.postgres,
                project,
                step,
                i64::try_from(blobs).unwrap_or(i64::MAX),
            )
            .await?;
        }
        Ok(())
    }
}
