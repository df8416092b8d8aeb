//! One-off batch exports of a filtered Observations view (docs/exports.md): a request names the
//! view's `filter` JSON (as `GET /api/public/v2/observations` takes it), its search, field groups
//! and time range, and a file type; the worker streams the matching observations, chunk by chunk,
//! into one object in Loupe's own bucket (`exports/{projectId}/{id}.{ext}`), counting rows as it
//! goes; a finished export answers a presigned download link.

use std::time::Duration;

use chrono::{DateTime, Utc};
use domain::config::WriteMode;
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use storage::blob::BlobStore;
use storage::clickhouse::ClickHouse;
use tokio_util::sync::CancellationToken;
use utoipa::ToSchema;

use crate::format::FileWriter;
use crate::model::{FieldGroup, FileType};
use crate::source::{Part, Reader, ViewQuery};
use crate::store::LEASE_SECS;
use crate::target::Upload;
use crate::{Error, Result};

/// How long a download link works.
pub const LINK_LIFETIME: Duration = Duration::from_secs(3600);

/// `POST /api/public/batch-exports`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateBatchExport {
    #[serde(default)]
    pub name: Option<String>,
    pub file_type: FileType,
    /// gzip for JSON, CSV and JSONL (default true); Parquet compresses itself.
    #[serde(default)]
    pub compressed: Option<bool>,
    /// The Observations view's filter: the `filter` JSON of `GET /api/public/v2/observations`.
    #[serde(default)]
    #[schema(value_type = Option<Vec<Object>>)]
    pub filter: Option<serde_json::Value>,
    /// The view's search box (names, ids).
    #[serde(default)]
    pub search: Option<String>,
    /// Field groups (`core` always); all when absent.
    #[serde(default)]
    pub fields: Option<Vec<FieldGroup>>,
    #[serde(default)]
    pub from_start_time: Option<DateTime<Utc>>,
    #[serde(default)]
    pub to_start_time: Option<DateTime<Utc>>,
}

/// What is stored of a request (the `query` column).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Query {
    filter: Option<String>,
    search: Option<String>,
    fields: Vec<FieldGroup>,
    from_start_time: Option<DateTime<Utc>>,
    to_start_time: DateTime<Utc>,
}

/// A batch export and its progress.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchExportBody {
    pub id: String,
    pub project_id: String,
    pub name: String,
    /// `QUEUED`, `PROCESSING`, `COMPLETED` or `FAILED`.
    pub status: String,
    pub file_type: FileType,
    pub compressed: bool,
    pub rows_exported: i64,
    /// A presigned download link (one hour), once `COMPLETED`.
    pub url: Option<String>,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BatchExportsBody {
    pub data: Vec<BatchExportBody>,
}

#[derive(Debug, Clone, sqlx::FromRow)]
struct Row {
    id: String,
    project_id: String,
    name: String,
    status: String,
    file_type: String,
    compressed: bool,
    query: serde_json::Value,
    rows_exported: i64,
    object_key: Option<String>,
    error: Option<String>,
    created_at: DateTime<Utc>,
    finished_at: Option<DateTime<Utc>>,
}

const COLUMNS: &str = "id, project_id, name, status, file_type, compressed, query, rows_exported, object_key, error, created_at, finished_at";

pub async fn create(
    pool: &PgPool,
    clickhouse: &ClickHouse,
    mode: WriteMode,
    project_id: &str,
    request: CreateBatchExport,
) -> Result<BatchExportBody> {
    if !mode.writes_events_tables() {
        return Err(Error::bad_request(
            "Batch exports read the enriched observations (events), which write mode legacy does not populate",
        ));
    }
    let filter = match request.filter {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(text)) => Some(text),
        Some(value) => Some(value.to_string()),
    };
    if let Some(raw) = &filter {
        // The view's own read checks the filter (its columns, operators, values): one row asked.
        let params = reads::Params::from(vec![
            ("filter".to_owned(), raw.clone()),
            ("limit".to_owned(), "1".to_owned()),
        ]);
        reads::observations::list(clickhouse, project_id, &params).await?;
    }
    let fields = request.fields.unwrap_or_default();
    if !fields.is_empty() && !fields.contains(&FieldGroup::Core) {
        return Err(Error::bad_request("fields must include core"));
    }
    let now = Utc::now();
    let to = request.to_start_time.unwrap_or(now);
    if request.from_start_time.is_some_and(|from| from >= to) {
        return Err(Error::bad_request("fromStartTime must be before toStartTime"));
    }
    let query = Query {
        filter,
        search: request.search.filter(|s| !s.trim().is_empty()),
        fields,
        from_start_time: request.from_start_time,
        to_start_time: to,
    };
    let id = uuid::Uuid::new_v4().to_string();
    let name = request.name.unwrap_or_else(|| format!("Observations {}", now.format("%Y-%m-%d %H:%M")));
    let query = serde_json::to_value(&query).map_err(|e| Error::Internal(e.to_string()))?;
    let row: Row = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO batch_exports (id, project_id, name, file_type, compressed, query) \
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING {COLUMNS}"
    )))
    .bind(&id)
    .bind(project_id)
    .bind(&name)
    .bind(request.file_type.as_str())
    .bind(request.compressed.unwrap_or(true))
    .bind(query)
    .fetch_one(pool)
    .await?;
    body(row, None)
}

pub async fn get(pool: &PgPool, blobs: &BlobStore, project_id: &str, id: &str) -> Result<BatchExportBody> {
    let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM batch_exports WHERE project_id = $1 AND id = $2"
    )))
    .bind(project_id)
    .bind(id)
    .fetch_optional(pool)
    .await?;
    let row = row.ok_or_else(|| Error::NotFound("Batch export not found".into()))?;
    body(row, Some(blobs))
}

