//! `loupe-bench evaluators`: how fast one worker judges new observations. Starts web and worker
//! with databases of their own, an LLM connection to the loopback OpenAI-compatible stub
//! (`test_support::llm_stub`, answering after `--latency-ms`), one LLM-as-a-judge evaluator and a
//! rule over every span named `bench`; then sends `--observations` such spans in OTLP batches and
//! watches the `EVAL` scores appear in ClickHouse. Prints executions per second, the p50/p99 from
//! a span's batch being accepted (200) to its score being readable, and the worker's CPU and peak
//! memory.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use base64::Engine;
use serde_json::{Value, json};
use test_support::llm_stub::{LlmStub, StubReply};

use crate::flags::{self, Common};
use crate::processes::{Running, drop_isolated, free_port, isolated};

const PUBLIC_KEY: &str = "pk-lf-evaluators-bench";
const SECRET_KEY: &str = "sk-lf-evaluators-bench";
/// A fixed key: the bench's database is dropped afterwards, nothing it encrypts outlives the run.
const ENCRYPTION_KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const BATCH: u64 = 500;

pub struct Options {
    common: Common,
    observations: u64,
    latency_ms: u64,
    concurrency: u64,
}

impl Options {
    pub fn from_args(args: impl Iterator<Item = String>) -> anyhow::Result<Self> {
        let (mut observations, mut latency_ms, mut concurrency) = (2000, 0, 16);
        let common = flags::parse(args, |flag| {
            match flag.name() {
                "--observations" => observations = flag.number::<u64>()?.clamp(1, 1_000_000),
                "--latency-ms" => latency_ms = flag.number::<u64>()?.min(60_000),
                "--concurrency" => concurrency = flag.number::<u64>()?.clamp(1, 1000),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(Self { common, observations, latency_ms, concurrency })
    }
}

pub async fn run(options: Options) -> anyhow::Result<()> {
    let extra = [
        ("ENCRYPTION_KEY", ENCRYPTION_KEY.to_owned()),
        ("LANGFUSE_OUTBOUND_ALLOWED_HOSTS", "127.0.0.1".to_owned()),
        ("LANGFUSE_EVAL_MAX_CONCURRENCY_PER_PROJECT", options.concurrency.to_string()),
    ];
    let keys = ("evaluators-bench", PUBLIC_KEY, SECRET_KEY);
    let (env, database) = isolated(&options.common.stack_env, "evaluators", keys, &extra).await?;
    let outcome = measure(&options, &env).await;
    drop_isolated(&options.common.stack_env, &env, &database).await;
    outcome
}

/// OTLP/JSON: spans `first..first + count` named `bench`, each in its own trace.
fn spans(first: u64, count: u64) -> Value {
    let now = chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default();
    let attribute = |key: &str, value: String| json!({"key": key, "value": {"stringValue": value}});
    let spans: Vec<Value> = (first..first + count)
        .map(|i| {
            json!({"traceId": format!("{:032x}", i + 1), "spanId": format!("{:016x}", i + 1), "name": "bench",
                   "startTimeUnixNano": now.to_string(), "endTimeUnixNano": (now + 1_000_000).to_string(),
                   "attributes": [attribute("langfuse.observation.type", "generation".into()),
                                  attribute("langfuse.observation.input", format!("question {i}")),
                                  attribute("langfuse.observation.output", format!("answer {i}"))]})
        })
        .collect();
    json!({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "bench"}, "spans": spans}]}]})
}

async fn send(
    client: &reqwest::Client,
    url: &str,
    auth: &str,
    path: &str,
    body: &Value,
) -> anyhow::Result<Value> {
    let method = if path.ends_with("llm-connections") { reqwest::Method::PUT } else { reqwest::Method::POST };
    let response = client
        .request(method, format!("{url}{path}"))
        .header("Authorization", auth)
        .json(body)
        .send()
        .await?;
    let status = response.status();
    let answer: Value = response.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        bail!("{path}: {status} {answer}");
    }
    Ok(answer)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(index).copied().unwrap_or(f64::NAN)
}

