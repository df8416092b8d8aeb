//! `loupe-bench freshness`: how long after its acknowledgement a span, and a score, can be read
//! back (issue: a span readable 100 ms after it is acknowledged).
//!
//! Starts web and worker (release builds) with a database of their own, then, one sample at a
//! time, sends a one-span OTLP export and a score (legacy batch `score-create`) and polls a read
//! that should show them until it does, recording acknowledgement → visible: Observations v2 and
//! Scores v3 (v4 reads, unless the write mode is `legacy`), and the v1 trace and
//! `GET /api/public/v2/scores/{id}` (reads over the v3 tables, unless it is `events_only`).
//! Each sample polls one read, the reads taking turns, and sends only what that read shows (the
//! issue's probe: send one span, poll Observations v2 by its trace id; the same for a score), as a
//! client waiting for its data does: pollers of other reads, and the inserts of the other item,
//! would take the engine's CPU from the insert waited for, on a machine of two cores that also
//! runs web, worker and the bench. `--poll all` sends both and polls every read in
//! every sample instead (`--poll one` is the default). `--samples N` is per read.
//! `--load N` adds background traffic of N spans/s (100-span exports, paced) during the samples.
//! One sample of every read goes first as a warm-up, printed apart and not counted (`measure`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use prost::Message;
use serde_json::json;

use crate::flags::{self, Common};
use crate::ingest::print_latency;
use crate::leftovers;
use crate::processes::{RunEnv, Running, free_port, run_env};

pub struct Options {
    common: Common,
    samples: u64,
    /// Every read polled in every sample, rather than one read per sample.
    together: bool,
    /// Background spans per second while sampling (0: an idle server).
    load: u64,
    settings: Vec<(String, String)>,
}

