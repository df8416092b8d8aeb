//! The rules of `/api/public/integrations/blob-storage` (docs/exports.md): who sees which
//! integrations ([`Scope`]), what a PUT must say, the secret encrypted under `ENCRYPTION_KEY`
//! and never answered, a source the write mode cannot serve refused with 400, and the status
//! the route reports.

use chrono::{DateTime, Duration, Utc};
use domain::config::WriteMode;
use domain::outbound::OutboundPolicy;
use domain::secrets::EncryptionKey;
use sqlx::PgPool;

use crate::job::unserved_message;
use crate::model::{
    DeletionBody, FieldGroup, FileType, Frequency, IntegrationBody, IntegrationsBody, Mode, Source,
    StatusBody, SyncStatus, TargetType, UpsertRequest,
};
use crate::store::{self, IntegrationRow, Upsert};
use crate::target::{self, TargetSettings};
use crate::{Error, Result, schedule};

pub const NOT_FOUND: &str = "Blob storage integration not found";
const PROJECT_NOT_FOUND: &str = "Project not found";

/// Which integrations a caller reaches: an organization key, every project of its organization;
/// a signed-in person (OWNER or ADMIN), the one project they act on.
#[derive(Debug, Clone)]
pub struct Scope {
    pub org_id: String,
    pub project_id: Option<String>,
}

impl Scope {
    async fn reaches(&self, pool: &PgPool, project_id: &str) -> Result<bool> {
        if self.project_id.as_deref().is_some_and(|only| only != project_id) {
            return Ok(false);
        }
        let found: Option<(i32,)> =
            sqlx::query_as("SELECT 1 FROM projects WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL")
                .bind(project_id)
                .bind(&self.org_id)
                .fetch_optional(pool)
                .await?;
        Ok(found.is_some())
    }
}

/// What the deployment brings to a PUT.
pub struct Deployment<'a> {
    pub encryption_key: Option<&'a EncryptionKey>,
    pub write_mode: WriteMode,
    /// `LANGFUSE_OUTBOUND_ALLOWED_HOSTS`: the endpoint is refused when saved unless it permits it.
    pub policy: &'a OutboundPolicy,
}

pub async fn list(pool: &PgPool, scope: &Scope) -> Result<IntegrationsBody> {
    let rows = store::list_of_org(pool, &scope.org_id).await?;
    let data = rows
        .into_iter()
        .filter(|row| scope.project_id.as_deref().is_none_or(|only| only == row.project_id))
        .map(body)
        .collect::<Result<_>>()?;
    Ok(IntegrationsBody { data })
}

pub async fn status(pool: &PgPool, scope: &Scope, id: &str) -> Result<StatusBody> {
    let row = reachable(pool, scope, id).await?;
    Ok(StatusBody {
        sync_status: sync_status(&row, Utc::now()),
        id: row.project_id.clone(),
        project_id: row.project_id,
        enabled: row.enabled,
        last_sync_at: row.last_sync_at,
        next_sync_at: row.next_sync_at,
        last_error: row.last_error,
        last_error_at: row.last_error_at,
    })
}

pub async fn delete(pool: &PgPool, scope: &Scope, id: &str) -> Result<DeletionBody> {
    reachable(pool, scope, id).await?;
    store::delete(pool, id).await?;
    Ok(DeletionBody { message: "Blob storage integration deleted successfully".to_owned() })
}

async fn reachable(pool: &PgPool, scope: &Scope, id: &str) -> Result<IntegrationRow> {
    if !scope.reaches(pool, id).await? {
        return Err(Error::NotFound(NOT_FOUND.into()));
    }
    store::find(pool, id).await?.ok_or_else(|| Error::NotFound(NOT_FOUND.into()))
}