async fn measure(options: &Options, env: &BTreeMap<String, String>) -> anyhow::Result<()> {
    let stub = LlmStub::start().await;
    stub.set_default(StubReply::json(json!({"score": 1, "reasoning": "Fine"})));
    if options.latency_ms > 0 {
        let wait = Duration::from_millis(options.latency_ms);
        stub.respond_with(move |_| StubReply::Hang(wait));
    }
    let client = reqwest::Client::new();
    let temp = std::env::temp_dir();
    let web_log = temp.join("loupe-bench-evaluators-web.log");
    let mut web = Running::start(&options.common.bin_dir.join("web"), env, free_port()?, web_log).await?;
    web.wait_healthy(&client, "/api/public/health").await.context("web")?;
    let worker_log = temp.join("loupe-bench-evaluators-worker.log");
    let mut worker =
        Running::start(&options.common.bin_dir.join("worker"), env, free_port()?, worker_log).await?;
    worker.wait_healthy(&client, "/api/health").await.context("worker")?;
    let credentials = base64::engine::general_purpose::STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}"));
    let auth = format!("Basic {credentials}");

    let connection = json!({"provider": "stub", "adapter": "openai", "secretKey": "sk-bench",
                            "baseURL": stub.openai_base_url()});
    send(&client, &web.url, &auth, "/api/public/llm-connections", &connection).await?;
    let evaluator = json!({"type": "llm_as_judge", "name": "Bench", "prompt": "Rate {{output}} for {{input}}",
                           "modelConfig": {"provider": "stub", "model": "judge"},
                           "variableMapping": [{"variable": "input", "source": "input"},
                                               {"variable": "output", "source": "output"}],
                           "outputDefinition": {"dataType": "NUMERIC"}});
    let evaluator = send(&client, &web.url, &auth, "/api/public/v2/evaluators", &evaluator).await?;
    let filter =
        json!([{"type": "stringOptions", "column": "name", "operator": "any of", "value": ["bench"]}]);
    let rule = json!({"name": "bench", "enabled": true, "filter": filter,
                      "evaluatorAssignments": [{"evaluatorId": evaluator["id"]}]});
    send(&client, &web.url, &auth, "/api/public/v2/evaluation-rules", &rule).await?;

    let started = Instant::now();
    let cpu_before = worker.cpu_seconds();
    let mut accepted: HashMap<String, Instant> = HashMap::new();
    let mut first = 0;
    while first < options.observations {
        let count = BATCH.min(options.observations - first);
        let sent = client
            .post(format!("{}/api/public/otel/v1/traces", web.url))
            .header("Authorization", &auth)
            .header("Content-Type", "application/json")
            .body(spans(first, count).to_string())
            .send()
            .await?;
        if !sent.status().is_success() {
            bail!("sending spans: {}", sent.status());
        }
        let at = Instant::now();
        accepted.extend((first..first + count).map(|i| (format!("{:016x}", i + 1), at)));
        first += count;
    }
    let sent_in = started.elapsed().as_secs_f64();

    // Scores become readable in ClickHouse; each is timed when this loop first sees it.
    let ch =
        clickhouse::Client::default().with_url(&env["CLICKHOUSE_URL"]).with_database(&env["CLICKHOUSE_DB"]);
    let ch = match (env.get("CLICKHOUSE_USER"), env.get("CLICKHOUSE_PASSWORD")) {
        (Some(user), Some(password)) => ch.with_user(user).with_password(password),
        _ => ch,
    };
    let mut visible: HashMap<String, Instant> = HashMap::new();
    let deadline = Instant::now() + Duration::from_secs(600 + options.observations / 10);
    while (visible.len() as u64) < options.observations {
        if Instant::now() > deadline {
            bail!("only {} of {} scores after the deadline", visible.len(), options.observations);
        }
        let ids: Vec<String> = ch
            .query("SELECT DISTINCT ifNull(observation_id, '') FROM scores WHERE source = 'EVAL' AND name = 'Bench'")
            .fetch_all()
            .await?;
        let now = Instant::now();
        for id in ids {
            visible.entry(id).or_insert(now);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let seconds = started.elapsed().as_secs_f64();
    let cpu = worker.cpu_seconds().zip(cpu_before).map(|(after, before)| after - before);
    let mut latencies: Vec<f64> = visible
        .iter()
        .filter_map(|(id, seen)| Some(seen.duration_since(*accepted.get(id)?).as_secs_f64()))
        .collect();
    latencies.sort_by(f64::total_cmp);
    let (errors,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM evaluation_executions WHERE status = 'error'")
            .fetch_one(&sqlx::PgPool::connect(&env["DATABASE_URL"]).await?)
            .await?;
    println!(
        "evaluators benchmark: {} observations, judge latency {} ms, at most {} executions at once",
        options.observations, options.latency_ms, options.concurrency
    );
    println!("  sent              in {sent_in:.2} s ({BATCH} spans per request)");
    println!(
        "  all scored        in {seconds:.2} s = {:.1} executions/s ({errors} errors, {} judge calls)",
        options.observations as f64 / seconds,
        stub.requests().len()
    );
    println!(
        "  accepted → score  p50 {:.2} s, p99 {:.2} s, max {:.2} s",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies.last().copied().unwrap_or(f64::NAN)
    );
    if let Some(cpu) = cpu {
        println!("  worker CPU        {cpu:.2} s ({:.0}% of a core)", cpu / seconds * 100.0);
    }
    if let Some(rss) = worker.peak_rss_mb() {
        println!("  worker peak RSS   {rss:.0} MB");
    }
    Ok(())
}
