//! The worker's port (3030): `GET /api/health` (readiness: are the stores reachable, and with
//! `failIfEventPropagationStuck=true` is dual-write propagation keeping up) and `GET /api/live`
//! (liveness: is the job loop turning — it keeps turning through store outages, so a restart is
//! only asked for when a restart can help). `GET /metrics` (Prometheus) is `prometheus.rs`'s.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use domain::config::Config;
use ingestion::process::Heartbeat;
use migration::propagation_health::PropagationHealth;
use service::prometheus::PrometheusHandle;
use service::{DependencyReport, Stores, check_dependencies};

#[derive(Clone)]
pub struct HealthState {
    config: Arc<Config>,
    stores: Stores,
    heartbeat: Heartbeat,
    /// Renders `GET /metrics`; `None` with `LANGFUSE_METRICS_ENABLED=false`.
    metrics: Option<PrometheusHandle>,
}

impl HealthState {
    pub fn new(
        config: Config,
        stores: Stores,
        heartbeat: Heartbeat,
        metrics: Option<PrometheusHandle>,
    ) -> Self {
        Self { config: Arc::new(config), stores, heartbeat, metrics }
    }
}

/// A loop that has not turned for this long is hung: every turn waits at most a few seconds, and
/// insert retries beat too.
const STALLED_AFTER: Duration = Duration::from_secs(60);

/// The body of `/api/live`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Liveness {
    last_heartbeat_seconds_ago: u64,
}

/// The body of `/api/health`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Readiness {
    /// `OK`, or why the worker is not ready.
    status: &'static str,
    version: &'static str,
    write_mode: &'static str,
    /// Accepted payloads not yet written (`null` when Redis cannot say): what an operator watches
    /// during an outage.
    ingestion_backlog: Option<u64>,
    /// How long the oldest of them has waited, in seconds (`null` when Redis cannot say).
    ingestion_lag_seconds: Option<u64>,
    /// Payloads in the dead-letter store not yet replayed (`null` when PostgreSQL cannot say):
    /// each needs an operator's look (`GET /api/admin/ingestion/dead-letters` on web).
    dead_letters: Option<i64>,
    dependencies: DependencyReport,
    event_propagation: PropagationReport,
}

/// The propagation verdict, or why it could not be had.
#[derive(Serialize)]
#[serde(untagged)]
enum PropagationReport {
    Checked(PropagationHealth),
    Failed { error: String },
}

async fn live(State(state): State<HealthState>) -> (StatusCode, Json<Liveness>) {
    let age = state.heartbeat.age();
    let body = Liveness { last_heartbeat_seconds_ago: age.as_secs() };
    if age > STALLED_AFTER {
        tracing::error!(seconds = age.as_secs(), "ingestion loop has not turned; liveness fails");
        (StatusCode::SERVICE_UNAVAILABLE, Json(body))
    } else {
        (StatusCode::OK, Json(body))
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HealthParams {
    /// With `true`, a stuck dual-write propagation makes the answer 503 (spec/v4-migration-spec.md §7).
    #[serde(default)]
    fail_if_event_propagation_stuck: bool,
}

async fn health(
    State(state): State<HealthState>,
    Query(params): Query<HealthParams>,
) -> (StatusCode, Json<Readiness>) {
    let dependencies = Box::pin(check_dependencies(&state.stores)).await;
    let mut ok = dependencies.all_ok();
    let mut status = if ok { "OK" } else { "Dependencies unavailable" };
    let propagation = match propagation_health(&state).await {
        Ok(health) => {
            if params.fail_if_event_propagation_stuck && health.stuck {
                ok = false;
                status = "Event propagation stuck";
            }
            PropagationReport::Checked(health)
        }
        Err(error) => PropagationReport::Failed { error: error.to_string() },
    };
    let backlog = state.stores.ingestion_queue().backlog().await.ok();
    let now_millis = u64::try_from(chrono::Utc::now().timestamp_millis()).unwrap_or_default();
    let dead_letters = storage::dead_letters::open_count(&state.stores.postgres).await;
    let body = Readiness {
        status,
        version: env!("CARGO_PKG_VERSION"),
        write_mode: state.config.migration.write_mode.as_str(),
        ingestion_backlog: backlog.as_ref().map(|b| b.total),
        ingestion_lag_seconds: backlog.as_ref().map(|b| b.lag(now_millis).as_secs()),
        dead_letters: dead_letters.ok(),
        dependencies,
        event_propagation: propagation,
    };
    let status = if ok { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (status, Json(body))
}

/// Bounded like the dependency checks: a hung store must not hang the probe.
async fn propagation_health(state: &HealthState) -> anyhow::Result<PropagationHealth> {
    let check = migration::propagation_health::check(
        &state.stores.clickhouse,
        &state.stores.postgres,
        &state.config.migration,
        &state.config.propagation,
        chrono::Utc::now(),
    );
    Ok(tokio::time::timeout(Duration::from_secs(3), check).await.context("no answer within 3s")??)
}

pub async fn serve(state: HealthState, shutdown: CancellationToken) -> anyhow::Result<()> {
    let address = SocketAddr::new(state.config.server.listen_address, state.config.server.port);
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .with_context(|| format!("cannot listen on {address}"))?;
    tracing::info!(%address, "worker health endpoint listening");
    let metrics = state
        .metrics
        .clone()
        .map(|handle| crate::prometheus::routes(state.config.clone(), state.stores.clone(), handle));
    let mut app =
        Router::new().route("/api/health", get(health)).route("/api/live", get(live)).with_state(state);
    if let Some(metrics) = metrics {
        app = app.merge(metrics);
    }
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown.cancelled_owned())
        .await
        .context("health server")?;
    tracing::info!("worker stopped");
    Ok(())
}
