//! The `blob_storage_integrations` rows (migrations/postgres/0019): the API's reads and writes, and
//! the worker's claim, window and completion records. Kept with the engine rather than in
//! `storage` because nothing else reads these tables.

use chrono::{DateTime, Utc};
use sqlx::PgPool;

use crate::Result;

/// How long a worker holds an integration per renewal; a crashed worker's window is taken over
/// after this.
pub const LEASE_SECS: i64 = 120;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct IntegrationRow {
    pub project_id: String,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub bucket_name: String,
    pub endpoint: Option<String>,
    pub region: String,
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
    pub prefix: String,
    pub export_frequency: String,
    pub enabled: bool,
    pub force_path_style: bool,
    pub file_type: String,
    pub export_mode: String,
    pub export_start_date: Option<DateTime<Utc>>,
    pub compressed: bool,
    pub export_source: String,
    pub export_field_groups: Vec<String>,
    pub start_at: DateTime<Utc>,
    pub last_sync_at: Option<DateTime<Utc>>,
    pub pending_window_end: Option<DateTime<Utc>>,
    pub next_sync_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub last_error_at: Option<DateTime<Utc>>,
    pub lease_holder: Option<String>,
    pub lease_until: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// The values a PUT writes (the secret already encrypted, or `None` to keep the stored one).
pub struct Upsert<'a> {
    pub project_id: &'a str,
    pub kind: &'a str,
    pub bucket_name: &'a str,
    pub endpoint: Option<&'a str>,
    pub region: &'a str,
    pub access_key_id: Option<&'a str>,
    pub encrypted_secret: Option<String>,
    pub prefix: &'a str,
    pub export_frequency: &'a str,
    pub enabled: bool,
    pub force_path_style: bool,
    pub file_type: &'a str,
    pub export_mode: &'a str,
    pub export_start_date: Option<DateTime<Utc>>,
    pub compressed: bool,
    pub export_source: &'a str,
    pub export_field_groups: Vec<String>,
    pub start_at: DateTime<Utc>,
}

pub async fn find(pool: &PgPool, project_id: &str) -> Result<Option<IntegrationRow>> {
    Ok(sqlx::query_as("SELECT * FROM blob_storage_integrations WHERE project_id = $1")
        .bind(project_id)
        .fetch_optional(pool)
        .await?)
}

/// The integrations of an organization's live projects.
pub async fn list_of_org(pool: &PgPool, org_id: &str) -> Result<Vec<IntegrationRow>> {
    Ok(sqlx::query_as(
        "SELECT i.* FROM blob_storage_integrations i JOIN projects p ON p.id = i.project_id \
         WHERE p.org_id = $1 AND p.deleted_at IS NULL ORDER BY i.created_at, i.project_id",
    )
    .bind(org_id)
    .fetch_all(pool)
    .await?)
}

/// Creates or replaces the settings. The export position (`last_sync_at`, a pending window) is
/// kept across updates, so a change of format never re-exports or skips a window; a changed
/// start (mode or date) restarts it. Turning it on (or creating it on) makes it due now, so the
/// first run starts within one poll of the worker.
pub async fn upsert(pool: &PgPool, row: Upsert<'_>) -> Result<IntegrationRow> {
    Ok(sqlx::query_as(
        "INSERT INTO blob_storage_integrations (project_id, type, bucket_name, endpoint, region, \
           access_key_id, secret_access_key, prefix, export_frequency, enabled, force_path_style, \
           file_type, export_mode, export_start_date, compressed, export_source, export_field_groups, \
           start_at, next_sync_at) \
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18, \
           CASE WHEN $10 THEN now() END) \
         ON CONFLICT (project_id) DO UPDATE SET type = $2, bucket_name = $3, endpoint = $4, region = $5, \
           access_key_id = $6, \
           secret_access_key = COALESCE($7, blob_storage_integrations.secret_access_key), \
           prefix = $8, export_frequency = $9, enabled = $10, force_path_style = $11, file_type = $12, \
           export_mode = $13, export_start_date = $14, compressed = $15, export_source = $16, \
           export_field_groups = $17, \
           last_sync_at = CASE WHEN blob_storage_integrations.start_at = $18 \
             THEN blob_storage_integrations.last_sync_at END, \
           pending_window_end = CASE WHEN blob_storage_integrations.start_at = $18 \
             THEN blob_storage_integrations.pending_window_end END, \
           start_at = $18, \
           next_sync_at = CASE WHEN NOT $10 THEN NULL \
             WHEN NOT blob_storage_integrations.enabled OR blob_storage_integrations.start_at <> $18 THEN now() \
             ELSE COALESCE(blob_storage_integrations.next_sync_at, now()) END, \
           last_error = NULL, last_error_at = NULL, updated_at = now() \
         RETURNING *",
    )
    .bind(row.project_id)
    .bind(row.kind)
    .bind(row.bucket_name)
    .bind(row.endpoint)
    .bind(row.region)
    .bind(row.access_key_id)
    .bind(row.encrypted_secret)
    .bind(row.prefix)
    .bind(row.export_frequency)
    .bind(row.enabled)
    .bind(row.force_path_style)
    .bind(row.file_type)
    .bind(row.export_mode)
    .bind(row.export_start_date)
    .bind(row.compressed)
    .bind(row.export_source)
    .bind(row.export_field_groups)
    .bind(row.start_at)
    .fetch_one(pool)
    .await?)
}

