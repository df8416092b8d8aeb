//! What the followers share (`follow.rs`, `propagated.rs`): where one stands in a project, what
//! the rules take of the rows read, and recording executions with the cursor's move.

use super::source::{Found, INTERNAL_ENVIRONMENT_PREFIX};
use super::{Engine, LiveRule, NewExecution, record, sampled};
use crate::filter;

/// Rows read per statement; a project with more new rows is read again at once.
pub(super) const CHUNK: u64 = 2_000;

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
