//! Typed settings of each subsystem, each read from [`Vars`] with its problems recorded.
//! Literal defaults are not repeated here: the catalogue's are the lowest layer, so such a setting
//! is never unset. Secrets are `SecretString`s so they never reach a log through `Debug`.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::outbound::{self, OutboundPolicy};
use crate::secrets::{ENCRYPTION_KEY, EncryptionKey};
use secrecy::{ExposeSecret, SecretString};

use super::Role;
use super::vars::{Problems, Vars};

#[derive(Debug, Clone)]
pub struct ServerSettings {
    pub listen_address: IpAddr,
    pub port: u16,
    pub otel_grpc_port: u16,
    /// `GET /metrics` is served and metrics are recorded (docs/metrics.md).
    pub metrics_enabled: bool,
    /// What web allows a client, on HTTP and gRPC (docs/limits.md).
    pub limits: HttpLimits,
    /// The built web UI web serves at `/` (`LANGFUSE_UI_DIR`); whether it exists is web's concern
    /// at startup, since a missing one is allowed.
    pub ui_dir: PathBuf,
}

/// web's bounds on slow, endless and too many clients (docs/limits.md, "Web server limits").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    pub header_read_timeout: Duration,
    pub body_read_timeout: Duration,
    pub max_concurrent_requests: usize,
    /// How long a request over the limit waits for a slot before it is refused.
    pub concurrency_wait: Duration,
}

impl HttpLimits {
    /// Far above any one instance's sensible load, and well within what a semaphore can count.
    pub const MAX_CONCURRENT_REQUESTS_CEILING: u64 = 1_000_000;

    fn read(vars: &Vars, problems: &mut Problems) -> Option<Self> {
        let header = vars.positive_integer("LANGFUSE_HTTP_HEADER_READ_TIMEOUT_MS", problems);
        let body = vars.positive_integer("LANGFUSE_HTTP_BODY_READ_TIMEOUT_MS", problems);
        let max = vars.positive_integer("LANGFUSE_HTTP_MAX_CONCURRENT_REQUESTS", problems);
        let wait = vars.non_negative_integer("LANGFUSE_HTTP_CONCURRENCY_WAIT_MS", problems);
        if let Some(max) = max
            && max > Self::MAX_CONCURRENT_REQUESTS_CEILING
        {
            problems.push(
                "LANGFUSE_HTTP_MAX_CONCURRENT_REQUESTS",
                format!("must be at most {}, got {max}", Self::MAX_CONCURRENT_REQUESTS_CEILING),
            );
            return None;
        }
        Some(Self {
            header_read_timeout: Duration::from_millis(header?),
            body_read_timeout: Duration::from_millis(body?),
            max_concurrent_requests: usize::try_from(max?).unwrap_or(usize::MAX),
            concurrency_wait: Duration::from_millis(wait?),
        })
    }
}

impl ServerSettings {
    pub(super) fn read(role: Role, vars: &Vars, problems: &mut Problems) -> Option<Self> {
        // PORT's default depends on the role, so it is resolved here rather than layered.
        let default_port = match role {
            Role::Web => 3000,
            Role::Worker => 3030,
        };
        let port = vars.optional_port("PORT", problems).map(|p| p.unwrap_or(default_port));
        let otel_grpc_port = vars.port("LANGFUSE_OTEL_GRPC_PORT", problems);
        let metrics_enabled = vars.bool("LANGFUSE_METRICS_ENABLED", problems);
        let raw_address = vars.string("LANGFUSE_LISTEN_ADDRESS");
        let listen_address = match raw_address.parse::<IpAddr>() {
            Ok(address) => Some(address),
            Err(_) => {
                problems
                    .push("LANGFUSE_LISTEN_ADDRESS", format!("must be an IP address, got {raw_address:?}"));
                None
            }
        };
        let limits = HttpLimits::read(vars, problems);
        let ui_dir = PathBuf::from(vars.string("LANGFUSE_UI_DIR"));
        Some(Self {
            listen_address: listen_address?,
            port: port?,
            otel_grpc_port: otel_grpc_port?,
            metrics_enabled: metrics_enabled?,
            limits: limits?,
            ui_dir,
        })
    }
}

#[derive(Debug, Clone)]
pub struct PostgresSettings {
    pub url: SecretString,
}

