//! The worker's `GET /metrics` (on the health port): everything the process recorded — the
//! ingestion loop's flushes, retries and dead letters among it — plus gauges read from the stores
//! at scrape time: the ingestion backlog, dual-write propagation and the backfill steps
//! (docs/metrics.md).
//!
//! Reading at scrape time keeps the numbers as fresh as the scrape, with no loop of our own; each
//! read is bounded, so a scrape answers within [`READ_LIMIT`] even when a store hangs. A value that
//! could not be read is exported as `NaN` ("unknown": alerts comparing it stay silent, graphs show a
//! gap) rather than left at its last reading, which would look current.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;
use metrics::{describe_counter, describe_gauge, gauge};

use domain::config::Config;
use migration::propagation_health::PropagationHealth;
use service::Stores;
use service::prometheus::{EXPOSITION_CONTENT_TYPE, PrometheusHandle};
use storage::background_migrations::{BackgroundMigration, StepStatus};

/// What a scrape reads from and renders.
#[derive(Clone)]
struct Scrape {
    config: Arc<Config>,
    stores: Stores,
    handle: PrometheusHandle,
}

/// `GET /metrics`, for the health server to merge into its router.
pub fn routes(config: Arc<Config>, stores: Stores, handle: PrometheusHandle) -> Router {
    describe();
    Router::new().route("/metrics", get(scrape)).with_state(Scrape { config, stores, handle })
}

/// The longest a scrape waits for any one store.
const READ_LIMIT: Duration = Duration::from_secs(2);

const STATUSES: [StepStatus; 5] = [
    StepStatus::Pending,
    StepStatus::Running,
    StepStatus::Succeeded,
    StepStatus::Failed,
    StepStatus::Skipped,
];

/// `GET /metrics`: reads the sampled gauges (concurrently, each bounded), then renders.
async fn scrape(State(state): State<Scrape>) -> impl IntoResponse {
    let queue = state.stores.ingestion_queue();
    let backlog = bounded(queue.backlog());
    let dead_letters = bounded(storage::dead_letters::open_count(&state.stores.postgres));
    let propagation = bounded(migration::propagation_health::check(
        &state.stores.clickhouse,
        &state.stores.postgres,
        &state.config.migration,
        &state.config.propagation,
        chrono::Utc::now(),
    ));
    let backfill = bounded(storage::background_migrations::list(&state.stores.postgres));
    let (backlog, dead_letters, propagation, backfill) =
        tokio::join!(backlog, dead_letters, propagation, backfill);
    let now_millis = u64::try_from(chrono::Utc::now().timestamp_millis()).unwrap_or_default();
    gauge!("loupe_ingestion_queue_depth").set(backlog.as_ref().map_or(f64::NAN, |b| b.total as f64));
    gauge!("loupe_ingestion_queue_lag_seconds")
        .set(backlog.as_ref().map_or(f64::NAN, |b| b.lag(now_millis).as_secs_f64()));
    gauge!("loupe_ingestion_dead_letters_open").set(dead_letters.map_or(f64::NAN, |n| n as f64));
    record_propagation(propagation.as_ref());
    if let Some(steps) = backfill {
        record_backfill(&steps);
    }
    ([(CONTENT_TYPE, EXPOSITION_CONTENT_TYPE)], state.handle.render())
}

/// A store read within [`READ_LIMIT`]; `None` (logged) when it failed or took longer.
async fn bounded<T, E: std::fmt::Display>(read: impl Future<Output = Result<T, E>>) -> Option<T> {
    match tokio::time::timeout(READ_LIMIT, read).await {
        Ok(Ok(value)) => Some(value),
        Ok(Err(error)) => {
            tracing::debug!(%error, "metrics: a sampled value could not be read");
            None
        }
        Err(_) => {
            tracing::debug!(limit_ms = READ_LIMIT.as_millis() as u64, "metrics: a sampled value timed out");
            None
        }
    }
}

fn record_propagation(health: Option<&PropagationHealth>) {
    let value = |read: fn(&PropagationHealth) -> f64| health.map_or(f64::NAN, read);
    gauge!("loupe_propagation_enabled").set(value(|h| flag(h.enabled)));
    gauge!("loupe_propagation_stuck").set(value(|h| flag(h.stuck)));
    gauge!("loupe_propagation_pending_partitions").set(value(|h| h.pending_partitions as f64));
    gauge!("loupe_propagation_oldest_due_waiting_seconds")
        .set(value(|h| h.oldest_due_waiting_seconds.unwrap_or(0) as f64));
    gauge!("loupe_propagation_delay_seconds")
        .set(value(|h| h.propagation_delay_seconds.map_or(f64::NAN, |s| s as f64)));
    if let Some(health) = health {
        // Kept in PostgreSQL across restarts and workers, so it is set, not incremented.
        metrics::counter!("loupe_propagation_rows_total").absolute(health.rows_propagated.max(0) as u64);
    }
}

fn record_backfill(steps: &[BackgroundMigration]) {
    for step in steps {
        let name = step.name.clone();
        gauge!("loupe_backfill_rows_done", "step" => name.clone()).set(step.rows_done as f64);
        gauge!("loupe_backfill_rows_estimated", "step" => name.clone())
            .set(step.rows_estimated.map_or(f64::NAN, |rows| rows as f64));
        for status in STATUSES {
            gauge!("loupe_backfill_step_status", "step" => name.clone(), "status" => status.as_str())
                .set(flag(step.status == status));
        }
    }
}

fn flag(value: bool) -> f64 {
    if value { 1.0 } else { 0.0 }
}

/// `# HELP` lines for the metrics this binary records or samples; the ingestion loop's own are
/// described where they are recorded.
fn describe() {
    describe_gauge!(
        "loupe_ingestion_queue_depth",
        "Accepted payloads not yet processed (stream entries, pending included); NaN when Redis cannot say. The same for every worker."
    );
    describe_gauge!(
        "loupe_propagation_enabled",
        "1 when the propagation job runs (write modes dual and events_only, which drains what is staged)."
    );
    describe_gauge!(
        "loupe_propagation_stuck",
        "1 when the oldest due staging partition has waited past the stuck threshold."
    );
    describe_gauge!(
        "loupe_propagation_pending_partitions",
        "Staging partitions after the propagation cursor, due or not."
    );
    describe_gauge!(
        "loupe_propagation_oldest_due_waiting_seconds",
        "How long the oldest due, uncopied staging partition has waited since it became due (0: none)."
    );
    describe_gauge!(
        "loupe_propagation_delay_seconds",
        "Now minus the end of the last copied staging partition; NaN before the first copy."
    );
    describe_counter!(
        "loupe_propagation_rows_total",
        "Rows copied from staging into events_full, all workers together."
    );
    describe_gauge!(
        "loupe_backfill_rows_done",
        "Rows (or traces, tables: the step's unit) a backfill step has done."
    );
    describe_gauge!(
        "loupe_backfill_rows_estimated",
        "Source rows a backfill step found when it planned; NaN before."
    );
    describe_gauge!(
        "loupe_backfill_step_status",
        "1 for the backfill step's current status, 0 for the others."
    );
}
