//! `loupe-bench blob`: the object store's own PUT latency at a fixed rate, through the client web
//! uses (`storage::blob::BlobStore`) and with nothing else of Loupe running. It is the floor under
//! web's acknowledgement latency with that store (a request is acknowledged after its blob PUT and
//! a stream append), so `ingest`'s figures can be split into what the store takes and what is ours.

use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::StreamExt;
use object_store::ObjectStoreExt;
use object_store::path::Path;

use domain::config::{Config, Role};
use storage::blob::BlobStore;

use crate::ingest::print_latency;
use crate::processes::{RunEnv, cpu_seconds_of, run_env};

pub struct Options {
    stack_env: std::path::PathBuf,
    rate: u64,
    seconds: u64,
    /// Bytes per object: about one `ingest` export of 5 spans by default.
    bytes: usize,
    /// PUTs in flight at most (web's group commit keeps 4 writers).
    concurrency: usize,
    /// The object store's process, to report the CPU it spent per PUT.
    server_pid: Option<u32>,
}

impl Options {
    pub fn from_args(args: impl Iterator<Item = String>) -> anyhow::Result<Self> {
        let (mut rate, mut seconds, mut bytes, mut concurrency) = (1_000u64, 5u64, 5_000usize, 64usize);
        let mut server_pid = None;
        let common = crate::flags::parse(args, |flag| {
            match flag.name() {
                "--rate" => rate = flag.number::<u64>()?.max(1),
                "--seconds" => seconds = flag.number()?,
                "--bytes" => bytes = flag.number()?,
                "--concurrency" => concurrency = flag.number::<usize>()?.max(1),
                "--server-pid" => server_pid = Some(flag.number()?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(Self { stack_env: common.stack_env, rate, seconds, bytes, concurrency, server_pid })
    }
}

pub async fn run(options: Options) -> anyhow::Result<()> {
    let RunEnv { env, run_id, database } =
        run_env(&options.stack_env, "blobfloor", ("bench", "pk-lf-bench", "sk-lf-bench"))?;
    let config = Config::from_env_vars(Role::Web, env.clone())
        .map_err(|e| anyhow::anyhow!("the run's settings: {:?}", e.problems))?;
    let blobs = BlobStore::connect(&config.blob)?;
    println!(
        "blob PUT floor: {} B objects at {} PUT/s for {} s, at most {} in flight, into {}",
        options.bytes, options.rate, options.seconds, options.concurrency, blobs.location
    );
    // One PUT first, so the store's lazy setup (a volume grown for a new bucket) is not measured.
    let warm = Path::from(format!("{run_id}/warm-up"));
    blobs.store().put(&warm, Bytes::from(vec![b'x'; options.bytes]).into()).await?;

    let cpu_before = options.server_pid.and_then(cpu_seconds_of);
    let count = options.rate * options.seconds;
    let started = Instant::now();
    let outcomes: Vec<Result<(Duration, Duration), String>> = futures::stream::iter(0..count)
        .map(|i| {
            let (blobs, bytes, rate) = (blobs.clone(), options.bytes, options.rate);
            async move {
                let due = started + Duration::from_secs_f64(i as f64 / rate as f64);
                tokio::time::sleep_until(due.into()).await;
                // Distinct bytes per object, as every export is.
                let mut body = vec![b'x'; bytes];
                body[..8.min(bytes)].copy_from_slice(&i.to_le_bytes()[..8.min(bytes)]);
                let sent = Instant::now();
                let location = Path::from(format!("{run_id}/{i}"));
                match blobs.store().put(&location, Bytes::from(body).into()).await {
                    Ok(_) => Ok((sent.elapsed(), due.elapsed())),
                    Err(e) => Err(e.to_string()),
                }
            }
        })
        .buffer_unordered(options.concurrency)
        .collect()
        .await;
    let elapsed = started.elapsed().as_secs_f64();
    let server_cpu = options.server_pid.and_then(cpu_seconds_of).zip(cpu_before).map(|(b, a)| b - a);

    let mut latencies = Vec::new();
    let mut failed = Vec::new();
    for outcome in outcomes {
        match outcome {
            Ok(latency) => latencies.push(latency),
            Err(e) => failed.push(e),
        }
    }
    println!("  {} of {count} stored, at {:.0} PUT/s", latencies.len(), latencies.len() as f64 / elapsed);
    if let Some(first) = failed.first() {
        println!("  ({} failed; the first: {first})", failed.len());
    }
    let (from_send, from_due): (Vec<_>, Vec<_>) = latencies.into_iter().unzip();
    print_latency("  PUT from send  ", from_send);
    print_latency("  PUT from due   ", from_due);
    if let Some(cpu) = server_cpu {
        println!(
            "  store CPU       {cpu:.2} s = {:.0} % of a core, {:.0} µs per PUT",
            cpu / elapsed * 100.0,
            cpu * 1e6 / count.max(1) as f64
        );
    }
    crate::leftovers::remove(&env, &database).await;
    Ok(())
}