impl PostgresSettings {
    pub(super) fn read(vars: &Vars, problems: &mut Problems) -> Option<Self> {
        let url = vars.required("DATABASE_URL", problems)?;
        let scheme_ok = url::Url::parse(&url).is_ok_and(|u| matches!(u.scheme(), "postgres" | "postgresql"));
        if !scheme_ok {
            problems.push("DATABASE_URL", "must be a postgres:// or postgresql:// URL");
            return None;
        }
        Some(Self { url: url.into() })
    }
}

#[derive(Debug, Clone)]
pub struct ClickHouseSettings {
    pub url: String,
    pub user: String,
    pub password: SecretString,
    pub database: String,
    /// `Some(name)` when `CLICKHOUSE_CLUSTER_ENABLED=true`: DDL gets `ON CLUSTER name` and
    /// `Replicated*` engines.
    pub cluster: Option<String>,
}

impl ClickHouseSettings {
    pub(super) fn read(vars: &Vars, problems: &mut Problems) -> Option<Self> {
        let url = vars.required("CLICKHOUSE_URL", problems);
        let cluster_enabled = vars.bool("CLICKHOUSE_CLUSTER_ENABLED", problems);
        let url = url?;
        if !url::Url::parse(&url).is_ok_and(|u| matches!(u.scheme(), "http" | "https")) {
            problems.push(
                "CLICKHOUSE_URL",
                "must be an http:// or https:// URL of the ClickHouse HTTP interface",
            );
            return None;
        }
        let database = vars.string("CLICKHOUSE_DB");
        if !is_identifier(&database) {
            problems.push(
                "CLICKHOUSE_DB",
                format!("must be a plain identifier (letters, digits, _), got {database:?}"),
            );
            return None;
        }
        let cluster_name = vars.string("CLICKHOUSE_CLUSTER_NAME");
        if !is_identifier(&cluster_name) {
            problems
                .push("CLICKHOUSE_CLUSTER_NAME", format!("must be a plain identifier, got {cluster_name:?}"));
            return None;
        }
        Some(Self {
            url,
            user: vars.string("CLICKHOUSE_USER"),
            password: vars.string("CLICKHOUSE_PASSWORD").into(),
            database,
            cluster: cluster_enabled?.then_some(cluster_name),
        })
    }
}

fn is_identifier(value: &str) -> bool {
    !value.is_empty() && value.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[derive(Debug, Clone)]
pub struct RedisSettings {
    pub url: SecretString,
    /// Prepended to every key.
    pub key_prefix: String,
}

impl RedisSettings {
    pub(super) fn read(vars: &Vars, problems: &mut Problems) -> Option<Self> {
        let key_prefix = vars.string("LANGFUSE_REDIS_KEY_PREFIX");
        let url = Self::url(vars, problems)?;
        Some(Self { url, key_prefix })
    }

    fn url(vars: &Vars, problems: &mut Problems) -> Option<SecretString> {
        if let Some(url) = vars.get("REDIS_CONNECTION_STRING") {
            if !url::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "redis" | "rediss")) {
                problems.push("REDIS_CONNECTION_STRING", "must be a redis:// or rediss:// URL");
                return None;
            }
            return Some(url.to_owned().into());
        }
        let port = vars.port("REDIS_PORT", problems);
        let Some(host) = vars.get("REDIS_HOST") else {
            problems.push(
                "REDIS_CONNECTION_STRING",
                "is required (or set REDIS_HOST, REDIS_PORT and REDIS_AUTH)",
            );
            return None;
        };
        let auth = vars.get("REDIS_AUTH").map(|a| format!(":{a}@")).unwrap_or_default();
        Some(format!("redis://{auth}{host}:{}", port?).into())
    }
}

/// Where web stores raw ingested payloads before acknowledging them, for the worker to read.
#[derive(Debug, Clone)]
pub enum BlobSettings {
    S3(S3Settings),
    /// A directory web and worker share; single-host deployments and local runs only.
    LocalDir(PathBuf),
}

#[derive(Debug, Clone)]
pub struct S3Settings {
    pub bucket: String,
    pub region: String,
    pub endpoint: Option<String>,
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<SecretString>,
    pub force_path_style: bool,
    pub prefix: String,
}

