//! `loupe-bench prompts`: SDKs fetch prompts at runtime, often on every request their application
//! serves, so a prompt read is on the hot path. Starts web (release build) on the dev stack, creates
//! `--prompts` names with three versions each (labels moving between them) plus prompts that
//! reference others, then measures reads by label, reads that resolve references, and list pages.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use base64::Engine;
use futures::StreamExt;
use serde_json::json;

use crate::flags::{self, Common};
use crate::ingest::print_latency;
use crate::processes::{Running, free_port, stack_env};

pub struct Options {
    common: Common,
    prompts: u64,
    requests: u64,
    concurrency: usize,
}

impl Options {
    pub fn from_args(args: impl Iterator<Item = String>) -> anyhow::Result<Self> {
        let (mut prompts, mut requests, mut concurrency) = (1_000, 20_000, 32);
        let common = flags::parse(args, |flag| {
            match flag.name() {
                "--prompts" => prompts = flag.number()?,
                "--requests" => requests = flag.number()?,
                "--concurrency" => concurrency = flag.number()?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(Self { common, prompts, requests, concurrency })
    }
}

struct Api {
    client: reqwest::Client,
    url: String,
    authorization: String,
}

impl Api {
    async fn post(&self, body: serde_json::Value) -> anyhow::Result<()> {
        let response = self
            .client
            .post(format!("{}/api/public/v2/prompts", self.url))
            .header("Authorization", &self.authorization)
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .send()
            .await?;
        if !response.status().is_success() {
            bail!("creating a prompt: {} {}", response.status(), response.text().await?);
        }
        Ok(())
    }

    /// GETs each path `concurrency` at a time; every answer must be 200. Returns the latencies.
    async fn read_all(
        self: &Arc<Self>,
        paths: Vec<String>,
        concurrency: usize,
    ) -> anyhow::Result<(Vec<Duration>, f64)> {
        let started = Instant::now();
        let results: Vec<anyhow::Result<Duration>> = futures::stream::iter(paths)
            .map(|path| {
                let api = Arc::clone(self);
                async move {
                    let sent = Instant::now();
                    let response = api
                        .client
                        .get(format!("{}{path}", api.url))
                        .header("Authorization", &api.authorization)
                        .send()
                        .await?;
                    let status = response.status();
                    let _ = response.bytes().await?;
                    if !status.is_success() {
                        bail!("GET {path}: {status}");
                    }
                    Ok(sent.elapsed())
                }
            })
            .buffer_unordered(concurrency)
            .collect()
            .await;
        let seconds = started.elapsed().as_secs_f64();
        Ok((results.into_iter().collect::<anyhow::Result<Vec<_>>>()?, seconds))
    }
}

pub async fn run(options: Options) -> anyhow::Result<()> {
    let mut env = stack_env(&options.common.stack_env)?;
    let run_id = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_secs();
    let (public_key, secret_key) = (format!("pk-lf-prompt-bench-{run_id}"), "sk-lf-prompt-bench");
    let project = format!("prompt-bench-{run_id}");
    for (k, v) in [
        ("LANGFUSE_LISTEN_ADDRESS", "127.0.0.1"),
        ("LANGFUSE_INIT_ORG_ID", "bench"),
        ("LANGFUSE_INIT_PROJECT_ID", project.as_str()),
        ("LANGFUSE_INIT_PROJECT_PUBLIC_KEY", public_key.as_str()),
        ("LANGFUSE_INIT_PROJECT_SECRET_KEY", secret_key),
        ("LANGFUSE_OTEL_GRPC_PORT", &free_port()?.to_string()),
        ("LANGFUSE_LOG_LEVEL", "warn"),
    ] {
        env.insert(k.to_owned(), v.to_owned());
    }
    let client = reqwest::Client::builder().pool_max_idle_per_host(options.concurrency).build()?;
    let log = std::env::temp_dir().join("loupe-bench-prompts-web.log");
    let mut web = Running::start(&options.common.bin_dir.join("web"), &env, free_port()?, log).await?;
    web.wait_healthy(&client, "/api/public/health").await.context("web")?;
    let credentials = base64::engine::general_purpose::STANDARD.encode(format!("{public_key}:{secret_key}"));
    let api = Arc::new(Api { client, url: web.url.clone(), authorization: format!("Basic {credentials}") });

    let started = Instant::now();
    for i in 0..options.prompts {
        for version in 1..=3 {
            let labels = if version == 2 { json!(["production"]) } else { json!([]) };
            let body = json!({"name": format!("bench/prompt-{i}"), "prompt": format!("Version {version} of prompt {i}: answer {{{{question}}}}"),
                              "labels": labels, "config": {"model": "gpt-4o-mini", "temperature": 0.2}});
            api.post(body).await?;
        }
    }
    for i in 0..options.prompts.min(100) {
        let text =
            format!("Shared rules: @@@langfusePrompt:name=bench/prompt-{i}|label=production@@@ Now answer.");
        api.post(json!({"name": format!("bench/composed-{i}"), "prompt": text, "labels": ["production"]}))
            .await?;
    }
    let created = options.prompts * 3 + options.prompts.min(100);
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "prompts benchmark: {created} prompt versions created one at a time in {seconds:.1} s = {:.0}/s",
        created as f64 / seconds
    );

    let by_label: Vec<String> = (0..options.requests)
        .map(|n| format!("/api/public/v2/prompts/bench%2Fprompt-{}", n % options.prompts))
        .collect();
    let (latencies, seconds) = api.read_all(by_label, options.concurrency).await?;
    println!(
        "  get by label    {} reads at concurrency {} in {seconds:.2} s = {:.0} reads/s",
        latencies.len(),
        options.concurrency,
        latencies.len() as f64 / seconds
    );
    print_latency("  get by label    ", latencies);

    let composed = options.prompts.min(100);
    let resolving: Vec<String> = (0..options.requests / 4)
        .map(|n| format!("/api/public/v2/prompts/bench%2Fcomposed-{}", n % composed))
        .collect();
    let (latencies, seconds) = api.read_all(resolving, options.concurrency).await?;
    println!(
        "  get resolving   {} reads in {seconds:.2} s = {:.0} reads/s",
        latencies.len(),
        latencies.len() as f64 / seconds
    );
    print_latency("  get resolving   ", latencies);

    let pages: Vec<String> =
        (0..500).map(|n| format!("/api/public/v2/prompts?limit=50&page={}", n % 20 + 1)).collect();
    let (latencies, seconds) = api.read_all(pages, options.concurrency.min(8)).await?;
    println!(
        "  list page (50)  {} reads in {seconds:.2} s = {:.0} reads/s",
        latencies.len(),
        latencies.len() as f64 / seconds
    );
    print_latency("  list page (50)  ", latencies);
    if let Some(rss) = web.peak_rss_mb() {
        println!("  web peak RSS    {rss:.0} MB");
    }
    Ok(())
}