pub async fn list(pool: &PgPool, blobs: &BlobStore, project_id: &str) -> Result<BatchExportsBody> {
    let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM batch_exports WHERE project_id = $1 ORDER BY created_at DESC LIMIT 100"
    )))
    .bind(project_id)
    .fetch_all(pool)
    .await?;
    Ok(BatchExportsBody { data: rows.into_iter().map(|r| body(r, Some(blobs))).collect::<Result<_>>()? })
}

fn body(row: Row, blobs: Option<&BlobStore>) -> Result<BatchExportBody> {
    let file_type = FileType::parse(&row.file_type)
        .ok_or_else(|| Error::Internal(format!("stored file type {:?}", row.file_type)))?;
    let url = match (&row.object_key, blobs.and_then(BlobStore::presigner)) {
        (Some(key), Some(presigner)) if row.status == "COMPLETED" => {
            Some(presigner.download_url(key, file_type.content_type(), LINK_LIFETIME, Utc::now()))
        }
        _ => None,
    };
    Ok(BatchExportBody {
        id: row.id,
        project_id: row.project_id,
        name: row.name,
        status: row.status,
        file_type,
        compressed: row.compressed,
        rows_exported: row.rows_exported,
        url,
        error: row.error,
        created_at: row.created_at,
        finished_at: row.finished_at,
    })
}

/// The worker's half: takes queued exports (or ones whose worker died) and writes them.
#[derive(Clone)]
pub struct BatchExports {
    pub postgres: PgPool,
    pub clickhouse: ClickHouse,
    pub blobs: BlobStore,
    pub holder: String,
    pub poll: Duration,
}

impl BatchExports {
    pub async fn run(self, shutdown: CancellationToken) {
        while !shutdown.is_cancelled() {
            match self.run_once().await {
                Ok(true) => continue,
                Ok(false) => {}
                Err(error) => tracing::warn!(%error, "batch export"),
            }
            tokio::select! {
                () = shutdown.cancelled() => {}
                () = tokio::time::sleep(self.poll) => {}
            }
        }
    }

    /// Exports one batch; `false` when none was waiting.
    pub async fn run_once(&self) -> Result<bool> {
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "UPDATE batch_exports SET status = 'PROCESSING', rows_exported = 0, lease_holder = $1, \
               lease_until = now() + make_interval(secs => $2), updated_at = now() \
             WHERE id = (SELECT id FROM batch_exports WHERE status IN ('QUEUED', 'PROCESSING') \
               AND (lease_until IS NULL OR lease_until < now() OR lease_holder = $1) ORDER BY created_at LIMIT 1 \
               FOR UPDATE SKIP LOCKED) RETURNING {COLUMNS}"
        )))
        .bind(&self.holder)
        .bind(LEASE_SECS as f64)
        .fetch_optional(&self.postgres)
        .await?;
        let Some(row) = row else { return Ok(false) };
        match self.export(&row).await {
            Ok(key) => {
                sqlx::query(
                    "UPDATE batch_exports SET status = 'COMPLETED', object_key = $2, finished_at = now(), \
                       updated_at = now(), lease_holder = NULL, lease_until = NULL WHERE id = $1",
                )
                .bind(&row.id)
                .bind(key)
                .execute(&self.postgres)
                .await?;
            }
            Err(error) => {
                tracing::warn!(id = %row.id, %error, "batch export failed");
                sqlx::query(
                    "UPDATE batch_exports SET status = 'FAILED', error = $2, finished_at = now(), \
                       updated_at = now(), lease_holder = NULL, lease_until = NULL WHERE id = $1",
                )
                .bind(&row.id)
                .bind(error.to_string())
                .execute(&self.postgres)
                .await?;
            }
        }
        Ok(true)
    }

    async fn export(&self, row: &Row) -> Result<String> {
        let query: Query = serde_json::from_value(row.query.clone())
            .map_err(|e| Error::Internal(format!("stored query: {e}")))?;
        let file_type = FileType::parse(&row.file_type)
            .ok_or_else(|| Error::Internal(format!("stored file type {:?}", row.file_type)))?;
        let gzip = file_type.gzipped(row.compressed);
        let key = format!(
            "exports/{}/{}.{}{}",
            row.project_id,
            row.id,
            file_type.extension(),
            if gzip { ".gz" } else { "" }
        );
        let from = query.from_start_time.unwrap_or(DateTime::UNIX_EPOCH);
        let part = Part::ObservationsV2;
        let mut reader =
            Reader::new(&self.clickhouse, &row.project_id, part, (from, query.to_start_time), &query.fields);
        reader.view = ViewQuery { filter: query.filter.clone(), search: query.search.clone() };
        let mut upload = Upload::start(self.blobs.store().as_ref(), &key, file_type.content_type()).await?;
        let written: Result<()> = async {
            let mut writer = FileWriter::new(file_type, gzip, part.columns(&query.fields))?;
            while let Some(rows) = reader.next_chunk().await? {
                writer.write_rows(&rows)?;
                upload.write(&writer.take_bytes()).await?;
                // Progress, and the lease renewed with it.
                sqlx::query(
                    "UPDATE batch_exports SET rows_exported = $2, updated_at = now(), \
                       lease_until = now() + make_interval(secs => $3) WHERE id = $1",
                )
                .bind(&row.id)
                .bind(writer.rows() as i64)
                .bind(LEASE_SECS as f64)
                .execute(&self.postgres)
                .await?;
            }
            upload.write(&writer.finish()?).await
        }
        .await;
        match written {
            Ok(()) => {
                upload.finish().await?;
                Ok(key)
            }
            Err(error) => {
                upload.abort().await;
                Err(error)
            }
        }
    }
}