impl BlobSettings {
    pub(super) fn read(vars: &Vars, problems: &mut Problems) -> Option<Self> {
        const P: &str = "LANGFUSE_S3_EVENT_UPLOAD_";
        let force_path_style = vars.bool("LANGFUSE_S3_EVENT_UPLOAD_FORCE_PATH_STYLE", problems);
        if let Some(bucket) = vars.get("LANGFUSE_S3_EVENT_UPLOAD_BUCKET") {
            let endpoint = vars.get("LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT").map(str::to_owned);
            if let Some(endpoint) = &endpoint
                && !url::Url::parse(endpoint).is_ok_and(|u| matches!(u.scheme(), "http" | "https"))
            {
                problems.push(format!("{P}ENDPOINT"), "must be an http:// or https:// URL");
                return None;
            }
            let access_key_id = vars.get("LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID").map(str::to_owned);
            let secret = vars
                .get("LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY")
                .map(|s| SecretString::from(s.to_owned()));
            if access_key_id.is_some() != secret.is_some() {
                problems.combination(
                    &["LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID", "LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY"],
                    "set both or neither",
                );
                return None;
            }
            return Some(Self::S3(S3Settings {
                bucket: bucket.to_owned(),
                region: vars.string("LANGFUSE_S3_EVENT_UPLOAD_REGION"),
                endpoint,
                access_key_id,
                secret_access_key: secret,
                force_path_style: force_path_style?,
                prefix: vars.string("LANGFUSE_S3_EVENT_UPLOAD_PREFIX"),
            }));
        }
        match vars.get("LANGFUSE_EVENT_UPLOAD_LOCAL_DIR") {
            Some(dir) => Some(Self::LocalDir(PathBuf::from(dir))),
            None => {
                problems.push(
                    "LANGFUSE_S3_EVENT_UPLOAD_BUCKET",
                    "is required: ingestion stores every payload before acknowledging it \
                     (or set LANGFUSE_EVENT_UPLOAD_LOCAL_DIR for a single-host deployment)",
                );
                None
            }
        }
    }
}

/// How ingestion accepts, queues and batches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestionSettings {
    pub max_body_bytes: usize,
    /// The most bytes of resource attributes one OTLP export may have copied into its spans.
    pub otel_resource_attributes_max_copied_bytes: usize,
    pub queue_max_depth: u64,
    /// Blob writes of accepted payloads in flight at once (`ingestion::accept`), in web and the worker.
    pub blob_writers: usize,
    /// Which accepted payloads travel in their queue entry instead of through blob storage.
    pub queue_inline: QueueInline,
    pub batch_max_rows: usize,
    /// Payload bytes collected before an insert is sent, whatever the row count.
    pub batch_max_bytes: usize,
    pub flush_interval: std::time::Duration,
    pub claim_idle: std::time::Duration,
    /// Deliveries of one payload before it is dead-lettered instead of processed again.
    pub max_attempts: u32,
    /// Evaluator executions running at once per project, across workers (docs/evaluators.md).
    pub eval_max_concurrency_per_project: usize,
    /// How long one judge call may take (docs/evaluators.md).
    pub eval_llm_timeout: std::time::Duration,
}

impl IngestionSettings {
    pub(super) fn read(vars: &Vars, problems: &mut Problems) -> Option<Self> {
        let max_body_bytes = vars.positive_integer("LANGFUSE_INGESTION_MAX_BODY_BYTES", problems);
        let resource_copied =
            vars.positive_integer("LANGFUSE_OTEL_RESOURCE_ATTRIBUTES_MAX_COPIED_BYTES", problems);
        let queue_max_depth = vars.positive_integer("LANGFUSE_INGESTION_QUEUE_MAX_DEPTH", problems);
        let blob_writers = vars.positive_integer("LANGFUSE_INGESTION_BLOB_WRITERS", problems);
        let inline_max = vars.non_negative_integer("LANGFUSE_INGESTION_QUEUE_INLINE_MAX_BYTES", problems);
        let inline_total = vars.positive_integer("LANGFUSE_INGESTION_QUEUE_INLINE_TOTAL_BYTES", problems);
        let batch_max_rows = vars.positive_integer("LANGFUSE_INGESTION_BATCH_MAX_ROWS", problems);
        let flush_ms = vars.positive_integer("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", problems);
        let claim_idle = vars.positive_integer("LANGFUSE_INGESTION_CLAIM_IDLE_SECONDS", problems);
        let batch_max_bytes = vars.positive_integer("LANGFUSE_INGESTION_BATCH_MAX_BYTES", problems);
        let max_attempts = vars.positive_integer("LANGFUSE_INGESTION_MAX_ATTEMPTS", problems);
        let eval_cap = vars.positive_integer("LANGFUSE_EVAL_MAX_CONCURRENCY_PER_PROJECT", problems);
        let eval_timeout = vars.positive_integer("LANGFUSE_EVAL_LLM_TIMEOUT_SECONDS", problems);
        Some(Self {
            eval_llm_timeout: std::time::Duration::from_secs(eval_timeout?),
            eval_max_concurrency_per_project: usize::try_from(eval_cap?).unwrap_or(usize::MAX),
            max_body_bytes: usize::try_from(max_body_bytes?).unwrap_or(usize::MAX),
            otel_resource_attributes_max_copied_bytes: usize::try_from(resource_copied?)
                .unwrap_or(usize::MAX),
            queue_max_depth: queue_max_depth?,
            blob_writers: usize::try_from(blob_writers?).unwrap_or(usize::MAX),
            queue_inline: QueueInline {
                max_payload_bytes: usize::try_from(inline_max?).unwrap_or(usize::MAX),
                total_bytes: inline_total?,
            },
            batch_max_rows: usize::try_from(batch_max_rows?).unwrap_or(usize::MAX),
            batch_max_bytes: usize::try_from(batch_max_bytes?).unwrap_or(usize::MAX),
            max_attempts: u32::try_from(max_attempts?).unwrap_or(u32::MAX),
            flush_interval: std::time::Duration::from_millis(flush_ms?),
            claim_idle: std::time::Duration::from_secs(claim_idle?),
        })
    }
}

