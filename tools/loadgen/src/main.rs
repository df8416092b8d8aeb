//! `loupe-bench ingest` (and `prompts`, see `prompts.rs`): starts web and worker (release builds) against the dev stack with a
//! database of their own, sends LLM-like OTLP traffic, and prints what it measured. Figures are
//! printed, never asserted: speed targets live here, not in the test suite.

mod ack_stages;
mod blob_floor;
mod evaluators;
mod fairness;
mod freshness;
mod identity;
mod ingest;
mod leftovers;
mod monitors;
mod processes;
mod prompts;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        Some("ingest") => ingest::run(ingest::Options::from_args(args)?).await,
        Some("prompts") => prompts::run(prompts::Options::from_args(args)?).await,
        Some("fairness") => fairness::run(fairness::Options::from_args(args)?).await,
        Some("freshness") => freshness::run(freshness::Options::from_args(args)?).await,
        Some("identity") => identity::run(identity::Options::from_args(args)?).await,
        Some("monitors") => monitors::run(monitors::Options::from_args(args)?).await,
        Some("evaluators") => evaluators::run(evaluators::Options::from_args(args)?).await,
        Some("blob") => blob_floor::run(blob_floor::Options::from_args(args)?).await,
        _ => anyhow::bail!(
            "usage: loupe-bench ingest [--bin-dir DIR] [--blob s3|local] [--requests N] [--spans N] [--concurrency N] [--rate N] [--seconds N]\n       loupe-bench prompts [--bin-dir DIR] [--prompts N] [--requests N] [--concurrency N]\n       loupe-bench fairness [--bin-dir DIR] [--canaries N] [--spans N] [--concurrency N] [--poison-every N]\n       loupe-bench freshness [--bin-dir DIR] [--samples N] [--load SPANS_PER_S] [--env KEY=VALUE]\n       loupe-bench identity [--bin-dir DIR] [--requests N] [--concurrency N] [--sign-ins N] [--revocations N]\n       loupe-bench monitors [--bin-dir DIR] [--stack-env FILE] [--monitors N] [--interval S] [--seconds S] [--max-per-tick N]\n       loupe-bench evaluators [--bin-dir DIR] [--stack-env FILE] [--observations N] [--latency-ms N] [--concurrency N]\n       loupe-bench blob [--rate N] [--seconds N] [--bytes N] [--concurrency N] [--server-pid PID]"
        ),
    }
}
