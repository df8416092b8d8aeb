//! The live follower: each project's newly accepted observations, against its enabled rules.

use std::collections::HashMap;

use tokio_util::sync::CancellationToken;

use domain::config::WriteMode;

use super::source::{self, INTERNAL_ENVIRONMENT_PREFIX};
use super::{Engine, NewExecution, record, rules_of, sampled};
use crate::filter;

/// Rows read per statement; a project with more new rows is read again at once.
const CHUNK: u64 = 2_000;

pub(super) async fn run(engine: Engine, shutdown: CancellationToken) {
    if engine.write_mode == WriteMode::Legacy {
        return;
    }
    loop {
        if let Err(error) = follow_all(&engine).await {
            tracing::warn!(%error, "evaluations: following new observations failed; retrying");
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

async fn follow_all(engine: &Engine) -> storage::Result<()> {
    let projects: Vec<(String,)> = sqlx::query_as(
        "SELECT DISTINCT project_id FROM evaluation_rules WHERE enabled AND target = 'observation'",
    )
    .fetch_all(&engine.postgres)
    .await?;
    if projects.is_empty() {
        return Ok(());
    }
    let horizon = horizon(engine).await?;
    for (project,) in projects {
        follow(engine, &project, horizon).await?;
    }
    Ok(())
}

async fn follow(engine: &Engine, project: &str, horizon: i64) -> storage::Result<()> {
    let rules = rules_of(&engine.postgres, project, None).await?;
    let Some(first_enabled) = rules.iter().map(|r| r.enabled_at_micros).min() else { return Ok(()) };
    let saved: Option<(chrono::DateTime<chrono::Utc>, String)> = sqlx::query_as(
        "SELECT cursor_time, cursor_id FROM evaluation_cursors WHERE project_id = $1 AND target = 'observation'",
    )
    .bind(project)
    .fetch_optional(&engine.postgres)
    .await?;
    // Nothing accepted before the first rule was enabled is new to any rule.
    let mut cursor = match saved {
        Some((at, id)) if at.timestamp_micros() >= first_enabled => (at.timestamp_micros(), id),
        _ => (first_enabled - 1, String::new()),
    };
    loop {
        let found = source::accepted_after(&engine.clickhouse, project, (cursor.0, &cursor.1), horizon, CHUNK).await?;
        let Some(last) = found.last() else { return Ok(()) };
        let next = (last.accepted_micros, last.candidate.span_id.clone());
        let mut matched = Vec::new();
        let mut counted: HashMap<&str, u64> = HashMap::new();
        for row in found.iter().filter(|r| !r.candidate.environment.starts_with(INTERNAL_ENVIRONMENT_PREFIX)) {
            for rule in &rules {
                if row.accepted_micros >= rule.enabled_at_micros
                    && filter::matches(&rule.filter, &row.candidate)
                    && sampled(&rule.id, &row.candidate.span_id, rule.sampling)
                {
                    *counted.entry(rule.id.as_str()).or_default() += 1;
                    matched.push(NewExecution { rule, found: row, run_id: None });
                }
            }
        }
        let mut tx = engine.postgres.begin().await?;
        let recorded = record(&mut tx, project, &matched).await?;
        sqlx::query(
            "INSERT INTO evaluation_cursors (project_id, target, cursor_time, cursor_id) VALUES ($1, 'observation', $2, $3)
             ON CONFLICT (project_id, target) DO UPDATE SET cursor_time = excluded.cursor_time, cursor_id = excluded.cursor_id, updated_at = now()
             WHERE (evaluation_cursors.cursor_time, evaluation_cursors.cursor_id) < (excluded.cursor_time, excluded.cursor_id)",
        )
        .bind(project)
        .bind(chrono::DateTime::from_timestamp_micros(next.0).unwrap_or_default())
        .bind(&next.1)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        if recorded > 0 {
            tracing::debug!(project, recorded, "evaluations: executions scheduled");
        }
        let full = found.len() as u64 == CHUNK;
        cursor = next;
        if !full {
            return Ok(());
        }
    }
}
