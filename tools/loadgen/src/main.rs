//! `loupe-bench ingest`: starts web and worker (release builds) against the dev stack with a
//! database of their own, sends LLM-like OTLP traffic, and prints what it measured. Figures are
//! printed, never asserted: speed targets live here, not in the test suite.

mod ingest;
mod processes;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        Some("ingest") => ingest::run(ingest::Options::from_args(args)?).await,
        _ => anyhow::bail!(
            "usage: loupe-bench ingest [--bin-dir DIR] [--blob s3|local] [--requests N] [--spans N] [--concurrency N] [--rate N] [--seconds N]"
        ),
    }
}
