//! Where web's acknowledgement time goes, read from its `/metrics` histograms (docs/metrics.md):
//! the whole ingestion request as web timed it, from arrival to answer (what the client saw, less
//! the network and the client's own waits), then its stages (`loupe_ingestion_accept_*_seconds`):
//! the wait for a blob writer, the blob PUT and the stream append. `ingest` scrapes before and
//! after a phase and prints the difference.

use std::collections::BTreeMap;

/// One histogram summed over its label sets: cumulative count per upper bound, sum and count.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Histogram {
    /// `(upper bound in seconds, cumulative count)`, ascending; `+Inf` last.
    buckets: Vec<(f64, f64)>,
    sum: f64,
    count: f64,
}

impl Histogram {
    /// The histogram of what was recorded between `earlier` and `self`.
    fn since(&self, earlier: &Histogram) -> Histogram {
        let before = |le: f64| earlier.buckets.iter().find(|(b, _)| *b == le).map_or(0.0, |(_, c)| *c);
        Histogram {
            buckets: self.buckets.iter().map(|&(le, c)| (le, c - before(le))).collect(),
            sum: self.sum - earlier.sum,
            count: self.count - earlier.count,
        }
    }

    /// The upper bound of the bucket the `q` quantile falls in (so "at most this"), in seconds.
    fn quantile_bound(&self, q: f64) -> f64 {
        let wanted = (self.count * q).ceil().max(1.0);
        self.buckets.iter().find(|(_, c)| *c >= wanted).map_or(f64::INFINITY, |(le, _)| *le)
    }
}

/// What one scrape of web showed.
#[derive(Debug, Default, Clone)]
pub struct Snapshot {
    histograms: BTreeMap<String, Histogram>,
    accepted_payloads: f64,
    /// Payloads stored by where (`STORED`): in their queue entries, and as blobs; `None` from a
    /// build before the counter, whose every payload was a blob.
    stored: Option<(f64, f64)>,
}

/// web's request durations, of the ingestion routes only (`INGESTION_ROUTES`, summed under this
/// name by `parse`).
const REQUESTS: &str = "loupe_http_request_duration_seconds";
const INGESTION_ROUTES: [&str; 2] = ["/api/public/ingestion", "/api/public/otel/v1/traces"];
/// One sample per blob write: with the payloads stored as blobs, it gives the payloads per PUT.
const BLOB_WRITES: &str = "loupe_ingestion_accept_blob_write_seconds";
/// Accepted payloads by where they were stored (label `in`: `queue_entry`, `blob`).
const STORED: &str = "loupe_ingestion_accept_stored_payloads_total";

const STAGES: [(&str, &str); 4] = [
    ("handled by web", REQUESTS),
    ("waited for writer", "loupe_ingestion_accept_wait_seconds"),
    ("blob PUT", BLOB_WRITES),
    ("stream append", "loupe_ingestion_accept_queue_append_seconds"),
];

/// Reads the acknowledgement histograms out of a Prometheus text exposition.
pub fn parse(text: &str) -> Snapshot {
    let mut snapshot = Snapshot::default();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((series, value)) = line.rsplit_once(' ') else { continue };
        let Ok(value) = value.parse::<f64>() else { continue };
        let (name, labels) = series.split_once('{').unwrap_or((series, ""));
        if name == "loupe_ingestion_accepted_payloads_total" {
            snapshot.accepted_payloads += value;
            continue;
        }
        if name == STORED {
            let (entries, blobs) = snapshot.stored.get_or_insert((0.0, 0.0));
            match label(labels, "in") {
                Some("queue_entry") => *entries += value,
                _ => *blobs += value,
            }
            continue;
        }
        let ingestion_request = name.starts_with(REQUESTS)
            && label(labels, "route").is_some_and(|route| INGESTION_ROUTES.contains(&route));
        if !name.starts_with("loupe_ingestion_accept_") && !ingestion_request {
            continue;
        }
        if let Some(base) = name.strip_suffix("_bucket") {
            let Some(le) = label(labels, "le") else { continue };
            let le = if le == "+Inf" { f64::INFINITY } else { le.parse().unwrap_or(f64::NAN) };
            let buckets = &mut snapshot.histograms.entry(base.to_owned()).or_default().buckets;
            match buckets.iter_mut().find(|(b, _)| *b == le) {
                Some((_, count)) => *count += value,
                None => {
                    buckets.push((le, value));
                    buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
                }
            }
        } else if let Some(base) = name.strip_suffix("_sum") {
            snapshot.histograms.entry(base.to_owned()).or_default().sum += value;
        } else if let Some(base) = name.strip_suffix("_count") {
            snapshot.histograms.entry(base.to_owned()).or_default().count += value;
        }
    }
    snapshot
}

