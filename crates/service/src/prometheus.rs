//! The process's Prometheus recorder: installed once, behind the `metrics` facade every crate records
//! through (`metrics::counter!`, `gauge!`, `histogram!`), and rendered by the binaries' own
//! `GET /metrics` routes (`PrometheusHandle::render`, answered as [`EXPOSITION_CONTENT_TYPE`]). The
//! exporter's HTTP listener is not used: web serves the text on its API port and the worker on its
//! health port, so no third port has to be opened, probed and secured.
//!
//! Until [`install`] runs, every macro is a no-op, so library crates record unconditionally and a
//! binary with `LANGFUSE_METRICS_ENABLED=false` pays nothing. Metric names are written in full where
//! they are recorded (counters end in `_total`, durations in `_seconds`); docs/metrics.md lists them.

use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};

/// What renders the recorder; the binaries keep one in their state.
pub use metrics_exporter_prometheus::PrometheusHandle;

/// The `Content-Type` of a `/metrics` answer: the text exposition format, version 0.0.4, which every
/// Prometheus version scrapes.
pub const EXPOSITION_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Upper bounds of the buckets of every `*_seconds` histogram: from a fast read (5 ms) to an insert
/// retried for a minute.
const SECONDS_BUCKETS: &[f64] = &[0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0];

/// The stages of web's acknowledgement (`loupe_ingestion_accept_*_seconds`) take single
/// milliseconds and their sum has a 25 ms target at 1 k requests/s: finer buckets below 25 ms.
/// (A prefix matcher takes precedence over the `_seconds` suffix.)
const ACCEPT_BUCKETS: &[f64] =
    &[0.001, 0.002, 0.005, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

/// The histogram web times every request in (`bins/web/src/prometheus.rs` records it).
pub const HTTP_REQUEST_DURATION: &str = "loupe_http_request_duration_seconds";

/// web's request durations (`HTTP_REQUEST_DURATION`): most answers take single
/// milliseconds, and the acknowledgement of an ingestion request, the sum of the stages above plus
/// its own handling, has the same 25 ms target; the upper end stays that of every `_seconds`
/// histogram, for long exports. (A full-name matcher takes precedence over prefix and suffix.)
const REQUEST_BUCKETS: &[f64] =
    &[0.001, 0.002, 0.005, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0];

/// How often histogram samples are folded into their buckets between scrapes, so memory stays
/// bounded however rarely (or never) the endpoint is scraped.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

static INSTALLED: OnceLock<Result<PrometheusHandle, String>> = OnceLock::new();

/// Installs the global recorder (first call) and returns the handle that renders it. Later calls
/// return the same handle: the recorder is per process, and tests build several apps in one.
pub fn install() -> anyhow::Result<PrometheusHandle> {
    INSTALLED
        .get_or_init(build)
        .clone()
        .map_err(|error| anyhow::anyhow!("cannot install the metrics recorder: {error}"))
}

fn build() -> Result<PrometheusHandle, String> {
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS_BUCKETS)
        .map_err(|error| error.to_string())?
        .set_buckets_for_metric(Matcher::Prefix("loupe_ingestion_accept_".into()), ACCEPT_BUCKETS)
        .map_err(|error| error.to_string())?
        .set_buckets_for_metric(Matcher::Full(HTTP_REQUEST_DURATION.into()), REQUEST_BUCKETS)
        .map_err(|error| error.to_string())?
        .install_recorder()
        .map_err(|error| error.to_string())?;
    // A thread rather than a task: the recorder outlives any one Tokio runtime (tests start many).
    let upkeep = handle.clone();
    std::thread::Builder::new()
        .name("metrics-upkeep".into())
        .spawn(move || {
            loop {
                std::thread::sleep(UPKEEP_EVERY);
                upkeep.run_upkeep();
            }
        })
        .map_err(|error| format!("cannot start the upkeep thread: {error}"))?;
    Ok(handle)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    #[test]
    fn one_recorder_renders_what_the_facade_records() {
        let first = super::install().unwrap();
        let second = super::install().unwrap();
        metrics::counter!("loupe_test_recorded_total", "label" => "value").increment(2);
        metrics::histogram!("loupe_test_duration_seconds").record(0.02);
        let text = second.render();
        assert_eq!(text, first.render(), "both handles render the one recorder");
        assert!(text.contains("loupe_test_recorded_total{label=\"value\"} 2"), "{text}");
        // `_seconds` histograms have buckets (not summaries): 0.02 falls under 0.025, not 0.01.
        assert!(text.contains("loupe_test_duration_seconds_bucket{le=\"0.01\"} 0"), "{text}");
        assert!(text.contains("loupe_test_duration_seconds_bucket{le=\"0.025\"} 1"), "{text}");
        // The acknowledgement stages have millisecond buckets: 0.0015 falls under 0.002.
        metrics::histogram!("loupe_ingestion_accept_test_seconds").record(0.0015);
        let text = first.render();
        assert!(text.contains("loupe_ingestion_accept_test_seconds_bucket{le=\"0.001\"} 0"), "{text}");
        assert!(text.contains("loupe_ingestion_accept_test_seconds_bucket{le=\"0.002\"} 1"), "{text}");
        // So have web's request durations, up to a minute: 0.012 falls under 0.015, not 0.01.
        metrics::histogram!(super::HTTP_REQUEST_DURATION, "route" => "/t").record(0.012);
        let text = first.render();
        let bucket =
            |le: &str| format!("loupe_http_request_duration_seconds_bucket{{route=\"/t\",le=\"{le}\"}}");
        assert!(text.contains(&format!("{} 0", bucket("0.01"))), "{text}");
        assert!(text.contains(&format!("{} 1", bucket("0.015"))), "{text}");
        assert!(text.contains(&format!("{} 1", bucket("60"))), "{text}");
    }
}
