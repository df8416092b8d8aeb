//! The live follower: each project's newly accepted observations (or, for trace rules, v3
//! traces), against its enabled rules of that kind.

use tokio_util::sync::CancellationToken;

use super::cursors::{CHUNK, cursor_of, matching, record_and_advance};
use super::source::{self, Found};
use super::{Engine, rules_of};
use crate::rules::stopped_by;

/// The kinds the follower reads, each from its own table with its own cursor.
const TARGETS: [&str; 3] = ["observation", "trace", "dataset"];

pub(super) async fn run(engine: Engine, shutdown: CancellationToken) {
    loop {
        for target in TARGETS {
            if stopped_by(target, engine.write_mode).is_some() {
                continue;
            }
            if let Err(error) = follow_all(&engine, target).await {
                tracing::warn!(%error, target, "evaluations: following new data failed; retrying");
            }
        }
        if !engine.idle(&shutdown).await {
            return;
        }
    }
}

/// The latest acceptance time before which every accepted payload is inserted: now less the settle
/// margin, and before the oldest entry still queued (its rows may not be in ClickHouse yet).
async fn horizon(engine: &Engine) -> storage::Result<i64> {
    let now = chrono::Utc::now().timestamp_micros();
    let mut horizon = now - engine.settings.settle.as_micros() as i64;
    if let Some(oldest) = engine.queue.backlog().await?.oldest_millis {
        horizon = horizon.min(oldest as i64 * 1000 - 1);
    }
    Ok(horizon)
}

async fn follow_all(engine: &Engine, target: &str) -> storage::Result<()> {
    let projects: Vec<(String,)> =
        sqlx::query_as("SELECT DISTINCT project_id FROM evaluation_rules WHERE enabled AND target = $1")
            .bind(target)
            .fetch_all(&engine.postgres)
            .await?;
    if projects.is_empty() {
        return Ok(());
    }
    let horizon = horizon(engine).await?;
    for (project,) in projects {
        follow(engine, &project, target, horizon).await?;
        if target == "observation" {
            super::propagated::follow(engine, &project).await?;
        }
    }
    Ok(())
}

async fn read(
    engine: &Engine,
    project: &str,
    target: &str,
    cursor: (i64, &str),
    horizon: i64,
) -> storage::Result<Vec<Found>> {
    match target {
        "trace" => source::traces_accepted_after(&engine.clickhouse, project, cursor, horizon, CHUNK).await,
        "dataset" => {
            source::run_items_accepted_after(&engine.clickhouse, project, cursor, horizon, CHUNK).await
        }
        _ => source::accepted_after(&engine.clickhouse, project, cursor, horizon, CHUNK).await,
    }
}

async fn follow(engine: &Engine, project: &str, target: &str, horizon: i64) -> storage::Result<()> {
    let rules = rules_of(&engine.postgres, project, target, None).await?;
    let Some(first_enabled) = rules.iter().map(|r| r.enabled_at_micros).min() else { return Ok(()) };
    let mut cursor = cursor_of(engine, project, target, first_enabled, 0).await?;
    loop {
        let found = read(engine, project, target, (cursor.0, &cursor.1), horizon).await?;
        let Some(last) = found.last() else { return Ok(()) };
        let next = (last.accepted_micros, last.candidate.span_id.clone());
        let matched = matching(&rules, &found);
        record_and_advance(engine, project, (target, target), &matched, (next.0, &next.1)).await?;
        let full = found.len() as u64 == CHUNK;
        cursor = next;
        if !full {
            return Ok(());
        }
    }
}
