// Each test file uses a part of it.
#![allow(dead_code)]

//! A project with rows in both data models, an integration pointing at the test stack's bucket,
//! and readers of what lands there.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::Arc;

use domain::config::WriteMode;
use domain::outbound::OutboundPolicy;
use domain::secrets::EncryptionKey;
use exports::api::{self, Deployment, Scope};
use exports::job::{CrashAt, ScheduledExports};
use exports::model::{FileType, IntegrationBody, Source, StatusBody};
use futures::TryStreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use serde_json::{Value, json};
use sqlx::PgPool;
use storage::clickhouse::ClickHouse;
use test_support::{TestClickHouse, TestPostgres, stack_var};

pub struct Env {
    _pg: TestPostgres,
    _ch: TestClickHouse,
    pub pool: PgPool,
    pub ch: ClickHouse,
    pub project: String,
    pub key: EncryptionKey,
    pub secret: String,
    /// The stack's bucket listens on loopback: allowed, as an operator would with
    /// `LANGFUSE_OUTBOUND_ALLOWED_HOSTS=127.0.0.1`.
    pub policy: OutboundPolicy,
    bucket: Arc<dyn ObjectStore>,
    root: String,
}

pub type Table = Vec<BTreeMap<String, Option<String>>>;

impl Env {
    pub async fn new() -> Self {
        // The process's TLS provider, as the binaries install it (reqwest is built without one).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let (pg, chdb) = (TestPostgres::create().await, TestClickHouse::create().await);
        let pool = pg.pool().await;
        let ch = ClickHouse::connect(&chdb.settings());
        storage::schema::migrate(&pool, &ch).await.unwrap();
        let project = format!("p-{}", uuid::Uuid::new_v4().simple());
        sqlx::query("INSERT INTO organizations (id, name) VALUES ('o1', 'Org')")
            .execute(&pool)
            .await
            .unwrap();
        sqlx::query("INSERT INTO projects (id, org_id, name) VALUES ($1, 'o1', 'P')")
            .bind(&project)
            .execute(&pool)
            .await
            .unwrap();
        seed(&ch, &project).await;
        let endpoint = stack_var("LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT");
        let bucket = AmazonS3Builder::new()
            .with_bucket_name(stack_var("LANGFUSE_S3_EVENT_UPLOAD_BUCKET"))
            .with_region(stack_var("LANGFUSE_S3_EVENT_UPLOAD_REGION"))
            .with_endpoint(&endpoint)
            .with_allow_http(true)
            .with_access_key_id(stack_var("LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID"))
            .with_secret_access_key(stack_var("LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY"))
            .build()
            .unwrap();
        Self {
            _pg: pg,
            _ch: chdb,
            pool,
            ch,
            project,
            key: EncryptionKey::parse(&"ab".repeat(32)).unwrap(),
            secret: stack_var("LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY"),
            policy: OutboundPolicy::parse("127.0.0.1,::1,localhost").unwrap(),
            bucket: Arc::new(bucket),
            root: format!("export-tests/{}/", uuid::Uuid::new_v4().simple()),
        }
    }

    pub fn prefix(&self, name: &str) -> String {
        format!("{}{name}/", self.root)
    }

    pub fn scope(&self) -> Scope {
        Scope { org_id: "o1".into(), project_id: None }
    }

