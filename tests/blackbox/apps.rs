//! Starting the binaries as child processes and waiting for them, always with a deadline.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use test_support::{TestClickHouse, TestPostgres, stack_env};
use tokio::process::{Child, Command};

/// Where cargo put the binaries: next to the `deps/` directory this test runs from.
pub fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(|deps| deps.parent()).unwrap();
    let path = dir.join(name);
    assert!(path.exists(), "{} not built: `just test` builds the binaries before the tests", path.display());
    path
}

/// An HTTP client for the tests. reqwest is built without a default TLS crypto provider (the
/// binaries install ring at startup), so the test process installs it too.
pub fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// A loopback port for one of this test's servers that no other test process can be handed.
///
/// Asking the kernel for port 0 is not enough: the port is free only until the listener is dropped,
/// and while the binary starts, the tests running beside it open hundreds of client connections whose
/// local ports come from that same ephemeral range (CI once lost a run to exactly that). So the port
/// comes from below the ephemeral range, and is claimed with a lock file that this process holds until
/// it exits; the kernel drops the lock of a process that dies, so nothing goes stale.
pub fn free_port() -> u16 {
    use std::hash::{BuildHasher, Hasher};
    static CLAIMED: Mutex<Vec<std::fs::File>> = Mutex::new(Vec::new());

    let dir = std::env::temp_dir().join("loupe-test-ports");
    std::fs::create_dir_all(&dir).unwrap();
    let ephemeral_low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32768);
    let (low, high) = (20_000u16, ephemeral_low.max(21_000));
    let span = u64::from(high - low);
    let start = std::collections::hash_map::RandomState::new().build_hasher().finish() % span;
    for step in 0..span {
        let port = low + ((start + step) % span) as u16;
        let file = std::fs::File::create(dir.join(port.to_string())).unwrap();
        if file.try_lock().is_err() || std::net::TcpListener::bind(("127.0.0.1", port)).is_err() {
            continue;
        }
        CLAIMED.lock().unwrap().push(file);
        return port;
    }
    panic!("no free loopback port between {low} and {high}");
}

/// One test's stack: its own databases, and the environment pointing at them.
pub struct Stack {
    pub pg: TestPostgres,
    pub ch: TestClickHouse,
    pub env: BTreeMap<String, String>,
}

pub const PUBLIC_KEY: &str = "pk-lf-blackbox";
pub const SECRET_KEY: &str = "sk-lf-blackbox";
pub const ADMIN_KEY: &str = "admin-blackbox-key";

impl Stack {
    pub async fn new() -> Self {
        let (pg, ch) = (TestPostgres::create().await, TestClickHouse::create().await);
        let mut env = stack_env(&pg, &ch);
        for (k, v) in [
            ("LANGFUSE_LISTEN_ADDRESS", "127.0.0.1"),
            ("LANGFUSE_INIT_ORG_ID", "org-blackbox"),
            ("LANGFUSE_INIT_PROJECT_ID", "project-blackbox"),
            ("LANGFUSE_INIT_PROJECT_NAME", "Blackbox"),
            ("LANGFUSE_INIT_PROJECT_PUBLIC_KEY", PUBLIC_KEY),
            ("LANGFUSE_INIT_PROJECT_SECRET_KEY", SECRET_KEY),
            ("ADMIN_API_KEY", ADMIN_KEY),
            ("SALT", "blackbox-salt"),
        ] {
            env.insert(k.into(), v.into());
        }
        // Tests run in parallel: every web needs its own gRPC port too.
        env.insert("LANGFUSE_OTEL_GRPC_PORT".into(), free_port().to_string());
        Self { pg, ch, env }
    }
}

/// A running binary; killed when dropped so a failing test leaves nothing behind. Its output goes
/// to a log file whose tail is shown when the test fails because of it.
pub struct App {
    pub child: Child,
    pub base_url: String,
    pub log: PathBuf,
}

impl App {
    pub fn spawn(name: &str, env: &BTreeMap<String, String>, port: u16) -> Self {
        let log = std::env::temp_dir().join(format!("loupe-blackbox-{name}-{port}.log"));
        let file = std::fs::File::create(&log).unwrap();
        let child = command(name, env)
            .env("PORT", port.to_string())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        Self { child, base_url: format!("http://127.0.0.1:{port}"), log }
    }

    /// The last lines the process printed.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// For a worker: waits, with a deadline, until it reports no accepted payload left unwritten.
    pub async fn drained(&self) {
        let url = format!("{}/api/health", self.base_url);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let health: serde_json::Value =
                http().get(&url).send().await.unwrap().json().await.unwrap_or(serde_json::Value::Null);
            if health["ingestionBacklog"] == 0 {
                return;
            }
            assert!(Instant::now() < deadline, "the backlog never drained: {health}\n{}", self.log_tail());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Polls `path` until it answers 200, or fails after `limit` with what the process printed.
    pub async fn wait_healthy(&mut self, path: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        let client = http();
        loop {
            if let Ok(response) = client.get(format!("{}{path}", self.base_url)).send().await
                && response.status() == 200
            {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("process exited with {status} before becoming healthy:\n{}", self.log_tail());
            }
            assert!(Instant::now() < deadline, "{path} not healthy within {limit:?}:\n{}", self.log_tail());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Runs a real client script from `tests/e2e` against `web` (its URL and the bootstrap key pair in
/// the environment) and returns the JSON it printed. `.py` scripts run in the venv `just test`
/// fills from PyPI (`py2/` ones in the venv of Python SDK 2), `.mjs` scripts with Node in
/// `tests/e2e/js`, where `just test` installs from npm.
pub async fn run_client(script: &str, web: &App) -> serde_json::Value {
    run_client_with(script, web, &[]).await
}

/// [`run_client`] with more environment for the script (e.g. an organization key).
pub async fn run_client_with(script: &str, web: &App, env: &[(&str, &str)]) -> serde_json::Value {
    let e2e = concat!(env!("CARGO_MANIFEST_DIR"), "/e2e");
    let mut command = if script.ends_with(".mjs") {
        let mut node = Command::new("node");
        node.arg(script).current_dir(format!("{e2e}/js"));
        node
    } else {
        let venv = if script.starts_with("py2/") { "venv-py2" } else { "venv" };
        let mut python = Command::new(format!("{}/../.local/{venv}/bin/python", env!("CARGO_MANIFEST_DIR")));
        python.arg(format!("{e2e}/{script}"));
        python
    };
    let output = command
        .env("LOUPE_URL", &web.base_url)
        .env("LOUPE_PUBLIC_KEY", PUBLIC_KEY)
        .env("LOUPE_SECRET_KEY", SECRET_KEY)
        .envs(env.iter().copied())
        .output()
        .await
        .expect("`just test` installs the real clients (Python venv, Node.js packages)");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{script} failed:\n{stderr}\n{}", web.log_tail());
    serde_json::from_slice(output.stdout.trim_ascii()).expect("the script prints JSON")
}

/// The binary with exactly `env` (plus PATH): nothing leaks in from the test runner's environment.
pub fn command(name: &str, env: &BTreeMap<String, String>) -> Command {
    let mut command = Command::new(binary(name));
    command
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// Runs a binary that is expected to refuse to start; returns its exit code and stderr.
pub async fn run_to_exit(name: &str, env: &BTreeMap<String, String>) -> (Option<i32>, String) {
    let child = command(name, env).kill_on_drop(true).spawn().unwrap();
    let output = tokio::time::timeout(Duration::from_secs(20), child.wait_with_output())
        .await
        .expect("the binary should have exited")
        .unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
}
