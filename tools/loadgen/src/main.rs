//! `loupe-bench ingest` (and the other subcommands, one file each): starts web and worker (release
//! builds) against a running stack (`--stack-env`, see `flags.rs`) with a database of their own, sends LLM-like OTLP traffic, and prints what it measured. Figures are
//! printed, never asserted: speed targets live here, not in the test suite.

mod ack_stages;
mod blob_floor;
mod evaluators;
mod fairness;
mod flags;
mod freshness;
mod identity;
mod ingest;
mod leftovers;
mod machine;
mod monitors;
mod processes;
mod prompts;

const USAGE: &str = "usage: loupe-bench ingest [COMMON] [--blob s3|local] [--requests N] [--spans N] [--concurrency N] [--rate N,N…] [--seconds N] [--env KEY=VALUE]…
       loupe-bench prompts [COMMON] [--prompts N] [--requests N] [--concurrency N]
       loupe-bench fairness [COMMON] [--canaries N] [--spans N] [--concurrency N] [--poison-every N]
       loupe-bench freshness [COMMON] [--samples N] [--load SPANS_PER_S] [--poll one|all] [--env KEY=VALUE]…
       loupe-bench identity [COMMON] [--requests N] [--concurrency N] [--sign-ins N] [--revocations N]
       loupe-bench monitors [COMMON] [--monitors N] [--interval S] [--seconds S] [--max-per-tick N]
       loupe-bench evaluators [COMMON] [--observations N] [--latency-ms N] [--concurrency N]
       loupe-bench blob [COMMON] [--rate N] [--seconds N] [--bytes N] [--concurrency N] [--server-pid PID]
COMMON: [--bin-dir DIR] (default target/release) [--stack-env FILE] (the stack's env file; default
        $LOUPE_BENCH_STACK_ENV when set, else .local/stack.env, the dev stack)";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    if std::env::args().skip(1).any(|arg| arg == "--help" || arg == "-h") {
        println!("{USAGE}");
        return Ok(());
    }
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
        _ => anyhow::bail!(USAGE),
    }
}
