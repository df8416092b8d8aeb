//! What the binaries serve and read, shared by the test files.

#![allow(dead_code, clippy::unwrap_used)]

use deploy_check::Env;
use domain::config::{CONFIG_FILE, Config, OtelBehaviour, Role, Setting, WriteMode};

/// Health endpoint of web (README, "API surface"): 200 `{"status":"OK"}`.
pub const WEB_HEALTH: &str = "/api/public/health";
/// Health endpoint of the worker: 503 when a dependency is down.
pub const WORKER_HEALTH: &str = "/api/health";
/// The worker's liveness endpoint (job-loop heartbeat).
pub const WORKER_LIVE: &str = "/api/live";
/// The worker's stuck-propagation switch.
pub const STUCK_QUERY: &str = "failIfEventPropagationStuck=true";

/// The start modes of spec/v4-migration-spec.md §9.4 and their compose override / Helm values files.
pub const START_MODES: [StartMode; 3] = [
    StartMode {
        name: "default",
        compose: "deploy/compose.default.yaml",
        helm: "deploy/helm/start-modes/default.yaml",
    },
    StartMode {
        name: "dual",
        compose: "deploy/compose.dual.yaml",
        helm: "deploy/helm/start-modes/dual.yaml",
    },
    StartMode {
        name: "legacy",
        compose: "deploy/compose.legacy.yaml",
        helm: "deploy/helm/start-modes/legacy.yaml",
    },
];

pub struct StartMode {
    pub name: &'static str,
    pub compose: &'static str,
    pub helm: &'static str,
}

/// Ports the binaries listen on by default, from the real configuration code.
pub struct Ports {
    pub web_http: u16,
    pub web_grpc: u16,
    pub worker_http: u16,
}

pub fn default_ports() -> Ports {
    let env = [
        ("DATABASE_URL", "postgres://u:p@db:5432/loupe"),
        ("CLICKHOUSE_URL", "http://ch:8123"),
        ("REDIS_CONNECTION_STRING", "redis://redis:6379"),
        ("LANGFUSE_S3_EVENT_UPLOAD_BUCKET", "events"),
    ];
    let web = Config::from_env_vars(Role::Web, env).unwrap();
    let worker = Config::from_env_vars(Role::Worker, env).unwrap();
    Ports { web_http: web.server.port, web_grpc: web.server.otel_grpc_port, worker_http: worker.server.port }
}

/// The settings one binary alone reads; every other setting is read (and validated) by both.
pub fn only_read_by(name: &str) -> Option<Role> {
    (name == "LANGFUSE_OTEL_GRPC_PORT").then_some(Role::Web)
}

/// Whether the deployments set `setting`. `LANGFUSE_CONFIG_FILE` they leave out: compose and the
/// chart configure through the environment (one env block, a ConfigMap), which a file would only
/// duplicate, and a container would need the file mounted as well.
pub fn deployed(setting: &Setting) -> bool {
    setting.name != CONFIG_FILE
}

/// Settings whose value differs between web and worker on purpose.
pub fn per_binary(name: &str) -> bool {
    matches!(name, "PORT" | "LANGFUSE_OTEL_GRPC_PORT")
}

/// Runs the real startup validation.
pub fn validate(role: Role, env: &Env) -> Result<Config, domain::config::ConfigError> {
    Config::from_env_vars(role, env.clone())
}

/// The variables each problem names, for asserting on refusals.
pub fn refused_variables(role: Role, env: &Env) -> Vec<Vec<String>> {
    match validate(role, env) {
        Ok(_) => panic!("{role:?}: the configuration was accepted"),
        Err(error) => error.problems.into_iter().map(|p| p.variables).collect(),
    }
}

pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::Web => "web",
        Role::Worker => "worker",
    }
}

/// The table "Recommended settings per start mode" of spec/v4-migration-spec.md §9.4, as the configuration resolves it:
/// (write mode, native OTel behaviour, preview opt-in, historic backfill).
pub fn expected(mode: &str) -> (WriteMode, OtelBehaviour, bool, bool) {
    match mode {
        "default" => (WriteMode::EventsOnly, OtelBehaviour::Direct, true, true),
        // Native OTel: `dual_write` only for producers that rely on server-side propagation, so `direct`.
        "dual" => (WriteMode::Dual, OtelBehaviour::Direct, true, false),
        "legacy" => (WriteMode::Legacy, OtelBehaviour::DualWrite, false, false),
        other => panic!("unknown start mode {other}"),
    }
}
