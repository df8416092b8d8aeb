//! The worker's side of a rule's run over a time range (`crate::runs` is the API's): one chunk
//! at a time, leased so two workers never scan the same run.

use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;

use super::{Engine, NewExecution, record, rules_of, sampled, source};
use crate::filter;

/// Observations read per chunk of a run.
const CHUNK: u64 = 1_000;

/// The worker's part: scans open runs chunk by chunk, and closes runs whose executions are done.
pub(super) async fn run(engine: Engine, shutdown: CancellationToken) {
    loop {
        match step(&engine).await {
            Ok(true) => continue,
            Ok(false) => {}
            Err(error) => tracing::warn!(%error, "evaluations: a run's step failed; retrying"),
        }
        if !engine.idle(&shutdown).await {
            return;
        }
    }
}

/// One chunk of one scanning run (leased, so two workers never scan the same run), then the
/// closing of finished runs. True when a chunk was scanned (more may follow at once).
async fn step(engine: &Engine) -> storage::Result<bool> {
    let db = &engine.postgres;
    sqlx::query(
        "UPDATE evaluation_runs r SET status = 'completed', finished_at = now()
         WHERE status = 'running' AND NOT EXISTS (
             SELECT 1 FROM evaluation_executions e WHERE e.run_id = r.id AND e.status IN ('pending', 'running'))",
    )
    .execute(db)
    .await?;
    let mut tx = db.begin().await?;
    #[allow(clippy::type_complexity)]
    let claimed: Option<(String, String, String, DateTime<Utc>, DateTime<Utc>, Option<DateTime<Utc>>, String, Option<i64>)> = sqlx::query_as(
        "SELECT id, project_id, rule_id, from_ts, to_ts, cursor_time, coalesce(cursor_id, ''), total FROM evaluation_runs
         WHERE status = 'scanning' AND (lease_until IS NULL OR lease_until < now() OR lease_owner = $1)
         ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED",
    )
    .bind(&engine.holder)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((id, project, rule_id, from, to, cursor_time, cursor_id, total)) = claimed else {
        return Ok(false);
    };
    sqlx::query("UPDATE evaluation_runs SET lease_owner = $2, lease_until = now() + interval '5 minutes' WHERE id = $1")
        .bind(&id)
        .bind(&engine.holder)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    let range = (from.timestamp_micros(), to.timestamp_micros());
    if total.is_none() {
        let n = source::count_started_between(&engine.clickhouse, &project, range).await?;
        sqlx::query("UPDATE evaluation_runs SET total = $2 WHERE id = $1")
            .bind(&id)
            .bind(n as i64)
            .execute(db)
            .await?;
    }
    let Some(rule) = rules_of(db, &project, "observation", Some(&rule_id)).await?.into_iter().next() else {
        return Ok(false);
    };
    let after = (cursor_time.map_or(i64::MIN, |t| t.timestamp_micros()), cursor_id);
    let found =
        source::started_between(&engine.clickhouse, &project, range, (after.0, &after.1), CHUNK).await?;
    let matched: Vec<NewExecution<'_>> = found
        .iter()
        .filter(|f| !f.candidate.environment.starts_with(source::INTERNAL_ENVIRONMENT_PREFIX))
        .filter(|f| {
            filter::matches(&rule.filter, &f.candidate)
                && sampled(&rule.id, &f.candidate.span_id, rule.sampling)
        })
        .map(|found| NewExecution { rule: &rule, found, run_id: Some(&id) })
        .collect();
    let mut tx = db.begin().await?;
    record(&mut tx, &project, "observation", &matched).await?;
    let last = found.last().map(|f| {
        (DateTime::from_timestamp_micros(f.start_micros).unwrap_or_default(), f.candidate.span_id.clone())
    });
    let finished = (found.len() as u64) < CHUNK;
    sqlx::query(
        "UPDATE evaluation_runs SET scanned = scanned + $2,
            cursor_time = coalesce($3, cursor_time), cursor_id = coalesce($4, cursor_id),
            status = CASE WHEN $5 THEN 'running' ELSE status END,
            lease_until = CASE WHEN $5 THEN NULL ELSE lease_until END
         WHERE id = $1",
    )
    .bind(&id)
    .bind(found.len() as i64)
    .bind(last.as_ref().map(|l| l.0))
    .bind(last.map(|l| l.1))
    .bind(finished)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(!finished)
}