/// Which accepted payloads the queue entry carries itself, so acknowledging them waits for Redis
/// alone (`LANGFUSE_INGESTION_QUEUE_INLINE_*`); the others are written to blob storage first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueInline {
    /// The largest payload an entry carries; 0: every payload goes through blob storage.
    pub max_payload_bytes: usize,
    /// The most payload bytes all queued entries may carry at once; past it, blob storage.
    pub total_bytes: u64,
}

/// Media attachments (`/api/public/media`): stored in the blob store under `media/`, uploaded and
/// downloaded through presigned S3 URLs or, with a local directory, through web itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaSettings {
    pub max_content_length: u64,
    /// How long upload and download URLs stay valid.
    pub url_expiry: std::time::Duration,
}

impl MediaSettings {
    pub(super) fn read(vars: &Vars, problems: &mut Problems) -> Option<Self> {
        let max = vars.positive_integer("LANGFUSE_S3_MEDIA_MAX_CONTENT_LENGTH", problems);
        let expiry = vars.positive_integer("LANGFUSE_S3_MEDIA_DOWNLOAD_URL_EXPIRY_SECONDS", problems);
        Some(Self {
            max_content_length: max?,
            url_expiry: std::time::Duration::from_secs(expiry?.min(604_800)),
        })
    }
}

/// A default organization, project and API key created at startup (`LANGFUSE_INIT_*`).
#[derive(Debug, Clone)]
pub struct BootstrapSettings {
    pub org_id: String,
    pub org_name: String,
    pub project_id: String,
    pub project_name: String,
    pub public_key: String,
    pub secret_key: SecretString,
}

