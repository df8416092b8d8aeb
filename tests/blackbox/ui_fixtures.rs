//! What the browser tests of `ui.rs` need in place before Playwright starts that no public route
//! makes: a failed background migration step, for the migrations page's error and Retry.

use std::time::{Duration, Instant};

use crate::apps::Stack;

/// The step the migrations spec finds failed (`LOUPE_FAILED_MIGRATION`).
pub const FAILED_STEP: &str = "20260701_v4_step_4_backfill_events_full_from_dataset_run_items";

/// Waits until the worker has run the backfill chain up to and past [`FAILED_STEP`] on the empty
/// stack (so it cannot overwrite the change; the last step stays pending while its gate,
/// `LANGFUSE_BACKGROUND_MIGRATION_V4_DROP_PID_TID_SORTING_TABLES`, is off), then marks the step
/// failed with an error, as a refused insert would. The worker's next pass finds the chain halted
/// there, until Retry puts the step back to pending.
pub async fn fail_a_backfill_step(stack: &Stack) -> &'static str {
    let pool = stack.pg.pool().await;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (done, running): (bool, bool) = sqlx::query_as(
            "SELECT bool_or(name = $1 AND status IN ('succeeded', 'skipped')), bool_or(status = 'running') \
             FROM background_migrations",
        )
        .bind(FAILED_STEP)
        .fetch_one(&pool)
        .await
        .unwrap();
        if done && !running {
            break;
        }
        assert!(Instant::now() < deadline, "the worker never ran the backfill chain on an empty stack");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let changed = sqlx::query(
        "UPDATE background_migrations SET status = 'failed', finished_at = now(), updated_at = now(), \
         last_error = 'Code: 241. DB::Exception: Memory limit exceeded (simulated by the browser tests)' \
         WHERE name = $1",
    )
    .bind(FAILED_STEP)
    .execute(&pool)
    .await
    .unwrap();
    assert_eq!(changed.rows_affected(), 1, "no step named {FAILED_STEP}");
    FAILED_STEP
}
