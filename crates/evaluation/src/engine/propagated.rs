//! The follower of dual mode's propagated observations. What v3 producers send in `dual` (legacy
//! SDKs' batch API, OTel from other producers) is staged in `observations_batch_staging` and
//! copied into `events_full` by the propagation job minutes later, stamped with its acceptance
//! time: the live follower, which reads `events_full` in acceptance order, has passed that time
//! by then. This follower reads the staged ids instead, in the order they were first seen, up to
//! the end of the last partition propagation has copied, and judges their rows in `events_full`.
//!
//! A row both followers see (the live follower lagged past a propagation) is judged once: an
//! execution is unique per rule, evaluator and observation.

use serde::Deserialize;

use super::cursors::{CHUNK, cursor_of, matching, record_and_advance};
use super::{Engine, rules_of, source};

/// This follower's name in `evaluation_cursors`.
const TARGET: &str = "observation-propagated";

/// A staging partition's span (`PARTITION BY toStartOfInterval(s3_first_seen_timestamp, 3 MINUTE)`).
const PARTITION_MICROS: i64 = 3 * 60 * 1_000_000;

#[derive(Deserialize)]
struct Staged {
    id: String,
    seen: i64,
    start: i64,
}

/// The project's staged observation ids first seen after the cursor `(seen, id)` and before
/// `until_micros`, oldest first, each with its start time.
async fn staged_after(
    engine: &Engine,
    project: &str,
    (after_micros, after_id): (i64, &str),
    until_micros: i64,
) -> storage::Result<Vec<Staged>> {
    let query = engine
        .clickhouse
        .client()
        .query(
            "SELECT id, toUnixTimestamp64Micro(min(s3_first_seen_timestamp)) AS seen,
                    toUnixTimestamp64Micro(min(start_time)) AS start
             FROM observations_batch_staging
             WHERE project_id = ? AND s3_first_seen_timestamp >= fromUnixTimestamp64Micro(?)
               AND s3_first_seen_timestamp < fromUnixTimestamp64Micro(?)
             GROUP BY id HAVING (seen, id) > (?, ?)
             ORDER BY seen, id LIMIT ?",
        )
        .bind(project)
        .bind(after_micros)
        .bind(until_micros)
        .bind(after_micros)
        .bind(after_id)
        .bind(CHUNK);
    source::fetch::<Staged>(&engine.clickhouse, query).await
}

pub(super) async fn follow(engine: &Engine, project: &str) -> storage::Result<()> {
    let rules = rules_of(&engine.postgres, project, "observation", None).await?;
    let Some(first_enabled) = rules.iter().map(|r| r.enabled_at_micros).min() else { return Ok(()) };
    // Everything staged before the end of the last copied partition is in `events_full`.
    let Some(copied) = storage::propagation_state::get(&engine.postgres).await?.last_partition else {
        return Ok(());
    };
    let until = copied.timestamp_micros() + PARTITION_MICROS;
    // First seen and accepted are close but not one clock reading: start a partition early and
    // let each rule's own start decide.
    let mut cursor = cursor_of(engine, project, TARGET, first_enabled, PARTITION_MICROS).await?;
    loop {
        let staged = staged_after(engine, project, (cursor.0, &cursor.1), until).await?;
        let Some(last) = staged.last() else { return Ok(()) };
        let next = (last.seen, last.id.clone());
        let ids: Vec<String> = staged.iter().map(|s| s.id.clone()).collect();
        let starts = staged.iter().map(|s| s.start);
        let span = (starts.clone().min().unwrap_or_default(), starts.max().unwrap_or_default());
        let found = source::observations_by_id(&engine.clickhouse, project, &ids, span).await?;
        let matched = matching(&rules, &found);
        record_and_advance(engine, project, ("observation", TARGET), &matched, (next.0, &next.1)).await?;
        if (staged.len() as u64) < CHUNK {
            return Ok(());
        }
        cursor = next;
    }
}