impl BootstrapSettings {
    /// `Some(None)` when no bootstrap is configured.
    pub(super) fn read(vars: &Vars, problems: &mut Problems) -> Option<Option<Self>> {
        const REQUIRED: [&str; 4] = [
            "LANGFUSE_INIT_ORG_ID",
            "LANGFUSE_INIT_PROJECT_ID",
            "LANGFUSE_INIT_PROJECT_PUBLIC_KEY",
            "LANGFUSE_INIT_PROJECT_SECRET_KEY",
        ];
        const ALL: [&str; 6] = [
            "LANGFUSE_INIT_ORG_ID",
            "LANGFUSE_INIT_ORG_NAME",
            "LANGFUSE_INIT_PROJECT_ID",
            "LANGFUSE_INIT_PROJECT_NAME",
            "LANGFUSE_INIT_PROJECT_PUBLIC_KEY",
            "LANGFUSE_INIT_PROJECT_SECRET_KEY",
        ];
        if ALL.iter().all(|name| vars.get(name).is_none()) {
            return Some(None);
        }
        let missing: Vec<&str> = REQUIRED.iter().copied().filter(|n| vars.get(n).is_none()).collect();
        if !missing.is_empty() {
            problems.combination(&missing, "headless bootstrap needs the org id, project id and both keys");
            return None;
        }
        let value = |name: &str| vars.get(name).unwrap_or_default().to_owned();
        let (public_key, secret_key) =
            (value("LANGFUSE_INIT_PROJECT_PUBLIC_KEY"), value("LANGFUSE_INIT_PROJECT_SECRET_KEY"));
        let before = problems.len();
        if !public_key.starts_with("pk-lf-") {
            problems.push("LANGFUSE_INIT_PROJECT_PUBLIC_KEY", "must start with pk-lf-");
        }
        if !secret_key.starts_with("sk-lf-") {
            problems.push("LANGFUSE_INIT_PROJECT_SECRET_KEY", "must start with sk-lf-");
        }
        if problems.len() > before {
            return None;
        }
        let (org_id, project_id) = (value("LANGFUSE_INIT_ORG_ID"), value("LANGFUSE_INIT_PROJECT_ID"));
        Some(Some(Self {
            org_name: vars.get("LANGFUSE_INIT_ORG_NAME").unwrap_or(&org_id).to_owned(),
            project_name: vars.get("LANGFUSE_INIT_PROJECT_NAME").unwrap_or(&project_id).to_owned(),
            org_id,
            project_id,
            public_key,
            secret_key: secret_key.into(),
        }))
    }
}

#[derive(Debug, Clone)]
pub struct AuthSettings {
    pub salt: SecretString,
    pub admin_api_key: Option<SecretString>,
    /// `ENCRYPTION_KEY`: encrypts the secrets Loupe stores to use later (LLM connections, export
    /// targets). Optional until such a secret exists; each feature that stores one refuses to
    /// without it, and startup stops when stored secrets exist but the key is unset.
    pub encryption_key: Option<EncryptionKey>,
    /// `LANGFUSE_OUTBOUND_ALLOWED_HOSTS`: the non-public destinations user-configured URLs may
    /// reach (webhooks, LLM providers, export targets); public ones always may.
    pub outbound: OutboundPolicy,
}

/// `SALT` values anyone can know: unset, and the placeholder of deploy/compose.yaml.
const PUBLIC_SALTS: &[&str] = &["", "change-me-salt"];

impl AuthSettings {
    pub(super) fn read(vars: &Vars, problems: &mut Problems) -> Self {
        let encryption_key = vars.get(ENCRYPTION_KEY).filter(|k| !k.trim().is_empty()).and_then(|text| {
            EncryptionKey::parse(text).map_err(|message| problems.push(ENCRYPTION_KEY, message)).ok()
        });
        let outbound = OutboundPolicy::parse(vars.get(outbound::ALLOWED_HOSTS).unwrap_or_default())
            .map_err(|message| problems.push(outbound::ALLOWED_HOSTS, message))
            .unwrap_or_default();
        Self {
            salt: vars.string("SALT").into(),
            admin_api_key: vars.get("ADMIN_API_KEY").map(|k| SecretString::from(k.to_owned())),
            encryption_key,
            outbound,
        }
    }

    /// A startup warning when `SALT` is a public value. Not an error: keys hashed under it must
    /// keep working after an upgrade (a new `SALT` would invalidate them), and media URLs do not
    /// depend on it being secret (they are also keyed by a key the deployment generates once).
    pub fn salt_warning(&self) -> Option<String> {
        let salt = self.salt.expose_secret();
        PUBLIC_SALTS.contains(&salt).then(|| {
            let what = if salt.is_empty() { "unset" } else { "a published placeholder" };
            format!(
                "SALT is {what}: API-key hashes are salted with a public value (media URLs stay \
                 unforgeable: they are also signed with a key generated once and kept in PostgreSQL). \
                 On a new deployment, set SALT to a random value before creating keys; on one with \
                 keys, changing SALT invalidates them"
            )
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Clone)]
pub struct LogSettings {
    /// A `tracing` env-filter directive.
    pub filter: String,
    pub format: LogFormat,
}

impl LogSettings {
    pub(super) fn read(vars: &Vars, problems: &mut Problems) -> Option<Self> {
        let format = vars.choice(
            "LANGFUSE_LOG_FORMAT",
            &[LogFormat::Text, LogFormat::Json],
            |f| match f {
                LogFormat::Text => "text",
                LogFormat::Json => "json",
            },
            problems,
        )?;
        Some(Self { filter: vars.string("LANGFUSE_LOG_LEVEL"), format })
    }
}
