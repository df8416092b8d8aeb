//! The ingestion benchmark (issue: `just bench ingest`).
//!
//! Phase 1, throughput: `concurrency` connections send `requests` exports of `spans` spans as
//! fast as they are acknowledged; then it waits until every span is in `events_full`.
//! Phase 2, latency under fixed rates: each of `rates` requests/s for `seconds`, acknowledgement
//! latency from when each request was sent and from when it was due, so a server that cannot keep
//! up shows it (measuring from the send alone hides the requests that queued in the client).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use futures::StreamExt;

use crate::flags::{self, Common};
use crate::leftovers;
use crate::machine::CpuSnapshot;
use crate::processes::{RunEnv, Running, free_port, run_env};

pub struct Options {
    common: Common,
    requests: u64,
    spans: u64,
    concurrency: usize,
    rates: Vec<u64>,
    seconds: u64,
    /// `s3` (the stack's SeaweedFS) or `local` (a directory), to see what blob storage costs.
    blob: String,
    /// `--env KEY=VALUE` settings for both binaries, to measure a tuning.
    settings: Vec<(String, String)>,
}

impl Options {
    pub fn from_args(args: impl Iterator<Item = String>) -> anyhow::Result<Self> {
        let (mut requests, mut spans, mut concurrency, mut seconds) = (3_000, 100, 32, 5);
        let (mut rates, mut blob, mut settings) = (vec![200, 2_000], "s3".to_owned(), Vec::new());
        let common = flags::parse(args, |flag| {
            match flag.name() {
                "--blob" => blob = flag.text(),
                "--env" => settings.push(flag.setting()?),
                "--rate" => rates = flag.numbers()?,
                "--requests" => requests = flag.number()?,
                "--spans" => spans = flag.number()?,
                "--concurrency" => concurrency = flag.number()?,
                "--seconds" => seconds = flag.number()?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(Self { common, requests, spans, concurrency, rates, seconds, blob, settings })
    }
}

const SPANS_PER_TRACE: u64 = 5;
const PUBLIC_KEY: &str = "pk-lf-bench";
const SECRET_KEY: &str = "sk-lf-bench";

pub async fn run(options: Options) -> anyhow::Result<()> {
    let RunEnv { mut env, run_id, database } =
        run_env(&options.common.stack_env, "bench", ("bench", PUBLIC_KEY, SECRET_KEY))?;
    for (k, v) in [
        ("LANGFUSE_LOG_LEVEL", "warn,ingestion::process=debug,ingestion::accept=debug"),
        // The benchmark measures speed, not back-pressure: let the backlog grow.
        ("LANGFUSE_INGESTION_QUEUE_MAX_DEPTH", "1000000"),
    ] {
        env.insert(k.to_owned(), v.to_owned());
    }
    env.extend(options.settings.iter().cloned());
    if options.blob == "local" {
        env.retain(|k, _| !k.starts_with("LANGFUSE_S3_EVENT_UPLOAD_"));
        let dir = std::env::temp_dir().join(format!("loupe-bench-blobs-{run_id}"));
        env.insert("LANGFUSE_EVENT_UPLOAD_LOCAL_DIR".into(), dir.display().to_string());
    }
    let outcome = measure(&options, &env, &database, run_id).await;
    leftovers::remove(&env, &database).await;
    outcome
}

async fn measure(
    options: &Options,
    env: &BTreeMap<String, String>,
    database: &str,
    run_id: u64,
) -> anyhow::Result<()> {
    let bin = &options.common.bin_dir;
    let logs = std::env::temp_dir();
    let client = reqwest::Client::builder().pool_max_idle_per_host(options.concurrency).build()?;
    let mut web =
        Running::start(&bin.join("web"), env, free_port()?, logs.join("loupe-bench-web.log")).await?;
    web.wait_healthy(&client, "/api/public/health").await.context("web")?;
    let mut worker =
        Running::start(&bin.join("worker"), env, free_port()?, logs.join("loupe-bench-worker.log")).await?;
    worker.wait_healthy(&client, "/api/health").await.context("worker")?;
    let clickhouse = clickhouse::Client::default().with_url(&env["CLICKHOUSE_URL"]).with_database(database);

    let traces_per_request = (options.spans / SPANS_PER_TRACE).max(1);
    let spans_per_request = traces_per_request * SPANS_PER_TRACE;
    let sample = test_support::otlp::export_bytes(run_id, 0, traces_per_request, SPANS_PER_TRACE);
    println!(
        "ingest benchmark: {} requests x {spans_per_request} spans ({:.1} KB/span protobuf), concurrency {}, blobs {}",
        options.requests,
        sample.len() as f64 / spans_per_request as f64 / 1024.0,
        options.concurrency,
        options.blob
    );

    // Phase 1: throughput. CPU is counted from here: start-up (migrations, caches, connections)
    // is a fixed cost of the process, not of the spans.
    let cpu_at_start = (web.cpu_seconds(), worker.cpu_seconds());
    let started = Instant::now();
    let latencies = send_all(
        &client,
        &web.url,
        run_id,
        0,
        options.requests,
        traces_per_request,
        options.concurrency,
        None,
    )
    .await;
    let accept_seconds = started.elapsed().as_secs_f64();
    let total_spans = options.requests * spans_per_request;
    let accepted = latencies.len() as u64 * spans_per_request;
    println!(
        "  accepted        {accepted} spans in {accept_seconds:.2} s = {:.0} spans/s ({:.0} requests/s)",
        accepted as f64 / accept_seconds,
        latencies.len() as f64 / accept_seconds
    );
    print_latency("  ack latency    ", latencies.into_iter().map(|(sent, _)| sent).collect());
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let stored: u64 = clickhouse.query("SELECT count() FROM events_full").fetch_one().await.unwrap_or(0);
        if stored >= total_spans || Instant::now() > deadline {
            let seconds = started.elapsed().as_secs_f64();
            println!(
                "  end to end      {stored} spans stored in {seconds:.2} s = {:.0} spans/s",
                stored as f64 / seconds
            );
            let per_span = |cpu: Option<f64>| cpu.unwrap_or(0.0) * 1e6 / total_spans as f64;
            let (web_cpu, worker_cpu) = (web.cpu_seconds(), worker.cpu_seconds());
            let since_start = |now: Option<f64>, start: Option<f64>| Some(now? - start?);
            println!(
                "  CPU per span    web {:.1} µs, worker {:.1} µs (the rest of the machine: the stores)",
                per_span(since_start(web_cpu, cpu_at_start.0)),
                per_span(since_start(worker_cpu, cpu_at_start.1))
            );
            println!(
                "    with start-up web {:.1} µs, worker {:.1} µs (the processes' whole CPU time so far)",
                per_span(web_cpu),
                per_span(worker_cpu)
            );
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Phase 2: acknowledgement latency at fixed request rates.
    let mut first = options.requests * traces_per_request;
    for &rate in &options.rates {
        let requests = rate * options.seconds;
        let stages_before = crate::ack_stages::scrape(&client, &web.url).await;
        let cpu_before = CpuSnapshot::take(web.child.id(), worker.child.id());
        let started = Instant::now();
        let latencies = send_all(
            &client,
            &web.url,
            run_id,
            first,
            requests,
            traces_per_request,
            options.concurrency.max(64),
            Some(rate),
        )
        .await;
        let cpu_after = CpuSnapshot::take(web.child.id(), worker.child.id());
        let phase_seconds = started.elapsed().as_secs_f64();
        first += requests * traces_per_request;
        println!(
            "  at {rate} requests/s for {} s: {} of {requests} acknowledged, at {:.0} requests/s",
            options.seconds,
            latencies.len(),
            latencies.len() as f64 / phase_seconds
        );
        let (from_send, from_due): (Vec<_>, Vec<_>) = latencies.into_iter().unzip();
        print_latency("  ack from send  ", from_send);
        print_latency("  ack from due   ", from_due);
        // Where web spent it (its /metrics): the wait for a writer, the blob PUT, the append.
        let stages_after = crate::ack_stages::scrape(&client, &web.url).await;
        for line in crate::ack_stages::describe(&stages_before, &stages_after) {
            println!("    {line}");
        }
        if let (Some(before), Some(after)) = (cpu_before, cpu_after) {
            println!("    {}", after.describe_since(&before, phase_seconds));
        }
    }

    println!(
        "  peak RSS        web {:.0} MB, worker {:.0} MB",
        web.peak_rss_mb().unwrap_or(0.0),
        worker.peak_rss_mb().unwrap_or(0.0)
    );
    // Stopped before the leftovers go, so that nothing writes behind the cleanup.
    web.child.kill().await?;
    worker.child.kill().await?;
    Ok(())
}

/// Sends `count` exports; with `rate`, paces their starts to that many per second. Returns the
/// latencies of the acknowledged ones: from the send, and from when it was due (the same without
/// a rate).
#[allow(clippy::too_many_arguments)]
async fn send_all(
    client: &reqwest::Client,
    url: &str,
    run_id: u64,
    first_trace: u64,
    count: u64,
    traces_per_request: u64,
    concurrency: usize,
    rate: Option<u64>,
) -> Vec<(Duration, Duration)> {
    let endpoint = format!("{url}/api/public/otel/v1/traces");
    let auth = format!("Basic {}", STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}")));
    let failures = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let latencies: Vec<Option<(Duration, Duration)>> = futures::stream::iter(0..count)
        .map(|i| {
            let (client, endpoint, auth, failures) =
                (client.clone(), endpoint.clone(), auth.clone(), failures.clone());
            async move {
                let due = match rate {
                    Some(rate) => {
                        let due = started + Duration::from_secs_f64(i as f64 / rate as f64);
                        tokio::time::sleep_until(due.into()).await;
                        due
                    }
                    None => Instant::now(),
                };
                let body = Bytes::from(test_support::otlp::export_bytes(
                    run_id,
                    first_trace + i * traces_per_request,
                    traces_per_request,
                    SPANS_PER_TRACE,
                ));
                let sent = Instant::now();
                let response = client
                    .post(&endpoint)
                    .header("Authorization", auth)
                    .header("Content-Type", "application/x-protobuf")
                    .body(body)
                    .send()
                    .await;
                match response {
                    Ok(r) if r.status().is_success() => Some((sent.elapsed(), due.elapsed())),
                    _ => {
                        failures.fetch_add(1, Ordering::Relaxed);
                        None
                    }
                }
            }
        })
        .buffer_unordered(concurrency)
        .collect()
        .await;
    let failed = failures.load(Ordering::Relaxed);
    if failed > 0 {
        println!("  ({failed} requests not acknowledged)");
    }
    latencies.into_iter().flatten().collect()
}

pub fn print_latency(label: &str, mut latencies: Vec<Duration>) {
    if latencies.is_empty() {
        println!("{label}no acknowledged requests");
        return;
    }
    latencies.sort();
    let at = |q: f64| percentile(&latencies, q).as_secs_f64() * 1000.0;
    println!("{label}p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms", at(0.5), at(0.99), at(1.0));
}

/// The latency at quantile `q` of latencies sorted ascending (zero when there are none).
pub fn percentile(sorted: &[Duration], q: f64) -> Duration {
    let index = ((sorted.len() as f64 * q) as usize).min(sorted.len().saturating_sub(1));
    sorted.get(index).copied().unwrap_or_default()
}
