//! The binaries under test, started with the stack's environment and a key space of their own.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use tokio::process::{Child, Command};

/// `KEY=value` lines of the stack's env file.
pub fn stack_env(file: &Path) -> anyhow::Result<BTreeMap<String, String>> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("{} (run `just stack-up`)", file.display()))?;
    Ok(text
        .lines()
        .filter_map(|line| line.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect())
}

/// One run's environment (`env`), named `<kind>_<run id>` (`database`).
pub struct RunEnv {
    pub env: BTreeMap<String, String>,
    pub run_id: u64,
    pub database: String,
}

/// The environment of the stack in `stack_env_file` for one benchmark run: a ClickHouse database,
/// Redis key prefix and blob prefix of its own (so runs never meet and `leftovers` can remove what
/// it stored), web on loopback with a free gRPC port, quiet logs, and the bootstrap project
/// `project` with its keys.
pub fn run_env(
    stack_env_file: &Path,
    kind: &str,
    (project, public_key, secret_key): (&str, &str, &str),
) -> anyhow::Result<RunEnv> {
    let mut env = stack_env(stack_env_file)?;
    let run_id = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_secs();
    let database = format!("{kind}_{run_id}");
    for (k, v) in [
        ("CLICKHOUSE_DB", database.as_str()),
        ("LANGFUSE_REDIS_KEY_PREFIX", &format!("{database}:")),
        ("LANGFUSE_S3_EVENT_UPLOAD_PREFIX", &format!("{database}/")),
        ("LANGFUSE_LISTEN_ADDRESS", "127.0.0.1"),
        ("LANGFUSE_INIT_ORG_ID", "bench"),
        ("LANGFUSE_INIT_PROJECT_ID", project),
        ("LANGFUSE_INIT_PROJECT_PUBLIC_KEY", public_key),
        ("LANGFUSE_INIT_PROJECT_SECRET_KEY", secret_key),
        ("LANGFUSE_OTEL_GRPC_PORT", &free_port()?.to_string()),
        ("LANGFUSE_LOG_LEVEL", "warn"),
    ] {
        env.insert(k.to_owned(), v.to_owned());
    }
    Ok(RunEnv { env, run_id, database })
}

/// A run of `kind` on the stack of `stack_env` with a PostgreSQL database of its own (created
/// here), and a ClickHouse database, Redis prefix and blob prefix of that name; the bootstrap
/// project `project` with its key pair; `extra` settings on top. Drop it with [`drop_isolated`].
pub async fn isolated(
    stack_env_file: &Path,
    kind: &str,
    (project, public_key, secret_key): (&str, &str, &str),
    extra: &[(&str, String)],
) -> anyhow::Result<(BTreeMap<String, String>, String)> {
    use sqlx::Connection;
    let mut env = stack_env(stack_env_file)?;
    let run_id = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_secs();
    let database = format!("{kind}_{run_id}");
    let server_url = env.get("DATABASE_URL").context("DATABASE_URL in the stack's env")?.clone();
    let base = server_url.rsplit_once('/').map_or(server_url.as_str(), |(base, _)| base).to_owned();
    let mut admin = sqlx::PgConnection::connect(&server_url).await?;
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {database}"))).execute(&mut admin).await?;
    let settings = [
        ("DATABASE_URL", format!("{base}/{database}")),
        ("CLICKHOUSE_DB", database.clone()),
        ("LANGFUSE_REDIS_KEY_PREFIX", format!("{database}:")),
        ("LANGFUSE_S3_EVENT_UPLOAD_PREFIX", format!("{database}/")),
        ("LANGFUSE_LISTEN_ADDRESS", "127.0.0.1".into()),
        ("LANGFUSE_INIT_ORG_ID", "bench".into()),
        ("LANGFUSE_INIT_PROJECT_ID", project.into()),
        ("LANGFUSE_INIT_PROJECT_PUBLIC_KEY", public_key.into()),
        ("LANGFUSE_INIT_PROJECT_SECRET_KEY", secret_key.into()),
        ("LANGFUSE_OTEL_GRPC_PORT", free_port()?.to_string()),
        ("LANGFUSE_LOG_LEVEL", "warn".into()),
    ];
    for (k, v) in settings.into_iter().chain(extra.iter().cloned()) {
        env.insert(k.to_owned(), v);
    }
    Ok((env, database))
}

/// Removes what an [`isolated`] run stored: its ClickHouse database, blobs and PostgreSQL database.
pub async fn drop_isolated(stack_env_file: &Path, env: &BTreeMap<String, String>, database: &str) {
    use sqlx::Connection;
    crate::leftovers::remove(env, database).await;
    let Some(server_url) = stack_env(stack_env_file).ok().and_then(|e| e.get("DATABASE_URL").cloned()) else {
        return;
    };
    let dropped = format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)");
    let outcome = async {
        let mut admin = sqlx::PgConnection::connect(&server_url).await?;
        sqlx::query(sqlx::AssertSqlSafe(dropped)).execute(&mut admin).await
    };
    if let Err(e) = outcome.await {
        eprintln!("cleanup: could not drop PostgreSQL database {database}: {e}");
    }
}

pub fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

pub struct Running {
    pub child: Child,
    pub url: String,
}

impl Running {
    pub async fn start(
        binary: &Path,
        env: &BTreeMap<String, String>,
        port: u16,
        log: PathBuf,
    ) -> anyhow::Result<Self> {
        let file = std::fs::File::create(&log)?;
        let child = Command::new(binary)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .envs(env)
            .env("PORT", port.to_string())
            .stdout(file.try_clone()?)
            .stderr(file)
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        Ok(Self { child, url: format!("http://127.0.0.1:{port}") })
    }

    pub async fn wait_healthy(&mut self, client: &reqwest::Client, path: &str) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if client.get(format!("{}{path}", self.url)).send().await.is_ok_and(|r| r.status().is_success()) {
                return Ok(());
            }
            if let Some(status) = self.child.try_wait()? {
                bail!("exited with {status} before becoming healthy");
            }
            if Instant::now() > deadline {
                bail!("{path} not healthy within 120 s");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Peak resident memory so far (VmHWM), in MB.
    pub fn peak_rss_mb(&self) -> Option<f64> {
        let pid = self.child.id()?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb / 1024.0)
    }

    /// CPU time used so far (user + system), in seconds.
    pub fn cpu_seconds(&self) -> Option<f64> {
        cpu_seconds_of(self.child.id()?)
    }
}

/// CPU time process `pid` used so far (user + system), in seconds.
pub fn cpu_seconds_of(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / USER_HZ)
}

/// The unit of the CPU times in `/proc`: Linux reports them in USER_HZ ticks, 100 a second on every
/// platform it runs on.
pub const USER_HZ: f64 = 100.0;
