//! `loupe-bench monitors`: how many monitor evaluations per second one worker sustains. Starts web
//! and worker (release builds) with databases of their own, sends a few thousand spans (a fifth of
//! them errors) so the queries read data, creates `--monitors` monitors (error count, p95 latency
//! and total cost over the last 5 minutes, in turn; three through the API, the rest copied in
//! PostgreSQL past the API's cap of 100) with a `--interval` of seconds, and counts the
//! evaluations the worker records over `--seconds`. With N monitors due every I seconds the demand
//! is N / I evaluations per second; a worker that keeps up records that many, one that cannot
//! records what it manages.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use base64::Engine;
use serde_json::{Value, json};

use crate::flags::{self, Common};
use crate::processes::{Running, drop_isolated, free_port, isolated};

const PUBLIC_KEY: &str = "pk-lf-monitors-bench";
const SECRET_KEY: &str = "sk-lf-monitors-bench";

pub struct Options {
    common: Common,
    monitors: u64,
    interval: u64,
    seconds: u64,
    max_per_tick: u64,
}

impl Options {
    pub fn from_args(args: impl Iterator<Item = String>) -> anyhow::Result<Self> {
        let (mut monitors, mut interval, mut seconds, mut max_per_tick) = (500, 10, 30, 100);
        let common = flags::parse(args, |flag| {
            match flag.name() {
                "--monitors" => monitors = flag.number::<u64>()?.clamp(3, 100_000),
                "--interval" => interval = flag.number::<u64>()?.max(10),
                "--seconds" => seconds = flag.number::<u64>()?.max(5),
                "--max-per-tick" => max_per_tick = flag.number::<u64>()?.clamp(1, 1000),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(Self { common, monitors, interval, seconds, max_per_tick })
    }
}

/// OTLP/JSON: `count` spans starting within the last minute, every fifth at level ERROR.
fn spans(batch: u64, count: u64) -> Value {
    let now = chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default();
    let spans: Vec<Value> = (0..count)
        .map(|i| {
            let start = now - (i as i64 % 60) * 1_000_000_000;
            let mut attributes = vec![
                json!({"key": "langfuse.observation.type", "value": {"stringValue": "generation"}}),
                json!({"key": "gen_ai.usage.input_tokens", "value": {"intValue": 100 + i}}),
                json!({"key": "gen_ai.request.model", "value": {"stringValue": "gpt-4o-mini"}}),
            ];
            if i % 5 == 0 {
                attributes
                    .push(json!({"key": "langfuse.observation.level", "value": {"stringValue": "ERROR"}}));
            }
            json!({"traceId": format!("{batch:016x}{i:016x}"), "spanId": format!("{i:016x}"), "name": "llm",
                   "kind": 1, "startTimeUnixNano": start.to_string(),
                   "endTimeUnixNano": (start + 300_000_000 + (i as i64 % 7) * 100_000_000).to_string(),
                   "attributes": attributes})
        })
        .collect();
    json!({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "bench"}, "spans": spans}]}]})
}

fn monitor(i: u64, interval: u64) -> Value {
    let query = match i % 3 {
        0 => json!({"view": "observations", "measure": "count", "aggregation": "count",
                    "filters": [{"column": "level", "operator": "=", "value": "ERROR", "type": "string"}]}),
        1 => json!({"view": "observations", "measure": "latency", "aggregation": "p95"}),
        _ => json!({"view": "observations", "measure": "totalCost", "aggregation": "sum"}),
    };
    json!({"name": format!("bench {i}"), "query": query, "windowSeconds": 300, "comparison": ">",
           "threshold": 1000, "intervalSeconds": interval})
}

pub async fn run(options: Options) -> anyhow::Result<()> {
    let extra = [
        ("LANGFUSE_MONITORS_POLL_INTERVAL_MS", "100".to_owned()),
        ("LANGFUSE_MONITORS_MAX_PER_TICK", options.max_per_tick.to_string()),
    ];
    let keys = ("monitors-bench", PUBLIC_KEY, SECRET_KEY);
    let (env, database) = isolated(&options.common.stack_env, "monitors", keys, &extra).await?;
    let outcome = measure(&options, &env).await;
    drop_isolated(&options.common.stack_env, &env, &database).await;
    outcome
}