    pub fn deployment(&self, write_mode: WriteMode) -> Deployment<'_> {
        Deployment { encryption_key: Some(&self.key), write_mode, policy: &self.policy }
    }

    /// Saves `body` (a [`request`], maybe changed) as the project's integration under `write_mode`.
    pub async fn save(&self, write_mode: WriteMode, body: Value) -> exports::Result<IntegrationBody> {
        self.save_with(&self.deployment(write_mode), body).await
    }

    pub async fn save_with(
        &self,
        deployment: &Deployment<'_>,
        body: Value,
    ) -> exports::Result<IntegrationBody> {
        api::upsert(&self.pool, deployment, &self.scope(), serde_json::from_value(body).unwrap()).await
    }

    /// A fresh integration exporting `source` as `file_type` under its own prefix (any earlier
    /// one deleted), saved under `write_mode`; its prefix.
    pub async fn integration(
        &self,
        name: &str,
        file_type: FileType,
        source: Source,
        write_mode: WriteMode,
    ) -> String {
        let prefix = self.prefix(name);
        api::delete(&self.pool, &self.scope(), &self.project).await.ok();
        self.save(write_mode, request(self, &prefix, file_type, source)).await.unwrap();
        prefix
    }

    pub async fn status(&self) -> StatusBody {
        api::status(&self.pool, &self.scope(), &self.project).await.unwrap()
    }

    /// As if the retry time after a failure had come.
    pub async fn due_now(&self) {
        sqlx::query("UPDATE blob_storage_integrations SET next_sync_at = now()")
            .execute(&self.pool)
            .await
            .unwrap();
    }

    pub fn worker(&self, holder: &str, crash: Option<CrashAt>) -> ScheduledExports {
        let mut job = ScheduledExports::new(self.pool.clone(), self.ch.clone(), holder.into());
        job.encryption_key = Some(self.key.clone());
        job.write_mode = WriteMode::Dual;
        job.policy = self.policy.clone();
        job.chunk_rows = 2;
        job.crash = crash;
        job
    }

    /// As if the lease's time had run out (the crashed worker never renews it).
    pub async fn expire_lease(&self) {
        sqlx::query("UPDATE blob_storage_integrations SET lease_until = now() - interval '1 second'")
            .execute(&self.pool)
            .await
            .unwrap();
    }

    /// The names of every object under `prefix`, the connection check included.
    pub async fn names(&self, prefix: &str) -> Vec<String> {
        let listed: Vec<_> =
            self.bucket.list(Some(&Path::from(prefix.trim_end_matches('/')))).try_collect().await.unwrap();
        listed.into_iter().map(|meta| meta.location.to_string()).collect()
    }

    /// Every object under `prefix` and its bytes, by name (the connection check left out).
    pub async fn files(&self, prefix: &str) -> BTreeMap<String, Vec<u8>> {
        let listed: Vec<_> =
            self.bucket.list(Some(&Path::from(prefix.trim_end_matches('/')))).try_collect().await.unwrap();
        let mut files = BTreeMap::new();
        for meta in listed {
            let name = meta.location.to_string();
            if name.ends_with("loupe-connection-check.txt") {
                continue;
            }
            let bytes = self.bucket.get(&meta.location).await.unwrap().bytes().await.unwrap();
            files.insert(name, bytes.to_vec());
        }
        files
    }
}

/// An upsert body for the stack's bucket: hourly, from three hours ago.
pub fn request(env: &Env, prefix: &str, file_type: FileType, source: Source) -> Value {
    json!({
        "projectId": env.project,
        "type": "S3_COMPATIBLE",
        "bucketName": stack_var("LANGFUSE_S3_EVENT_UPLOAD_BUCKET"),
        "endpoint": stack_var("LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT"),
        "region": stack_var("LANGFUSE_S3_EVENT_UPLOAD_REGION"),
        "accessKeyId": stack_var("LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID"),
        "secretAccessKey": env.secret,
        "prefix": prefix,
        "exportFrequency": "hourly",
        "enabled": true,
        "forcePathStyle": true,
        "fileType": file_type.as_str(),
        "exportMode": "FROM_CUSTOM_DATE",
        "exportStartDate": (chrono::Utc::now() - chrono::Duration::hours(3)).to_rfc3339(),
        "exportSource": source.as_str(),
        "compressed": false,
    })
}

async fn run(ch: &ClickHouse, sql: &str, project: &str) {
    ch.client().query(&sql.replace("{p}", project)).execute().await.unwrap();
}