pub async fn upsert(
    pool: &PgPool,
    deployment: &Deployment<'_>,
    scope: &Scope,
    request: UpsertRequest,
) -> Result<IntegrationBody> {
    if !scope.reaches(pool, &request.project_id).await? {
        return Err(Error::NotFound(PROJECT_NOT_FOUND.into()));
    }
    let existing = store::find(pool, &request.project_id).await?;
    let checked = validate(&request, existing.as_ref(), deployment.write_mode, Utc::now())?;
    let encrypted_secret = match (&request.secret_access_key, deployment.encryption_key) {
        (Some(secret), Some(key)) => Some(key.encrypt(secret)),
        (Some(_), None) => {
            return Err(Error::bad_request(
                "Storing a secretAccessKey needs ENCRYPTION_KEY: set it (64 hex characters, \
                 e.g. `openssl rand -hex 32`) on web and worker",
            ));
        }
        (None, _) => None,
    };
    // The secret the check (and later the worker) uses: the new one, else the stored one.
    let secret =
        match (&request.secret_access_key, existing.as_ref().and_then(|e| e.secret_access_key.as_ref())) {
            (Some(secret), _) => Some(secret.clone()),
            (None, Some(stored)) => match deployment.encryption_key {
                Some(key) => Some(
                    key.decrypt(stored).map_err(|e| Error::Internal(format!("the stored secret: {e}")))?,
                ),
                None => {
                    return Err(Error::bad_request(
                        "ENCRYPTION_KEY is not set: the stored secret cannot be used",
                    ));
                }
            },
            (None, None) => None,
        };
    let settings = TargetSettings {
        kind: request.kind,
        bucket: request.bucket_name.clone(),
        endpoint: checked.endpoint.clone(),
        region: checked.region.clone(),
        access_key_id: request.access_key_id.clone(),
        secret,
        force_path_style: request.force_path_style,
    };
    let bucket = target::connect(&settings, deployment.policy)?;
    target::check(bucket.as_ref(), &checked.prefix).await?;
    let row = store::upsert(
        pool,
        Upsert {
            project_id: &request.project_id,
            kind: request.kind.as_str(),
            bucket_name: &request.bucket_name,
            endpoint: checked.endpoint.as_deref(),
            region: &checked.region,
            access_key_id: request.access_key_id.as_deref(),
            encrypted_secret,
            prefix: &checked.prefix,
            export_frequency: request.export_frequency.as_str(),
            enabled: request.enabled,
            force_path_style: request.force_path_style,
            file_type: request.file_type.as_str(),
            export_mode: request.export_mode.as_str(),
            export_start_date: request.export_start_date,
            compressed: request.compressed.unwrap_or(true),
            export_source: checked.source.as_str(),
            export_field_groups: checked.groups.iter().map(|g| g.as_str().to_owned()).collect(),
            start_at: checked.start_at,
        },
    )
    .await?;
    body(row)
}

/// A request's values after the rules.
#[derive(Debug)]
struct Checked {
    region: String,
    endpoint: Option<String>,
    prefix: String,
    source: Source,
    groups: Vec<FieldGroup>,
    start_at: DateTime<Utc>,
}