pub async fn delete(pool: &PgPool, project_id: &str) -> Result<bool> {
    let done = sqlx::query("DELETE FROM blob_storage_integrations WHERE project_id = $1")
        .bind(project_id)
        .execute(pool)
        .await?;
    Ok(done.rows_affected() > 0)
}

/// Takes the most overdue enabled integration no live worker holds, for `holder`. A lease already
/// in `holder`'s name is its own from before a restart (worker names are host names, one export
/// loop per worker), so a restarted worker resumes its window at once.
pub async fn claim_due(pool: &PgPool, holder: &str) -> Result<Option<IntegrationRow>> {
    Ok(sqlx::query_as(
        "UPDATE blob_storage_integrations SET lease_holder = $1, \
           lease_until = now() + make_interval(secs => $2) \
         WHERE project_id = (SELECT project_id FROM blob_storage_integrations \
           WHERE enabled AND next_sync_at <= now() \
             AND (lease_until IS NULL OR lease_until < now() OR lease_holder = $1) \
             AND project_id IN (SELECT id FROM projects WHERE deleted_at IS NULL) \
           ORDER BY next_sync_at LIMIT 1 FOR UPDATE SKIP LOCKED) \
         RETURNING *",
    )
    .bind(holder)
    .bind(LEASE_SECS as f64)
    .fetch_optional(pool)
    .await?)
}

/// Extends the lease; `false` when it is no longer ours (taken over, deleted, disabled).
pub async fn renew(pool: &PgPool, project_id: &str, holder: &str) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE blob_storage_integrations SET lease_until = now() + make_interval(secs => $3) \
         WHERE project_id = $1 AND lease_holder = $2 AND enabled",
    )
    .bind(project_id)
    .bind(holder)
    .bind(LEASE_SECS as f64)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() > 0)
}

/// Records the end of the window about to be written, before any byte of it is uploaded.
pub async fn plan_window(pool: &PgPool, project_id: &str, holder: &str, end: DateTime<Utc>) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE blob_storage_integrations SET pending_window_end = $3 \
         WHERE project_id = $1 AND lease_holder = $2",
    )
    .bind(project_id)
    .bind(holder)
    .bind(end)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() > 0)
}

/// The window's objects are all uploaded: the position moves to its end, the next run is due at
/// `next`, the error is cleared and the lease let go.
pub async fn complete_window(
    pool: &PgPool,
    project_id: &str,
    holder: &str,
    end: DateTime<Utc>,
    next: DateTime<Utc>,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE blob_storage_integrations SET last_sync_at = $3, pending_window_end = NULL, \
           next_sync_at = $4, last_error = NULL, last_error_at = NULL, lease_holder = NULL, lease_until = NULL \
         WHERE project_id = $1 AND lease_holder = $2",
    )
    .bind(project_id)
    .bind(holder)
    .bind(end)
    .bind(next)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() > 0)
}

/// Nothing to do yet (the next window has not closed): due again at `next`, lease let go.
pub async fn postpone(pool: &PgPool, project_id: &str, holder: &str, next: DateTime<Utc>) -> Result<()> {
    sqlx::query(
        "UPDATE blob_storage_integrations SET next_sync_at = $3, lease_holder = NULL, lease_until = NULL \
         WHERE project_id = $1 AND lease_holder = $2",
    )
    .bind(project_id)
    .bind(holder)
    .bind(next)
    .execute(pool)
    .await?;
    Ok(())
}

/// The run failed: the provider's message is kept for the status route, and the same window is
/// tried again at `retry_at`.
pub async fn fail(
    pool: &PgPool,
    project_id: &str,
    holder: &str,
    message: &str,
    retry_at: DateTime<Utc>,
) -> Result<()> {
    sqlx::query(
        "UPDATE blob_storage_integrations SET last_error = $3, last_error_at = now(), next_sync_at = $4, \
           lease_holder = NULL, lease_until = NULL \
         WHERE project_id = $1 AND lease_holder = $2",
    )
    .bind(project_id)
    .bind(holder)
    .bind(message)
    .bind(retry_at)
    .execute(pool)
    .await?;
    Ok(())
}