/// Three traces, five v3 observations, five events, two scores an hour ago, and one observation
/// three days ago (before every window of the tests).
async fn seed(ch: &ClickHouse, project: &str) {
    run(
        ch,
        "INSERT INTO traces (id, timestamp, name, project_id, tags, input, event_ts, is_deleted) VALUES \
         ('t1', now64(3) - INTERVAL 60 MINUTE, 'name, with \"quotes\"\\nand a line', '{p}', ['a','b'], '{\"q\":1}', now64(3), 0), \
         ('t2', now64(3) - INTERVAL 59 MINUTE, 'two', '{p}', [], '', now64(3), 0), \
         ('t3', now64(3) - INTERVAL 58 MINUTE, 'three', '{p}', [], '', now64(3), 0)",
        project,
    )
    .await;
    let mut observations = Vec::new();
    for i in 1..=5 {
        observations.push(format!(
            "('o{i}', 't1', '{{p}}', 'GENERATION', now64(3) - INTERVAL {} MINUTE, 'obs {i}', '{{\"n\":{i}}}', \
             map('k', 'v{i}'), now64(3), 0)",
            70 - i
        ));
    }
    observations.push(
        "('o-old', 't1', '{p}', 'SPAN', now64(3) - INTERVAL 3 DAY, 'old', '', map(), now64(3), 0)".to_owned(),
    );
    run(
        ch,
        &format!(
            "INSERT INTO observations (id, trace_id, project_id, type, start_time, name, input, metadata, event_ts, \
             is_deleted) VALUES {}",
            observations.join(", ")
        ),
        project,
    )
    .await;
    let mut events = Vec::new();
    for i in 1..=5 {
        events.push(format!(
            "('{{p}}', 't1', 'e{i}', '', now64(6) - INTERVAL {} MINUTE, 'event {i}', 'SPAN', 'trace one', now64(6), 0)",
            70 - i
        ));
    }
    run(
        ch,
        &format!(
            "INSERT INTO events_full (project_id, trace_id, span_id, parent_span_id, start_time, name, type, \
             trace_name, event_ts, is_deleted) VALUES {}",
            events.join(", ")
        ),
        project,
    )
    .await;
    run(
        ch,
        "INSERT INTO scores (id, timestamp, project_id, trace_id, name, value, source, data_type, event_ts, is_deleted) \
         VALUES ('s1', now64(3) - INTERVAL 50 MINUTE, '{p}', 't1', 'quality', 0.5, 'API', 'NUMERIC', now64(3), 0), \
         ('s2', now64(3) - INTERVAL 49 MINUTE, '{p}', 't2', 'quality', 1, 'API', 'NUMERIC', now64(3), 0)",
        project,
    )
    .await;
}

/// A file's rows as text cells (JSON values as JSON text, null as `None`), whatever its format.
pub fn parse(file_type: FileType, gzip: bool, bytes: &[u8]) -> Table {
    let bytes = if gzip {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes).read_to_end(&mut out).unwrap();
        out
    } else {
        bytes.to_vec()
    };
    let cell = |v: &Value| match v {
        Value::Null => None,
        Value::String(s) if s.is_empty() => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    };
    let of_object = |v: &Value| {
        v.as_object().unwrap().iter().map(|(k, v)| (k.clone(), cell(v))).collect::<BTreeMap<_, _>>()
    };
    match file_type {
        FileType::Json => {
            let rows: Vec<Value> = serde_json::from_slice(&bytes).unwrap();
            rows.iter().map(of_object).collect()
        }
        FileType::Jsonl => String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(|line| of_object(&serde_json::from_str(line).unwrap()))
            .collect(),
        FileType::Csv => {
            let records = csv_records(&String::from_utf8(bytes).unwrap());
            let header = records[0].clone();
            (records[1..].iter())
                .map(|r| {
                    header.iter().cloned().zip(r.iter().map(|c| (!c.is_empty()).then(|| c.clone()))).collect()
                })
                .collect()
        }
        FileType::Parquet => {
            use parquet::file::reader::{FileReader, SerializedFileReader};
            use parquet::record::Field;
            let reader = SerializedFileReader::new(bytes::Bytes::from(bytes)).unwrap();
            reader
                .get_row_iter(None)
                .unwrap()
                .map(|row| {
                    row.unwrap()
                        .get_column_iter()
                        .map(|(name, field)| {
                            let value = match field {
                                Field::Null => None,
                                Field::Str(s) if s.is_empty() => None,
                                Field::Str(s) => Some(s.clone()),
                                other => panic!("every column is text: {other:?}"),
                            };
                            (name.clone(), value)
                        })
                        .collect()
                })
                .collect()
        }
    }
}

/// RFC 4180 records (quoted fields, doubled quotes, line breaks inside quotes).
fn csv_records(text: &str) -> Vec<Vec<String>> {
    let (mut records, mut record, mut field) = (Vec::new(), Vec::new(), String::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => record.push(std::mem::take(&mut field)),
            ('\n', false) => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (c, _) => field.push(c),
        }
    }
    records
}

/// The values of `column`, sorted.
pub fn ids(rows: &Table, column: &str) -> Vec<String> {
    let mut ids: Vec<String> = rows.iter().filter_map(|r| r[column].clone()).collect();
    ids.sort();
    ids
}
