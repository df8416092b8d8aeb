//! The live follower: each project's newly accepted observations (or, for trace rules, v3
//! traces), against its enabled rules of that kind.

use tokio_util::sync::CancellationToken;

use super::source::{self, Found, INTERNAL_ENVIRONMENT_PREFIX};
use super::{Engine, LiveRule, NewExecution, record, rules_of, sampled};
use crate::filter;
use crate::rules::stopped_by;

/// Rows read per statement; a project with more new rows is read again at once.
pub(super) const CHUNK: u64 = 2_000;

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

/// Where the follower of `target` stands in a project: the saved cursor, or just before the first
/// enabled rule's start less `margin` when there is none or it is older (nothing accepted before
/// a rule was enabled is new to it).
pub(super) async fn cursor_of(
    engine: &Engine,
    project: &str,
    target: &str,
    first_enabled: i64,
    margin: i64,
) -> storage::Result<(i64, String)> {
    let saved: Option<(chrono::DateTime<chrono::Utc>, String)> = sqlx::query_as(
        "SELECT cursor_time, cursor_id FROM evaluation_cursors WHERE project_id = $1 AND target = $2",
    )
    .bind(project)
    .bind(target)
    .fetch_optional(&engine.postgres)
    .await?;
    let floor = first_enabled - margin;
    Ok(match saved {
        Some((at, id)) if at.timestamp_micros() >= floor => (at.timestamp_micros(), id),
        _ => (floor - 1, String::new()),
    })
}

/// What the rules select of `found`: each (rule, row) its filter and sampling take, for rows
/// accepted since the rule was enabled and outside Langfuse's own environments.
pub(super) fn matching<'a>(rules: &'a [LiveRule], found: &'a [Found]) -> Vec<NewExecution<'a>> {
    let mut matched = Vec::new();
    for row in found.iter().filter(|r| !r.candidate.environment.starts_with(INTERNAL_ENVIRONMENT_PREFIX)) {
        for rule in rules {
            if row.accepted_micros >= rule.enabled_at_micros
                && filter::matches(&rule.filter, &row.candidate)
                && sampled(&rule.id, &row.candidate.span_id, rule.sampling)
            {
                matched.push(NewExecution { rule, found: row, run_id: None });
            }
        }
    }
    matched
}

/// Records the executions of `matched` (as objects of `kind`) and moves the cursor of `target`
/// to `next`, in one transaction: a crash between them cannot skip rows.
pub(super) async fn record_and_advance(
    engine: &Engine,
    project: &str,
    (kind, target): (&str, &str),
    matched: &[NewExecution<'_>],
    next: (i64, &str),
) -> storage::Result<u64> {
    let mut tx = engine.postgres.begin().await?;
    let recorded = record(&mut tx, project, kind, matched).await?;
    sqlx::query(
        "INSERT INTO evaluation_cursors (project_id, target, cursor_time, cursor_id) VALUES ($1, $4, $2, $3)
         ON CONFLICT (project_id, target) DO UPDATE SET cursor_time = excluded.cursor_time, cursor_id = excluded.cursor_id, updated_at = now()
         WHERE (evaluation_cursors.cursor_time, evaluation_cursors.cursor_id) < (excluded.cursor_time, excluded.cursor_id)",
    )
    .bind(project)
    .bind(chrono::DateTime::from_timestamp_micros(next.0).unwrap_or_default())
    .bind(next.1)
    .bind(target)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    if recorded > 0 {
        tracing::debug!(project, target, recorded, "evaluations: executions scheduled");
    }
    Ok(recorded)
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
