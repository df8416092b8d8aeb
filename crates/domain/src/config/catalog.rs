//! The catalogue of every setting Loupe reads: its name, default and meaning.
//!
//! It is the single source for four things: the known-name list used to catch misspelled
//! variables, the built-in defaults (the lowest configuration layer), the redacted startup log, and
//! the configuration table in the README (a test checks that the README lists every entry, so the
//! docs cannot drift).

/// One environment variable Loupe understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    pub name: &'static str,
    /// The default as an operator would read it; empty when the variable is optional with no value.
    pub default: &'static str,
    /// `default` is the value itself and forms the lowest configuration layer, so a file or the
    /// environment only overrides it. False when the default depends on the role or on other
    /// settings (the code that reads the setting resolves it) or when there is none.
    pub built_in: bool,
    pub meaning: &'static str,
    /// Secrets are never logged.
    pub secret: bool,
    pub group: Group,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Sources,
    Migration,
    MigrationJobs,
    Server,
    Infrastructure,
    Ingestion,
    Bootstrap,
    Security,
    Monitors,
    Logging,
}

/// A setting whose default, when not empty, is a literal value.
const fn s(group: Group, name: &'static str, default: &'static str, meaning: &'static str) -> Setting {
    Setting { name, default, built_in: !default.is_empty(), meaning, secret: false, group }
}

/// A setting whose default is described in words: it is resolved by the code that reads it.
const fn described(
    group: Group,
    name: &'static str,
    default: &'static str,
    meaning: &'static str,
) -> Setting {
    Setting { name, default, built_in: false, meaning, secret: false, group }
}

const fn secret(group: Group, name: &'static str, meaning: &'static str) -> Setting {
    Setting { name, default: "", built_in: false, meaning, secret: true, group }
}

use Group::*;

pub const CONFIG_FILE: &str = "LANGFUSE_CONFIG_FILE";
pub const WRITE_MODE: &str = "LANGFUSE_MIGRATION_V4_WRITE_MODE";
pub const NATIVE_OTEL_BEHAVIOUR: &str = "LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR";
pub const ALLOW_PREVIEW_OPT_IN: &str = "LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN";
pub const ENABLE_HISTORIC_BACKFILL: &str = "LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL";
pub const DROP_PID_TID_SORTING_TABLES: &str = "LANGFUSE_BACKGROUND_MIGRATION_V4_DROP_PID_TID_SORTING_TABLES";
pub const STUCK_THRESHOLD_MINUTES: &str = "LANGFUSE_EVENT_PROPAGATION_STUCK_THRESHOLD_MINUTES";