async fn measure(options: &Options, env: &BTreeMap<String, String>) -> anyhow::Result<()> {
    let client = reqwest::Client::new();
    let temp = std::env::temp_dir();
    let mut web = Running::start(
        &options.common.bin_dir.join("web"),
        env,
        free_port()?,
        temp.join("loupe-bench-monitors-web.log"),
    )
    .await?;
    web.wait_healthy(&client, "/api/public/health").await.context("web")?;
    let mut worker = Running::start(
        &options.common.bin_dir.join("worker"),
        env,
        free_port()?,
        temp.join("loupe-bench-monitors-worker.log"),
    )
    .await?;
    worker.wait_healthy(&client, "/api/health").await.context("worker")?;
    let credentials = base64::engine::general_purpose::STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}"));
    let authorization = format!("Basic {credentials}");

    for batch in 0..5 {
        let sent = client
            .post(format!("{}/api/public/otel/v1/traces", web.url))
            .header("Authorization", &authorization)
            .header("x-langfuse-ingestion-version", "4")
            .header("Content-Type", "application/json")
            .body(spans(batch, 1000).to_string())
            .send()
            .await?;
        if !sent.status().is_success() {
            bail!("sending spans: {}", sent.status());
        }
    }
    // Three through the API (one per query kind), the rest copied from them in PostgreSQL: the API
    // caps a project at 100 monitors, the bench wants more.
    for i in 0..3 {
        let created = client
            .post(format!("{}/api/public/monitors", web.url))
            .header("Authorization", &authorization)
            .header("Content-Type", "application/json")
            .body(monitor(i, options.interval).to_string())
            .send()
            .await?;
        if !created.status().is_success() {
            bail!("creating a monitor: {} {}", created.status(), created.text().await?);
        }
    }
    let pool = sqlx::PgPool::connect(&env["DATABASE_URL"]).await?;
    sqlx::query(
        "INSERT INTO monitors (id, project_id, name, query, window_seconds, comparison, threshold, interval_seconds) \
         SELECT gen_random_uuid()::text, m.project_id, m.name || ' copy ' || n, m.query, m.window_seconds, \
             m.comparison, m.threshold, m.interval_seconds \
         FROM generate_series(1, $1) AS n JOIN (SELECT *, row_number() OVER (ORDER BY id) - 1 AS k FROM monitors) m \
             ON m.k = n % 3",
    )
    .bind(options.monitors as i64 - 3)
    .execute(&pool)
    .await?;
    // Every monitor's first evaluation is due at once: the time until all have one is the backlog's.
    let started = Instant::now();
    while evaluations(&pool).await? < options.monitors as i64 {
        if started.elapsed() > Duration::from_secs(600) {
            bail!("the first evaluations did not finish within 10 minutes");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let first = started.elapsed().as_secs_f64();
    let cpu_before = worker.cpu_seconds();
    let (before, at) = (evaluations(&pool).await?, Instant::now());
    tokio::time::sleep(Duration::from_secs(options.seconds)).await;
    let (after, seconds) = (evaluations(&pool).await?, at.elapsed().as_secs_f64());
    let errors: (i64,) = sqlx::query_as("SELECT count(*) FROM monitor_evaluations WHERE error IS NOT NULL")
        .fetch_one(&pool)
        .await?;
    let rate = (after - before) as f64 / seconds;
    let demand = options.monitors as f64 / options.interval as f64;
    println!(
        "monitors benchmark: {} monitors every {} s (demand {demand:.1} evaluations/s), at most {} per poll of 100 ms",
        options.monitors, options.interval, options.max_per_tick
    );
    println!(
        "  first evaluation of all {} in {first:.2} s = {:.1} evaluations/s",
        options.monitors,
        options.monitors as f64 / first
    );
    println!(
        "  steady            {} evaluations in {seconds:.1} s = {rate:.1} evaluations/s",
        after - before
    );
    println!("  failed queries    {}", errors.0);
    if let (Some(before), Some(after)) = (cpu_before, worker.cpu_seconds()) {
        println!(
            "  worker CPU        {:.2} s over the steady window ({:.0}% of a core)",
            after - before,
            (after - before) / seconds * 100.0
        );
    }
    if let Some(rss) = worker.peak_rss_mb() {
        println!("  worker peak RSS   {rss:.0} MB");
    }
    Ok(())
}

async fn evaluations(pool: &sqlx::PgPool) -> anyhow::Result<i64> {
    let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM monitor_evaluations").fetch_one(pool).await?;
    Ok(n)
}