/// The value of label `key` in a series' label text (`route="/a",le="0.005"}`).
fn label<'a>(labels: &'a str, key: &str) -> Option<&'a str> {
    labels.split(&format!("{key}=\"")).nth(1).and_then(|rest| rest.split('"').next())
}

/// Scrapes web's `/metrics` (an empty snapshot if it cannot: the figures are extra detail).
pub async fn scrape(client: &reqwest::Client, web_url: &str) -> Snapshot {
    match client.get(format!("{web_url}/metrics")).send().await {
        Ok(response) => parse(&response.text().await.unwrap_or_default()),
        Err(_) => Snapshot::default(),
    }
}

/// The lines `ingest` prints for a phase: each stage's count, mean and bucket bounds of p50/p99.
pub fn describe(before: &Snapshot, after: &Snapshot) -> Vec<String> {
    let mut lines = Vec::new();
    let ms = |s: f64| if s.is_finite() { format!("{:.0}", s * 1000.0) } else { "∞".into() };
    for (label, metric) in STAGES {
        let Some(now) = after.histograms.get(metric) else { continue };
        let stage = now.since(before.histograms.get(metric).unwrap_or(&Histogram::default()));
        if stage.count <= 0.0 {
            continue;
        }
        lines.push(format!(
            "{label:<17} n {:.0}, mean {:.1} ms, p50 ≤ {} ms, p99 ≤ {} ms",
            stage.count,
            stage.sum / stage.count * 1000.0,
            ms(stage.quantile_bound(0.5)),
            ms(stage.quantile_bound(0.99)),
        ));
    }
    let (mut as_blobs, stored) = (after.accepted_payloads - before.accepted_payloads, after.stored);
    if let Some((entries, blobs)) = stored {
        let (entries_before, blobs_before) = before.stored.unwrap_or_default();
        let carried = entries - entries_before;
        as_blobs = blobs - blobs_before;
        lines.push(format!("stored            {carried:.0} in their queue entries, {as_blobs:.0} as blobs"));
    }
    let blob_writes = after.histograms.get(BLOB_WRITES).map_or(0.0, |h| h.count)
        - before.histograms.get(BLOB_WRITES).map_or(0.0, |h| h.count);
    if blob_writes > 0.0 {
        lines.push(format!("payloads per PUT  {:.2} (group commit)", as_blobs / blob_writes));
    }
    lines
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    const FIRST: &str = "\
# TYPE loupe_ingestion_accept_blob_write_seconds histogram
loupe_ingestion_accept_blob_write_seconds_bucket{outcome=\"ok\",le=\"0.002\"} 1
loupe_ingestion_accept_blob_write_seconds_bucket{outcome=\"ok\",le=\"0.005\"} 2
loupe_ingestion_accept_blob_write_seconds_bucket{outcome=\"ok\",le=\"+Inf\"} 2
loupe_ingestion_accept_blob_write_seconds_sum{outcome=\"ok\"} 0.005
loupe_ingestion_accept_blob_write_seconds_count{outcome=\"ok\"} 2
loupe_ingestion_accepted_payloads_total{kind=\"otlp_traces\"} 3
";

    #[test]
    fn a_phase_is_the_difference_of_two_scrapes_summed_over_labels() {
        let before = super::parse(FIRST);
        let after = super::parse(&format!(
            "{FIRST}\
loupe_ingestion_accept_blob_write_seconds_bucket{{outcome=\"error\",le=\"0.002\"}} 0
loupe_ingestion_accept_blob_write_seconds_bucket{{outcome=\"error\",le=\"0.005\"}} 0
loupe_ingestion_accept_blob_write_seconds_bucket{{outcome=\"error\",le=\"+Inf\"}} 100
loupe_ingestion_accept_blob_write_seconds_sum{{outcome=\"error\"}} 10.1
loupe_ingestion_accept_blob_write_seconds_count{{outcome=\"error\"}} 100
loupe_ingestion_accepted_payloads_total{{kind=\"ingestion_batch\"}} 400
"
        ));
        let lines = super::describe(&before, &after);
        assert_eq!(
            lines,
            vec![
                "blob PUT          n 100, mean 101.0 ms, p50 ≤ ∞ ms, p99 ≤ ∞ ms".to_owned(),
                "payloads per PUT  4.00 (group commit)".to_owned(),
            ],
            "a build without the stored counter: every accepted payload was a blob"
        );
        // With the counter, only the payloads stored as blobs count per PUT.
        let carrying = super::parse(&format!(
            "{FIRST}\
loupe_ingestion_accept_blob_write_seconds_count{{outcome=\"ok\"}} 10
loupe_ingestion_accept_stored_payloads_total{{in=\"queue_entry\"}} 370
loupe_ingestion_accept_stored_payloads_total{{in=\"blob\"}} 30
"
        ));
        let lines = super::describe(&before, &carrying);
        assert_eq!(
            lines[lines.len() - 2..],
            [
                "stored            370 in their queue entries, 30 as blobs",
                "payloads per PUT  3.00 (group commit)"
            ]
        );
        let whole = super::describe(&super::Snapshot::default(), &before);
        assert_eq!(whole[0], "blob PUT          n 2, mean 2.5 ms, p50 ≤ 2 ms, p99 ≤ 5 ms");
    }

    #[test]
    fn web_own_time_counts_the_ingestion_routes_only() {
        let text = "\
loupe_http_request_duration_seconds_bucket{route=\"/api/public/otel/v1/traces\",method=\"POST\",le=\"0.005\"} 98
loupe_http_request_duration_seconds_bucket{route=\"/api/public/otel/v1/traces\",method=\"POST\",le=\"0.015\"} 99
loupe_http_request_duration_seconds_bucket{route=\"/api/public/otel/v1/traces\",method=\"POST\",le=\"0.025\"} 100
loupe_http_request_duration_seconds_bucket{route=\"/api/public/otel/v1/traces\",method=\"POST\",le=\"+Inf\"} 100
loupe_http_request_duration_seconds_sum{route=\"/api/public/otel/v1/traces\",method=\"POST\"} 0.4
loupe_http_request_duration_seconds_count{route=\"/api/public/otel/v1/traces\",method=\"POST\"} 100
loupe_http_request_duration_seconds_bucket{route=\"/api/public/health\",method=\"GET\",le=\"0.005\"} 0
loupe_http_request_duration_seconds_bucket{route=\"/api/public/health\",method=\"GET\",le=\"+Inf\"} 7
loupe_http_request_duration_seconds_sum{route=\"/api/public/health\",method=\"GET\"} 70
loupe_http_request_duration_seconds_count{route=\"/api/public/health\",method=\"GET\"} 7
";
        let lines = super::describe(&super::Snapshot::default(), &super::parse(text));
        assert_eq!(lines, vec!["handled by web    n 100, mean 4.0 ms, p50 ≤ 5 ms, p99 ≤ 15 ms".to_owned()]);
    }
}