/// Every variable Loupe reads, in the order of the README table.
#[rustfmt::skip]
pub const SETTINGS: &[Setting] = &[
    s(Sources, CONFIG_FILE, "", "Path of an optional TOML file of settings, keyed by these same names (`LANGFUSE_LOG_LEVEL = \"debug\"`). The environment overrides it; read from the environment only."),
    s(Migration, WRITE_MODE, "events_only", "Which tables ingestion writes: `legacy` (v3 tables only), `dual` (v3 and v4 tables) or `events_only` (v4 tables only)."),
    described(Migration, NATIVE_OTEL_BEHAVIOUR, "direct (dual_write in legacy mode)", "`direct` writes every OTel span straight to the v4 tables; `dual_write` sends spans without `x-langfuse-ingestion-version: 4` through the staging pipeline for server-side trace-attribute propagation."),
    s(Migration, ALLOW_PREVIEW_OPT_IN, "true", "Enables the v4 read APIs (v2 observations, v3 scores, v2 metrics). Must be `true` with `events_only`."),
    described(Migration, ENABLE_HISTORIC_BACKFILL, "true (false in legacy mode)", "Runs the historic backfill (M1–M4) that copies v3 data into the v4 tables. Not allowed in `legacy` mode."),
    s(Migration, DROP_PID_TID_SORTING_TABLES, "false", "Lets the last backfill step (M5) drop its scratch tables (`observations_pid_tid_sorting` and the other `*_pid_tid_sorting` tables of M1, M3 and M4)."),
    s(Migration, STUCK_THRESHOLD_MINUTES, "15", "Minutes after which an unpropagated complete staging partition makes `/api/health?failIfEventPropagationStuck=true` answer 503."),
    s(MigrationJobs, "LANGFUSE_ENABLE_BACKGROUND_MIGRATIONS", "true", "Worker: runs the historic backfill chain (M1–M5) when its gates allow; `false` keeps it dormant on this deployment."),
    s(MigrationJobs, "LANGFUSE_EXPERIMENT_EVENT_PROPAGATION_PARTITION_DELAY_MINUTES", "10", "Worker: age of a 3-minute staging partition before propagation copies it to `events_full` (at least 4, so a partition is closed). Older SDKs' data reaches the v4 reads about this late."),
    s(MigrationJobs, "LANGFUSE_EVENT_PROPAGATION_INTERVAL_SECONDS", "60", "Worker: how often the propagation job looks for closed staging partitions (it then copies all that are due)."),
    s(MigrationJobs, "LANGFUSE_EVENT_PROPAGATION_EXCLUDE_PROJECT_IDS", "", "Worker: comma-separated project ids whose staged rows are not propagated."),
    s(MigrationJobs, "LANGFUSE_EVENT_PROPAGATION_MAX_INSERT_THREADS", "8", "Worker: ClickHouse `max_insert_threads` of the propagation insert."),
    s(MigrationJobs, "LANGFUSE_BACKFILL_CHUNK_ROWS", "20000", "Worker: source rows per historic-backfill chunk. Each chunk is one bounded `INSERT … SELECT` whose cursor is saved after it."),
    s(MigrationJobs, "LANGFUSE_BACKFILL_MAX_MEMORY_MB", "1024", "Worker: memory cap of the backfill: ClickHouse `max_memory_usage` of every backfill query, and the budget of the span trees the experiment step (M4) holds."),
    s(MigrationJobs, "LANGFUSE_BACKFILL_PAUSE_MS", "0", "Worker: pause between backfill chunks, to leave the database room for live traffic."),
    s(MigrationJobs, "LANGFUSE_BACKFILL_EXPERIMENT_BATCH_TRACES", "2000", "Worker: dataset run items (about as many experiment traces) per chunk of the dataset-run-item step (M4)."),
    s(MigrationJobs, "LANGFUSE_RETENTION_INTERVAL_SECONDS", "3600", "Worker: how often the retention job starts a pass over every project with a retention, removing data older than the project's window (docs/retention.md)."),
    s(MigrationJobs, "LANGFUSE_RETENTION_PAUSE_MS", "1000", "Worker: the retention job's pace: pause after each statement that removed rows (one project and table, one month, at a time)."),
    described(Server, "PORT", "3000 (web), 3030 (worker)", "HTTP port: the public API on web, the health endpoint on worker."),
    s(Server, "LANGFUSE_LISTEN_ADDRESS", "0.0.0.0", "Address both HTTP and gRPC listeners bind to."),
    s(Server, "LANGFUSE_OTEL_GRPC_PORT", "4317", "Port of the OTLP/gRPC trace receiver (web only)."),
    s(Server, "LANGFUSE_METRICS_ENABLED", "true", "Serves Prometheus metrics at `GET /metrics` (web: on `PORT`, unauthenticated; worker: on its health port) and records them; `false` turns both off. Metric list: docs/metrics.md."),
    s(Server, "LANGFUSE_UI_DIR", "ui/dist", "Web: the built web UI (`npm run build` in `ui/`), served at `/` with `index.html` for every path outside `/api/`; relative to the working directory. When the directory does not exist web still starts (API only), logs a warning and `GET /` says how to build the UI; a path that is not a directory stops startup."),
    s(Server, "LANGFUSE_HTTP_HEADER_READ_TIMEOUT_MS", "10000", "Web, HTTP and gRPC: a connection that has not sent a complete request head this long after it opened (or, over HTTP/1, after its previous response) is closed. See docs/limits.md."),
    s(Server, "LANGFUSE_HTTP_BODY_READ_TIMEOUT_MS", "60000", "Web, HTTP and gRPC: the longest a request body may take to arrive, counted from its head; a slower body is cut off with 408 (gRPC: DEADLINE_EXCEEDED). Media content uploads may take longer but must not pause this long."),
    s(Server, "LANGFUSE_HTTP_MAX_CONCURRENT_REQUESTS", "256", "Web, HTTP and gRPC together: requests served at once. Health and readiness checks are not counted."),
    s(Server, "LANGFUSE_HTTP_CONCURRENCY_WAIT_MS", "1000", "Web: how long a request beyond `LANGFUSE_HTTP_MAX_CONCURRENT_REQUESTS` waits for a slot before it is answered 503 with Retry-After (gRPC: UNAVAILABLE); 0 answers at once."),
    described(Infrastructure, "DATABASE_URL", "(required)", "PostgreSQL connection URL, e.g. `postgres://user:pass@host:5432/loupe`."),
    described(Infrastructure, "CLICKHOUSE_URL", "(required)", "ClickHouse HTTP interface URL, e.g. `http://clickhouse:8123`."),
    s(Infrastructure, "CLICKHOUSE_USER", "default", "ClickHouse user."),
    secret(Infrastructure, "CLICKHOUSE_PASSWORD", "ClickHouse password (default empty)."),
    s(Infrastructure, "CLICKHOUSE_DB", "default", "ClickHouse database holding Loupe's tables."),
    s(Infrastructure, "CLICKHOUSE_CLUSTER_ENABLED", "false", "`true` renders schema migrations with `ON CLUSTER` and `Replicated*` engines."),
    s(Infrastructure, "CLICKHOUSE_CLUSTER_NAME", "default", "Cluster name used in `ON CLUSTER` when clustering is enabled."),
    secret(Infrastructure, "REDIS_CONNECTION_STRING", "Redis URL, e.g. `redis://:pass@redis:6379/0`. Takes precedence over the three settings below."),
    s(Infrastructure, "REDIS_HOST", "", "Redis host, used when `REDIS_CONNECTION_STRING` is not set."),
    s(Infrastructure, "REDIS_PORT", "6379", "Redis port, with `REDIS_HOST`."),
    secret(Infrastructure, "REDIS_AUTH", "Redis password, with `REDIS_HOST`."),
    s(Infrastructure, "LANGFUSE_REDIS_KEY_PREFIX", "loupe:", "Prefix of every Redis key Loupe uses (the ingestion queue), so several deployments can share one Redis."),
    s(Infrastructure, "LANGFUSE_S3_EVENT_UPLOAD_BUCKET", "", "Bucket for raw ingested payloads. When unset, `LANGFUSE_EVENT_UPLOAD_LOCAL_DIR` must be set."),
    s(Infrastructure, "LANGFUSE_S3_EVENT_UPLOAD_REGION", "us-east-1", "Region of the bucket."),
    s(Infrastructure, "LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT", "", "S3 endpoint for S3-compatible stores (MinIO, SeaweedFS); empty means AWS."),
    s(Infrastructure, "LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID", "", "Access key; empty means the AWS default credential chain."),
    secret(Infrastructure, "LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY", "Secret key matching the access key."),
    s(Infrastructure, "LANGFUSE_S3_EVENT_UPLOAD_FORCE_PATH_STYLE", "false", "`true` uses path-style URLs (needed by most S3-compatible servers)."),
    s(Infrastructure, "LANGFUSE_S3_EVENT_UPLOAD_PREFIX", "", "Key prefix inside the bucket, e.g. `events/`."),
    s(Infrastructure, "LANGFUSE_EVENT_UPLOAD_LOCAL_DIR", "", "Directory for raw payloads when no S3 bucket is set; it must be shared by web and worker (single host only). Each payload is synced to disk before web acknowledges it."),
    s(Infrastructure, "LANGFUSE_S3_MEDIA_MAX_CONTENT_LENGTH", "1000000000", "Largest media attachment (bytes) `POST /api/public/media` accepts. Media is kept in the event upload store under `media/`."),
    s(Infrastructure, "LANGFUSE_S3_MEDIA_DOWNLOAD_URL_EXPIRY_SECONDS", "3600", "How long media upload and download URLs stay valid (at most 604800)."),
    s(Ingestion, "LANGFUSE_INGESTION_MAX_BODY_BYTES", "16777216", "Largest accepted request body (after gzip decompression for OTLP); larger requests get 413."),
    s(Ingestion, "LANGFUSE_OTEL_RESOURCE_ATTRIBUTES_MAX_COPIED_BYTES", "67108864", "Web: most bytes of resource attributes one OTLP export may have copied into its spans (each resource's encoded attributes times its spans, summed); a larger export gets 400."),
    s(Ingestion, "LANGFUSE_INGESTION_BLOB_WRITERS", "4", "Web (and the worker, for the evaluation scores and judge traces it ingests): accepted payloads' blob writes in flight at once. Payloads arriving while all are busy share the next write (one object, one stream round trip), so fewer writers means fewer, larger PUTs and more waiting for one; an object store with slow PUTs (AWS S3) wants more, a local one short of CPU fewer (docs/operations.md, \"Acknowledgement latency\")."),
    s(Ingestion, "LANGFUSE_INGESTION_QUEUE_INLINE_MAX_BYTES", "262144", "Web (and the worker, for what it ingests): the largest accepted payload that travels inside its Redis queue entry, acknowledged once Redis has it, instead of being written to blob storage first; `0` sends every payload through blob storage. Such payloads are not kept in the bucket after processing (docs/operations.md, \"Acknowledgement latency\")."),
    s(Ingestion, "LANGFUSE_INGESTION_QUEUE_INLINE_TOTAL_BYTES", "67108864", "The most payload bytes all queued entries may carry at once (Redis memory); past it, payloads go through blob storage until the worker catches up."),
    s(Ingestion, "LANGFUSE_INGESTION_QUEUE_MAX_DEPTH", "50000", "Accepted payloads waiting for the worker beyond which web answers 503 with Retry-After instead of growing the backlog without bound."),
    s(Ingestion, "LANGFUSE_INGESTION_BATCH_MAX_ROWS", "50000", "Worker: rows collected before a ClickHouse insert is sent. Fewer, larger inserts leave ClickHouse fewer parts to merge; a batch only grows this large while a backlog waits."),
    s(Ingestion, "LANGFUSE_INGESTION_BATCH_MAX_BYTES", "67108864", "Worker: payload bytes (as accepted, after decompression) collected before a ClickHouse insert is sent, so a batch of large payloads stays bounded in memory."),
    s(Ingestion, "LANGFUSE_INGESTION_MAX_ATTEMPTS", "5", "Worker: deliveries of one payload (a crash or a transient failure while processing it counts) before it goes to the dead-letter store instead of being processed again."),
    s(Ingestion, "LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "1000", "Worker: the longest a batch keeps collecting while payloads keep arriving. A batch is inserted as soon as the queue is drained, so this bounds a row's wait only under sustained load."),
    s(Ingestion, "LANGFUSE_EVAL_MAX_CONCURRENCY_PER_PROJECT", "4", "Worker: evaluator executions (LLM-as-a-judge calls) running at once per project, across all workers (docs/evaluators.md)."),
    s(Ingestion, "LANGFUSE_EVAL_LLM_TIMEOUT_SECONDS", "60", "Worker: how long one LLM-as-a-judge call may take, connect to last byte; a call without a reply by then is retried like a 5xx, then ends in error (docs/evaluators.md)."),
    s(Ingestion, "LANGFUSE_INGESTION_CLAIM_IDLE_SECONDS", "60", "Worker: payloads a worker read but did not finish for this long are taken over by another (crash recovery)."),
    s(Bootstrap, "LANGFUSE_INIT_ORG_ID", "", "Headless bootstrap: organization id. Bootstrap runs when the project id and both keys are set; it is idempotent."),
    described(Bootstrap, "LANGFUSE_INIT_ORG_NAME", "(the org id)", "Headless bootstrap: organization name."),
    s(Bootstrap, "LANGFUSE_INIT_PROJECT_ID", "", "Headless bootstrap: project id."),
    described(Bootstrap, "LANGFUSE_INIT_PROJECT_NAME", "(the project id)", "Headless bootstrap: project name."),
    s(Bootstrap, "LANGFUSE_INIT_PROJECT_PUBLIC_KEY", "", "Headless bootstrap: the project's public key (`pk-lf-…`)."),
    secret(Bootstrap, "LANGFUSE_INIT_PROJECT_SECRET_KEY", "Headless bootstrap: the project's secret key (`sk-lf-…`); only its hash is stored."),
    s(Bootstrap, "LANGFUSE_INIT_USER_EMAIL", "", "Headless bootstrap: the first user's email; created (or updated) at startup as OWNER of `LANGFUSE_INIT_ORG_ID`, which must be set. Needs `LANGFUSE_INIT_USER_PASSWORD`."),
    s(Bootstrap, "LANGFUSE_INIT_USER_NAME", "", "Headless bootstrap: the first user's display name."),
    secret(Bootstrap, "LANGFUSE_INIT_USER_PASSWORD", "Headless bootstrap: the first user's password (8 to 128 characters); only its argon2id hash is stored, and it is set again at every start."),
    s(Security, "AUTH_DISABLE_SIGNUP", "false", "`true` turns off sign-up with email and password (`POST /api/ui/auth/sign-up` answers 403); existing users still sign in."),
    s(Security, "AUTH_SESSION_MAX_AGE", "43200", "Minutes a sign-in session lasts (5 to 525600; 30 days by default), as in Langfuse."),
    secret(Security, "SALT", "Salt mixed into API-key secret hashes (and into web's media URL signing key, with a random key the deployment generates once in PostgreSQL). Set it once and keep it: changing it invalidates stored keys. Unset or `change-me-salt`: a startup warning; keys hashed under it keep working."),
    secret(Security, "ENCRYPTION_KEY", "256-bit key (64 hexadecimal characters: `openssl rand -hex 32`) that encrypts, with AES-256-GCM, the secrets Loupe stores to use later: LLM connections' API keys, export targets' credentials. Langfuse's stored form, so a v3 deployment's key decrypts its secrets. Needed before the first such secret is stored; startup stops if stored secrets exist and it is unset. Keep it: a new key cannot read the old secrets."),
    s(Security, "LANGFUSE_OUTBOUND_ALLOWED_HOSTS", "", "Non-public destinations that URLs people configure (webhooks, Slack, GitHub, LLM providers' base URLs, export endpoints) may reach: IPs, CIDR blocks, host names or `*.domain`, separated by commas. Public addresses are always allowed; loopback, private, link-local (cloud metadata), CGNAT and other special addresses are refused unless listed, checked on every address a name resolves to. Empty: public destinations only."),
    secret(Security, "ADMIN_API_KEY", "Bearer token of the instance-admin endpoints (`/api/admin/*`: organizations and their keys, backfill progress, dead letters); the organization routes do not exist (404) when unset, the others answer 403."),
    s(Monitors, "LANGFUSE_MONITORS_POLL_INTERVAL_MS", "1000", "Worker: pause between two looks for due monitor evaluations and pending notification deliveries (docs/monitors.md)."),
    s(Monitors, "LANGFUSE_MONITORS_MAX_PER_TICK", "20", "Worker: monitors evaluated, and notification deliveries attempted, per look (1 to 1000); the rest wait for the next look."),
    s(Monitors, "LANGFUSE_MONITORS_GITHUB_API_URL", "https://api.github.com", "Base URL of GitHub's REST API for the monitors' CI channel (`repository_dispatch`); a GitHub Enterprise server's `https://host/api/v3`. Calls to it keep to `LANGFUSE_OUTBOUND_ALLOWED_HOSTS` like every channel's: a GitHub Enterprise server on a non-public address must be listed there."),
    s(Logging, "LANGFUSE_LOG_LEVEL", "info", "Log filter: a level or a `tracing` directive such as `info,storage=debug`."),
    s(Logging, "LANGFUSE_LOG_FORMAT", "text", "`text` for humans, `json` for log pipelines."),
];

/// Names real Langfuse deployments set that Loupe recognises but does not use. They are accepted
/// with a warning so existing Helm values keep working, instead of being flagged as typos.
pub const UPSTREAM_NAMES_IGNORED: &[&str] = &[
    "LANGFUSE_MIGRATION_V4_OTEL_DIRECT_WRITE_ORG_CREATED_CUTOFF",
    "LANGFUSE_EVENT_PROPAGATION_MAX_BLOCK_SIZE",
    "LANGFUSE_EVENT_PROPAGATION_MIN_INSERT_BLOCK_SIZE_ROWS",
    "LANGFUSE_EVENT_PROPAGATION_MIN_INSERT_BLOCK_SIZE_BYTES",
    "LANGFUSE_EVENT_PROPAGATION_DEFER_NGRAM_INDEX",
    "LANGFUSE_EXPERIMENT_BACKFILL_THROTTLE_MS",
    "LANGFUSE_EXPERIMENT_BACKFILL_EXCLUDE_PROJECT_IDS",
];
