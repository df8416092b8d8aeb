//! `loupe-bench fairness`: how long one project's span takes to become readable while another
//! project floods Loupe, and while it sends payloads the store refuses (the spec: one project
//! cannot stall another; target: a canary visible within twice its idle time).
//!
//! Starts web and worker (release builds) with a database of their own and two projects. Project
//! B sends canaries one at a time and waits for each to be stored: first on an idle server, then
//! while A floods (`--concurrency` connections of `--spans`-span exports, as fast as acknowledged),
//! then while A also sends exports a ClickHouse constraint refuses (one in `--poison-every`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use prost::Message;

use crate::flags::{self, Common};
use crate::ingest::{percentile, print_latency};
use crate::leftovers;
use crate::processes::{RunEnv, Running, free_port, run_env};

pub struct Options {
    common: Common,
    canaries: u64,
    spans: u64,
    concurrency: usize,
    poison_every: u64,
}

impl Options {
    pub fn from_args(args: impl Iterator<Item = String>) -> anyhow::Result<Self> {
        let (mut canaries, mut spans, mut concurrency, mut poison_every) = (20, 100, 16, 10);
        let common = flags::parse(args, |flag| {
            match flag.name() {
                "--canaries" => canaries = flag.number()?,
                "--spans" => spans = flag.number()?,
                "--concurrency" => concurrency = flag.number()?,
                "--poison-every" => poison_every = flag.number::<u64>()?.max(1),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(Self { common, canaries, spans, concurrency, poison_every })
    }
}

const A: (&str, &str, &str) = ("flood", "pk-lf-fair-a", "sk-lf-fair-a");
const B: (&str, &str, &str) = ("canary", "pk-lf-fair-b", "sk-lf-fair-b");

fn basic((_, public, secret): (&str, &str, &str)) -> String {
    format!("Basic {}", STANDARD.encode(format!("{public}:{secret}")))
}

pub async fn run(options: Options) -> anyhow::Result<()> {
    let RunEnv { mut env, run_id, database } = run_env(&options.common.stack_env, "fair", A)?;
    env.insert("SALT".into(), "fairness-bench-salt".into());
    let outcome = measure(&options, &env, &database, run_id).await;
    leftovers::remove(&env, &database).await;
    outcome
}

/// Bootstraps project B beside A; returns the pool, which later counts the dead letters.
async fn add_project_b(env: &BTreeMap<String, String>) -> anyhow::Result<sqlx::PgPool> {
    let mut b_env = env.clone();
    for (k, v) in [
        ("LANGFUSE_INIT_PROJECT_ID", B.0),
        ("LANGFUSE_INIT_PROJECT_PUBLIC_KEY", B.1),
        ("LANGFUSE_INIT_PROJECT_SECRET_KEY", B.2),
    ] {
        b_env.insert(k.to_owned(), v.to_owned());
    }
    let config = domain::config::Config::from_env_vars(domain::config::Role::Web, b_env)
        .map_err(|e| anyhow::anyhow!("settings: {:?}", e.problems))?;
    let pool = storage::postgres::connect(&config.postgres)?;
    let bootstrap = config.bootstrap.as_ref().context("a bootstrap project")?;
    storage::projects::bootstrap(&pool, bootstrap, &config.auth.salt).await?;
    Ok(pool)
}

struct Target {
    client: reqwest::Client,
    endpoint: String,
    clickhouse: clickhouse::Client,
}

impl Target {
    async fn post(&self, project: (&str, &str, &str), body: Vec<u8>) -> bool {
        let response = self
            .client
            .post(&self.endpoint)
            .header("Authorization", basic(project))
            .header("Content-Type", "application/x-protobuf")
            .body(body)
            .send()
            .await;
        response.is_ok_and(|r| r.status().is_success())
    }

    /// Sends `count` canaries from B one after another; each one's time from send to stored.
    async fn canaries(&self, run: u64, count: u64) -> anyhow::Result<Vec<Duration>> {
        let mut latencies = Vec::new();
        for n in 0..count {
            let export = test_support::otlp::export(run, n, 1, 1);
            let span_id = export.resource_spans[0].scope_spans[0].spans[0].span_id.clone();
            let hex: String = span_id.iter().map(|b| format!("{b:02x}")).collect();
            let sent = Instant::now();
            if !self.post(B, export.encode_to_vec()).await {
                bail!("canary {n} not accepted");
            }
            let deadline = sent + Duration::from_secs(120);
            loop {
                let stored: u64 = self
                    .clickhouse
                    .query("SELECT count() FROM events_full WHERE project_id = ? AND span_id = ?")
                    .bind(B.0)
                    .bind(&hex)
                    .fetch_one()
                    .await?;
                if stored > 0 {
                    latencies.push(sent.elapsed());
                    break;
                }
                if Instant::now() > deadline {
                    bail!("canary {n} not stored within 120 s");
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
        Ok(latencies)
    }
}

/// A's traffic until `stop`: exports of `spans` spans from `concurrency` connections, one in
/// `poison_every` named so the constraint refuses it (none with `poison_every == 0`).
fn flood(
    target: &Arc<Target>,
    options: &Options,
    run: u64,
    poison_every: u64,
    stop: &Arc<AtomicBool>,
) -> Vec<tokio::task::JoinHandle<u64>> {
    let counter = Arc::new(AtomicU64::new(0));
    let traces = (options.spans / 5).max(1);
    (0..options.concurrency)
        .map(|_| {
            let (target, stop, counter) = (target.clone(), stop.clone(), counter.clone());
            tokio::spawn(async move {
                let mut accepted = 0;
                while !stop.load(Ordering::Relaxed) {
                    let n = counter.fetch_add(1, Ordering::Relaxed);
                    let mut export = test_support::otlp::export(run, n * traces, traces, 5);
                    if poison_every > 0 && n % poison_every == 0 {
                        for span in export
                            .resource_spans
                            .iter_mut()
                            .flat_map(|r| &mut r.scope_spans)
                            .flat_map(|s| &mut s.spans)
                        {
                            span.name = "poison".into();
                        }
                    }
                    if target.post(A, export.encode_to_vec()).await {
                        accepted += 1;
                    }
                }
                accepted
            })
        })
        .collect()
}

async fn measure(
    options: &Options,
    env: &BTreeMap<String, String>,
    database: &str,
    run_id: u64,
) -> anyhow::Result<()> {
    let bin = &options.common.bin_dir;
    let logs = std::env::temp_dir();
    let client = reqwest::Client::builder().pool_max_idle_per_host(options.concurrency + 1).build()?;
    let mut web =
        Running::start(&bin.join("web"), env, free_port()?, logs.join("loupe-bench-fair-web.log")).await?;
    web.wait_healthy(&client, "/api/public/health").await.context("web")?;
    let postgres = add_project_b(env).await?;
    let mut worker =
        Running::start(&bin.join("worker"), env, free_port()?, logs.join("loupe-bench-fair-worker.log"))
            .await?;
    worker.wait_healthy(&client, "/api/health").await.context("worker")?;
    let clickhouse = clickhouse::Client::default().with_url(&env["CLICKHOUSE_URL"]).with_database(database);
    let target =
        Arc::new(Target { client, endpoint: format!("{}/api/public/otel/v1/traces", web.url), clickhouse });
    println!(
        "fairness benchmark: project B's canary (1 span) from send to stored; A floods with {} connections of {}-span exports",
        options.concurrency, options.spans
    );

    let idle = target.canaries(run_id, options.canaries).await?;
    let idle_p50 = percentile(&sorted(&idle), 0.5);
    print_latency("  idle           ", idle);

    for (label, poison_every, base) in
        [("A flooding     ", 0, 1_000_000), ("A with poison  ", options.poison_every, 2_000_000)]
    {
        if poison_every > 0 {
            target
                .clickhouse
                .query("ALTER TABLE events_full ADD CONSTRAINT no_poison CHECK name != 'poison'")
                .execute()
                .await?;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let flooders = flood(&target, options, run_id + base, poison_every, &stop);
        // Let A's backlog build before the first canary.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let started = Instant::now();
        let latencies = target.canaries(run_id + base + 500_000, options.canaries).await;
        stop.store(true, Ordering::Relaxed);
        let mut accepted = 0;
        for flooder in flooders {
            accepted += flooder.await?;
        }
        let latencies = latencies?;
        let p50 = percentile(&sorted(&latencies), 0.5);
        print_latency(&format!("  {label}"), latencies);
        println!(
            "      A: {accepted} exports acknowledged in {:.1} s; canary p50 = {:.1} x idle",
            started.elapsed().as_secs_f64() + 3.0,
            p50.as_secs_f64() / idle_p50.as_secs_f64().max(1e-9)
        );
    }
    // A's backlog drains before the dead letters are counted: refused exports still queued are
    // not dead-lettered yet.
    let drain = Instant::now();
    let health = format!("{}/api/health", worker.url);
    loop {
        let body: serde_json::Value =
            serde_json::from_slice(&target.client.get(&health).send().await?.bytes().await?)?;
        if body["ingestionBacklog"] == 0 {
            break;
        }
        if drain.elapsed() > Duration::from_secs(600) {
            bail!("A's backlog not drained in 10 minutes: {body}");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    println!("  A's backlog     drained {:.1} s after the last canary", drain.elapsed().as_secs_f64());
    let dead = storage::dead_letters::open_count(&postgres).await?;
    println!("  dead letters    {dead} open (A's refused exports)");
    println!(
        "  peak RSS        web {:.0} MB, worker {:.0} MB",
        web.peak_rss_mb().unwrap_or(0.0),
        worker.peak_rss_mb().unwrap_or(0.0)
    );
    web.child.kill().await?;
    worker.child.kill().await?;
    Ok(())
}

fn sorted(latencies: &[Duration]) -> Vec<Duration> {
    let mut sorted = latencies.to_vec();
    sorted.sort();
    sorted
}
