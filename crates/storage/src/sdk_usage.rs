//! The clients seen per project (`sdk_usage`), recorded by the worker for cutover readiness.

use chrono::{DateTime, Utc};
use sqlx::PgPool;

use crate::Result;

/// One client as seen in processed payloads.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SdkKey {
    pub project_id: String,
    pub sdk_name: String,
    pub sdk_version: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SdkSighting {
    pub ingestion_version: Option<i32>,
    pub last_seen_at: DateTime<Utc>,
    pub payloads: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct SdkUsage {
    pub project_id: String,
    pub sdk_name: String,
    pub sdk_version: String,
    pub ingestion_version: Option<i32>,
    pub first_seen_at: DateTime<Utc>,
    pub last_seen_at: DateTime<Utc>,
    pub payloads: i64,
}

/// Upserts a batch of sightings in one statement.
pub async fn record(pool: &PgPool, sightings: &[(SdkKey, SdkSighting)]) -> Result<()> {
    if sightings.is_empty() {
        return Ok(());
    }
    let column = |f: fn(&(SdkKey, SdkSighting)) -> String| sightings.iter().map(f).collect::<Vec<_>>();
    let projects = column(|(k, _)| k.project_id.clone());
    let names = column(|(k, _)| k.sdk_name.clone());
    let versions = column(|(k, _)| k.sdk_version.clone());
    let ingestion_versions: Vec<Option<i32>> = sightings.iter().map(|(_, s)| s.ingestion_version).collect();
    let seen: Vec<DateTime<Utc>> = sightings.iter().map(|(_, s)| s.last_seen_at).collect();
    let payloads: Vec<i64> = sightings.iter().map(|(_, s)| s.payloads).collect();
    sqlx::query(
        "INSERT INTO sdk_usage (project_id, sdk_name, sdk_version, ingestion_version, first_seen_at, last_seen_at, payloads) \
         SELECT p, n, v, i, s, s, c FROM UNNEST($1::text[], $2::text[], $3::text[], $4::int[], $5::timestamptz[], $6::bigint[]) \
             AS u(p, n, v, i, s, c) \
         WHERE EXISTS (SELECT 1 FROM projects WHERE id = u.p) \
         ON CONFLICT (project_id, sdk_name, sdk_version) DO UPDATE SET \
             ingestion_version = GREATEST(sdk_usage.ingestion_version, EXCLUDED.ingestion_version), \
             last_seen_at = GREATEST(sdk_usage.last_seen_at, EXCLUDED.last_seen_at), \
             payloads = sdk_usage.payloads + EXCLUDED.payloads",
    )
    .bind(projects)
    .bind(names)
    .bind(versions)
    .bind(ingestion_versions)
    .bind(seen)
    .bind(payloads)
    .execute(pool)
    .await?;
    Ok(())
}

pub async fn list(pool: &PgPool, project_id: Option<&str>) -> Result<Vec<SdkUsage>> {
    Ok(sqlx::query_as(
        "SELECT project_id, sdk_name, sdk_version, ingestion_version, first_seen_at, last_seen_at, payloads \
         FROM sdk_usage WHERE $1::text IS NULL OR project_id = $1 ORDER BY project_id, sdk_name, sdk_version",
    )
    .bind(project_id)
    .fetch_all(pool)
    .await?)
}