impl Options {
    pub fn from_args(args: impl Iterator<Item = String>) -> anyhow::Result<Self> {
        let (mut samples, mut load, mut settings, mut together) = (100, 0, Vec::new(), false);
        let common = flags::parse(args, |flag| {
            match flag.name() {
                "--env" => settings.push(flag.setting()?),
                "--samples" => samples = flag.number()?,
                "--load" => load = flag.number()?,
                "--poll" => {
                    together = match flag.text().as_str() {
                        "one" => false,
                        "all" => true,
                        other => anyhow::bail!("--poll takes one or all, got {other}"),
                    }
                }
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(Self { common, samples, together, load, settings })
    }
}

const PUBLIC_KEY: &str = "pk-lf-fresh";
const SECRET_KEY: &str = "sk-lf-fresh";
/// Spans per background export under `--load`.
const LOAD_SPANS: u64 = 100;
/// Pause between two polls of one read, so the probe does not crowd out the insert it waits for.
const POLL_PAUSE: Duration = Duration::from_millis(5);

pub async fn run(options: Options) -> anyhow::Result<()> {
    let RunEnv { mut env, run_id, database } =
        run_env(&options.common.stack_env, "fresh", ("fresh", PUBLIC_KEY, SECRET_KEY))?;
    env.insert("LANGFUSE_INGESTION_QUEUE_MAX_DEPTH".into(), "1000000".into());
    env.extend(options.settings.iter().cloned());
    let outcome = measure(&options, &env, run_id).await;
    leftovers::remove(&env, &database).await;
    outcome
}

/// The reads a sample waits on, by name, each with the URL that shows the sample once stored.
struct Reads {
    v4: bool,
    v1: bool,
}

impl Reads {
    fn of(write_mode: &str) -> Self {
        Self { v4: write_mode != "legacy", v1: write_mode != "events_only" }
    }

    /// The reads the write mode serves, each with the URL that shows `sample`'s span or score.
    fn for_sample(&self, base: &str, sample: &Sample) -> Vec<Read> {
        let (trace, score) = (&sample.trace, &sample.score);
        [
            (
                self.v4,
                "span: v2 observations",
                Item::Span,
                format!("{base}/api/public/v2/observations?traceId={trace}"),
            ),
            (
                self.v4,
                "score: v3 scores",
                Item::Score,
                format!("{base}/api/public/v3/scores?traceId={trace}"),
            ),
            (self.v1, "span: v1 trace", Item::Span, format!("{base}/api/public/traces/{trace}")),
            (self.v1, "score: v2 score by id", Item::Score, format!("{base}/api/public/v2/scores/{score}")),
        ]
        .into_iter()
        .filter(|(served, ..)| *served)
        .map(|(_, name, item, url)| Read { name, item, url })
        .collect()
    }
}

/// What a read shows: the sample's span or its score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Span,
    Score,
}

struct Read {
    name: &'static str,
    item: Item,
    url: String,
}

/// Sample `n`'s ids and its one-span export, made before anything is sent: the reads to poll, and
/// so what to send, are chosen from them.
struct Sample {
    trace: String,
    score: String,
    export: Vec<u8>,
}

impl Sample {
    fn new(run: u64, n: u64) -> Self {
        let export = test_support::otlp::export(run, n, 1, 1);
        let trace = export.resource_spans[0].scope_spans[0].spans[0]
            .trace_id
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Self { trace, score: format!("fresh-score-{run}-{n}"), export: export.encode_to_vec() }
    }
}

/// What one sample's sends took: when the last acknowledgement came, and each acknowledgement's
/// latency (`None`: not sent).
struct Sent {
    acked: Instant,
    span_ack: Option<Duration>,
    score_ack: Option<Duration>,
}

struct Probe {
    client: reqwest::Client,
    base: String,
    auth: String,
}

impl Probe {
    /// Sends the sample's span, its score or both, one after the other.
    async fn send(&self, sample: &Sample, n: u64, items: &[Item]) -> anyhow::Result<Sent> {
        let span_ack =
            if items.contains(&Item::Span) { Some(self.send_span(&sample.export, n).await?) } else { None };
        let score_ack = if items.contains(&Item::Score) {
            Some(self.send_score(&sample.trace, &sample.score, n).await?)
        } else {
            None
        };
        Ok(Sent { acked: Instant::now(), span_ack, score_ack })
    }

    async fn send_span(&self, export: &[u8], n: u64) -> anyhow::Result<Duration> {
        let sent = Instant::now();
        let span = self
            .client
            .post(format!("{}/api/public/otel/v1/traces", self.base))
            .header("Authorization", &self.auth)
            .header("Content-Type", "application/x-protobuf")
            .body(export.to_vec())
            .send()
            .await?;
        let ack = sent.elapsed();
        if !span.status().is_success() {
            bail!("span {n} not accepted: {}", span.status());
        }
        Ok(ack)
    }

    async fn send_score(&self, trace: &str, score: &str, n: u64) -> anyhow::Result<Duration> {
        let batch = json!({"batch": [{
            "id": format!("event-{score}"), "type": "score-create",
            "timestamp": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "body": {"id": score, "traceId": trace, "name": "freshness", "value": 1.0}
        }]});
        let sent = Instant::now();
        let scored = self
            .client
            .post(format!("{}/api/public/ingestion", self.base))
            .header("Authorization", &self.auth)
            .header("Content-Type", "application/json")
            .body(serde_json::to_vec(&batch)?)
            .send()
            .await?;
        let ack = sent.elapsed();
        let status = scored.status();
        let body: serde_json::Value = serde_json::from_slice(&scored.bytes().await?).unwrap_or_default();
        if !status.is_success() || body["errors"].as_array().is_some_and(|e| !e.is_empty()) {
            bail!("score {n} not accepted: {status} {body}");
        }
        Ok(ack)
    }

    /// Polls `url` until it answers 200 with something in it; the time from `acked`.
    async fn visible(&self, url: &str, acked: Instant) -> anyhow::Result<Duration> {
        let deadline = acked + Duration::from_secs(60);
        loop {
            let response = self.client.get(url).header("Authorization", &self.auth).send().await?;
            if response.status().is_success() {
                let body: serde_json::Value = serde_json::from_slice(&response.bytes().await?)?;
                let listed = body.get("data").and_then(|d| d.as_array());
                if listed.is_none_or(|rows| !rows.is_empty()) {
                    return Ok(acked.elapsed());
                }
            }
            if Instant::now() > deadline {
                bail!("{url} shows nothing 60 s after the acknowledgement");
            }
            tokio::time::sleep(POLL_PAUSE).await;
        }
    }
}

async fn measure(options: &Options, env: &BTreeMap<String, String>, run_id: u64) -> anyhow::Result<()> {
    let bin = &options.common.bin_dir;
    let logs = std::env::temp_dir();
    let client = reqwest::Client::builder().pool_max_idle_per_host(64).build()?;
    let mut web =
        Running::start(&bin.join("web"), env, free_port()?, logs.join("loupe-bench-fresh-web.log")).await?;
    web.wait_healthy(&client, "/api/public/health").await.context("web")?;
    let mut worker =
        Running::start(&bin.join("worker"), env, free_port()?, logs.join("loupe-bench-fresh-worker.log"))
            .await?;
    worker.wait_healthy(&client, "/api/health").await.context("worker")?;
    let write_mode = env.get(domain::config::WRITE_MODE).map_or("events_only", String::as_str);
    let reads = Reads::of(write_mode);
    let auth = format!("Basic {}", STANDARD.encode(format!("{PUBLIC_KEY}:{SECRET_KEY}")));
    let probe = Arc::new(Probe { client: client.clone(), base: web.url.clone(), auth });
    println!(
        "freshness benchmark: {} samples per read, {}, write mode {write_mode}, background load {} spans/s; acknowledgement → visible",
        options.samples,
        if options.together { "every read polled in each sample" } else { "one read polled per sample" },
        options.load
    );

    let stop = Arc::new(AtomicBool::new(false));
    let background = (options.load > 0).then(|| load(&probe, run_id, options.load, &stop));
    if background.is_some() {
        // Let the load settle into its steady state before the first sample.
        tokio::time::sleep(Duration::from_secs(3)).await;
    }
    let mut seen: BTreeMap<&'static str, Vec<Duration>> = BTreeMap::new();
    let mut acks: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    // Taking turns, every read gets `samples` samples: one send per read per sample.
    let read_count = reads.for_sample(&probe.base, &Sample::new(run_id, 0)).len() as u64;
    let sends = if options.together { options.samples } else { options.samples * read_count };
    // The database is new: the engine's first statements on its tables load their metadata and
    // compile their expressions, once, as after a server's restart (up to ~0.8 s here). One sample
    // of every read goes first, shown on a line of its own, so the figures below are the steady
    // state the targets are about.
    let (_, cold) = poll_sample(&probe, &reads, &Sample::new(run_id, sends), sends, None).await?;
    let cold: Vec<String> =
        cold.iter().map(|(name, wait)| format!("{name} {:.0} ms", wait.as_secs_f64() * 1000.0)).collect();
    println!("  warm-up         one sample of every read, not counted: {}", cold.join(", "));
    for n in 0..sends {
        let turn = (!options.together).then_some((n % read_count) as usize);
        let (sent, waits) = poll_sample(&probe, &reads, &Sample::new(run_id, n), n, turn).await?;
        acks[0].extend(sent.span_ack);
        acks[1].extend(sent.score_ack);
        for (name, wait) in waits {
            seen.entry(name).or_default().push(wait);
        }
        // A pause that varies, so samples do not fall into step with anything periodic.
        tokio::time::sleep(Duration::from_millis(20 + (n * 37) % 60)).await;
    }
    stop.store(true, Ordering::Relaxed);
    if let Some(background) = background {
        let (sent, failed) = background.await?;
        println!("  background      {sent} exports acknowledged, {failed} refused");
    }
    print_latency("  ack span       ", std::mem::take(&mut acks[0]));
    print_latency("  ack score      ", std::mem::take(&mut acks[1]));
    for (name, waits) in seen {
        print_latency(&format!("  {name:<24}"), waits);
    }
    println!(
        "  CPU             web {:.2} s, worker {:.2} s",
        web.cpu_seconds().unwrap_or(0.0),
        worker.cpu_seconds().unwrap_or(0.0)
    );
    web.child.kill().await?;
    worker.child.kill().await?;
    Ok(())
}

/// Sends sample `n` (what the polled reads show) and polls those reads until each shows it: every
/// read, or only the `only`-th. Returns the sends and each polled read's wait from the
/// acknowledgement.
async fn poll_sample(
    probe: &Probe,
    reads: &Reads,
    sample: &Sample,
    n: u64,
    only: Option<usize>,
) -> anyhow::Result<(Sent, Vec<(&'static str, Duration)>)> {
    let mut polled = reads.for_sample(&probe.base, sample);
    if let Some(index) = only {
        polled = vec![polled.swap_remove(index)];
    }
    let items: Vec<Item> = polled.iter().map(|read| read.item).collect();
    let sent = probe.send(sample, n, &items).await?;
    let waits =
        futures::future::try_join_all(polled.iter().map(|read| probe.visible(&read.url, sent.acked))).await?;
    Ok((sent, polled.iter().map(|read| read.name).zip(waits).collect()))
}

/// Background exports of [`LOAD_SPANS`] spans, paced to `spans_per_second`, until `stop`; returns
/// how many were acknowledged and refused.
fn load(
    probe: &Arc<Probe>,
    run_id: u64,
    spans_per_second: u64,
    stop: &Arc<AtomicBool>,
) -> tokio::task::JoinHandle<(u64, u64)> {
    let (probe, stop) = (probe.clone(), stop.clone());
    let interval = Duration::from_secs_f64(LOAD_SPANS as f64 / spans_per_second as f64);
    let (sent, failed) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    tokio::spawn(async move {
        let started = Instant::now();
        let mut tasks = Vec::new();
        for n in 0u64.. {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            tokio::time::sleep_until((started + interval * n as u32).into()).await;
            let body = test_support::otlp::export_bytes(
                run_id + 1,
                1_000_000 + n * LOAD_SPANS / 5,
                LOAD_SPANS / 5,
                5,
            );
            let (probe, sent, failed) = (probe.clone(), sent.clone(), failed.clone());
            tasks.push(tokio::spawn(async move {
                let response = probe
                    .client
                    .post(format!("{}/api/public/otel/v1/traces", probe.base))
                    .header("Authorization", &probe.auth)
                    .header("Content-Type", "application/x-protobuf")
                    .body(body)
                    .send()
                    .await;
                let counter = if response.is_ok_and(|r| r.status().is_success()) { sent } else { failed };
                counter.fetch_add(1, Ordering::Relaxed);
            }));
        }
        futures::future::join_all(tasks).await;
        (sent.load(Ordering::Relaxed), failed.load(Ordering::Relaxed))
    })
}