fn validate(
    request: &UpsertRequest,
    existing: Option<&IntegrationRow>,
    mode: WriteMode,
    now: DateTime<Utc>,
) -> Result<Checked> {
    let bad = |m: &str| Err(Error::bad_request(m));
    if request.kind == TargetType::GoogleCloudStorage {
        return bad(
            "type GOOGLE_CLOUD_STORAGE is not supported here; use S3, S3_COMPATIBLE or AZURE_BLOB_STORAGE",
        );
    }
    let bucket = request.bucket_name.trim();
    if bucket.is_empty() {
        return bad("bucketName must not be empty");
    }
    if request.kind == TargetType::AzureBlobStorage && !azure_container_name(bucket) {
        return bad(
            "bucketName must be a valid Azure container name: 3-63 lowercase letters, numbers and hyphens, \
             starting and ending with a letter or number, no consecutive hyphens",
        );
    }
    let region = request.region.trim().to_owned();
    let region_ok = (1..=63).contains(&region.len())
        && region.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !region.starts_with('-')
        && !region.ends_with('-');
    if !region_ok {
        return bad("region must be 1-63 letters, numbers or hyphens, not starting or ending with a hyphen");
    }
    let endpoint = request.endpoint.as_deref().map(str::trim).filter(|e| !e.is_empty()).map(str::to_owned);
    match &endpoint {
        None if request.kind == TargetType::S3Compatible => {
            return bad("endpoint is required for S3_COMPATIBLE");
        }
        Some(e) if !(e.starts_with("http://") || e.starts_with("https://")) => {
            return bad("endpoint must be an http:// or https:// URL");
        }
        _ => {}
    }
    let prefix = request.prefix.clone().unwrap_or_default();
    if !prefix.is_empty() && !prefix.ends_with('/') {
        return bad("prefix must end with a forward slash (/)");
    }
    if prefix.starts_with('/') || prefix.contains("//") || prefix.split('/').any(|s| s == "." || s == "..") {
        return bad("prefix must be a relative path without empty, '.' or '..' segments");
    }
    let needs_credentials = request.kind != TargetType::S3;
    let has_secret =
        request.secret_access_key.is_some() || existing.is_some_and(|e| e.secret_access_key.is_some());
    if needs_credentials && (request.access_key_id.as_deref().unwrap_or("").is_empty() || !has_secret) {
        return bad("accessKeyId and secretAccessKey are required for S3_COMPATIBLE and AZURE_BLOB_STORAGE");
    }
    if request.export_mode == Mode::FromCustomDate {
        match request.export_start_date {
            None => return bad("exportStartDate is required when exportMode is FROM_CUSTOM_DATE"),
            Some(at) if at > now + Duration::hours(27) => {
                return bad("exportStartDate must not be in the future");
            }
            _ => {}
        }
    }
    if request.export_field_groups.is_some() && request.export_source.is_none() {
        return bad("exportFieldGroups requires exportSource in the same request");
    }
    let source = match (request.export_source, existing) {
        (Some(source), _) => source,
        (None, Some(row)) => Source::parse(&row.export_source).unwrap_or(Source::default_for(mode)),
        (None, None) => Source::default_for(mode),
    };
    if !source.served_in(mode) {
        return Err(Error::bad_request(unserved_message(source, mode)));
    }
    let groups = match (&request.export_field_groups, existing) {
        (Some(groups), _) => {
            if !groups.contains(&FieldGroup::Core) {
                return bad("exportFieldGroups must include core");
            }
            let mut unique = Vec::new();
            for group in FieldGroup::ALL {
                if groups.contains(group) {
                    unique.push(*group);
                }
            }
            unique
        }
        (None, Some(row)) => row.export_field_groups.iter().filter_map(|g| FieldGroup::parse(g)).collect(),
        (None, None) => FieldGroup::ALL.to_vec(),
    };
    // FROM_TODAY keeps the day it was first set, so an unrelated update does not restart it.
    let start_at = match (request.export_mode, existing) {
        (Mode::FromToday, Some(row)) if row.export_mode == Mode::FromToday.as_str() => row.start_at,
        (mode, _) => schedule::start_at(mode, request.export_start_date, now),
    };
    Ok(Checked { region, endpoint, prefix, source, groups, start_at })
}

fn azure_container_name(name: &str) -> bool {
    (3..=63).contains(&name.len())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// `disabled`, `running` (a live lease), `error`, `queued` (due), `idle` (never exported), else
/// `up_to_date`.
pub fn sync_status(row: &IntegrationRow, now: DateTime<Utc>) -> SyncStatus {
    if !row.enabled {
        SyncStatus::Disabled
    } else if row.lease_until.is_some_and(|until| until > now) {
        SyncStatus::Running
    } else if row.last_error.is_some() {
        SyncStatus::Error
    } else if row.next_sync_at.is_some_and(|at| at <= now) {
        SyncStatus::Queued
    } else if row.last_sync_at.is_none() {
        SyncStatus::Idle
    } else {
        SyncStatus::UpToDate
    }
}

fn body(row: IntegrationRow) -> Result<IntegrationBody> {
    let unknown = |what: &str, value: &str| Error::Internal(format!("stored {what} {value:?} is unknown"));
    Ok(IntegrationBody {
        id: row.project_id.clone(),
        kind: TargetType::parse(&row.kind).ok_or_else(|| unknown("type", &row.kind))?,
        export_frequency: Frequency::parse(&row.export_frequency)
            .ok_or_else(|| unknown("frequency", &row.export_frequency))?,
        file_type: FileType::parse(&row.file_type).ok_or_else(|| unknown("file type", &row.file_type))?,
        export_mode: Mode::parse(&row.export_mode).ok_or_else(|| unknown("mode", &row.export_mode))?,
        export_source: Source::parse(&row.export_source)
            .ok_or_else(|| unknown("source", &row.export_source))?,
        export_field_groups: row.export_field_groups.iter().filter_map(|g| FieldGroup::parse(g)).collect(),
        project_id: row.project_id,
        bucket_name: row.bucket_name,
        endpoint: row.endpoint,
        region: row.region,
        access_key_id: row.access_key_id,
        prefix: row.prefix,
        enabled: row.enabled,
        force_path_style: row.force_path_style,
        export_start_date: row.export_start_date,
        compressed: row.compressed,
        next_sync_at: row.next_sync_at,
        last_sync_at: row.last_sync_at,
        last_error: row.last_error,
        last_error_at: row.last_error_at,
        created_at: row.created_at,
        updated_at: row.updated_at,
    })
}
