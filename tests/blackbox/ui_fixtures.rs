//! What the browser tests of `ui.rs` need in place before Playwright starts that no public route
//! makes: a failed background migration step, for the migrations page's error and Retry.

use std::time::{Duration, Instant};

use crate::apps::Stack;

/// The step the migrations spec finds failed (`LOUPE_FAILED_MIGRATION`).
pub const FAILED_STEP: &str = "20260701_v4_step_4_backfill_events_full_from_dataset_run_items";

/// Waits until the worker has finished the backfill chain on the empty stack (so it cannot
/// overwrite the change), then marks [`FAILED_STEP`] failed with an error, as a refused insert
/// would. The chain is not run again until a restart, so the step stays as Retry leaves it.
pub async fn fail_a_backfill_step(stack: &Stack) -> &'static str {
    let pool = stack.pg.pool().await;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let unfinished: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM background_migrations WHERE status NOT IN ('succeeded', 'skipped')",
        )
        .fetch_one(&pool)
        .await
        .unwrap();
        if unfinished == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "the worker never finished the backfill chain on an empty stack");
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
