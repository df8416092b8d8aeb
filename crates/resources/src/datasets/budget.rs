//! Schema work (compiling a dataset's JSON Schemas, checking items against them) runs off the
//! async threads and within a time budget.
//!
//! It is CPU-bound and its cost is the client's to choose: a large item, a wide schema, a schema
//! change over every item of a large dataset. On the async threads it would stall every other
//! request of the instance. On the blocking pool, at most one check per core runs at once, and the
//! request gets a 400 naming the budget once it is spent. A check cannot be interrupted, so one
//! that overruns finishes on its blocking thread after the answer, still holding its slot, so
//! overrunning checks cannot pile up beyond the slots (docs/limits.md).

use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use crate::{Error, Result};

/// How long one item write may spend checking the item against its dataset's schemas.
pub(crate) const ITEM_WRITE: Duration = Duration::from_secs(2);
/// How long a dataset write may spend compiling its schemas and checking the dataset's items
/// against them.
pub(crate) const SCHEMA_CHANGE: Duration = Duration::from_secs(30);

/// One slot per core: schema work never takes more CPU than the machine has.
static SLOTS: LazyLock<Arc<Semaphore>> = LazyLock::new(|| {
    Arc::new(Semaphore::new(std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)))
});

/// The time one request may spend on schema work, shared by its steps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    started: Instant,
    limit: Duration,
    what: &'static str,
}

impl Budget {
    pub(crate) fn start(limit: Duration, what: &'static str) -> Self {
        Self { started: Instant::now(), limit, what }
    }

    fn spent(&self) -> Error {
        Error::bad_request(format!(
            "{} took longer than its budget of {} ms; a simpler schema or smaller data fits it",
            self.what,
            self.limit.as_millis()
        ))
    }

    /// Runs `work` on the blocking pool and returns its result, or a 400 once the budget is spent
    /// (waiting for a slot counts).
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T> {
        let remaining = self.limit.checked_sub(self.started.elapsed()).ok_or_else(|| self.spent())?;
        let attempt = async {
            let slot = SLOTS.clone().acquire_owned().await.map_err(|_| internal("closed"))?;
            tokio::task::spawn_blocking(move || {
                let _slot = slot; // released when the work ends, answered or not
                work()
            })
            .await
            .map_err(|error| internal(&error.to_string()))
        };
        tokio::time::timeout(remaining, attempt).await.map_err(|_| self.spent())?
    }
}

fn internal(why: &str) -> Error {
    Error::Storage(storage::Error::new(storage::ErrorKind::Internal, format!("schema check failed: {why}")))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;

    fn busy(for_how_long: Duration) -> u64 {
        let started = Instant::now();
        let mut spins = 0u64;
        while started.elapsed() < for_how_long {
            spins = std::hint::black_box(spins + 1);
        }
        spins
    }

    /// On a single-threaded runtime, another task keeps running while the work does: it is not
    /// on the async thread.
    #[tokio::test(flavor = "current_thread")]
    async fn work_runs_off_the_async_thread() {
        let ticks = Arc::new(AtomicU64::new(0));
        let ticker = {
            let ticks = ticks.clone();
            tokio::spawn(async move {
                loop {
                    ticks.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            })
        };
        let budget = Budget::start(Duration::from_secs(10), "checking");
        assert!(budget.run(|| busy(Duration::from_millis(300))).await.unwrap() > 0);
        ticker.abort();
        assert!(ticks.load(Ordering::Relaxed) >= 20, "the async thread was held: {ticks:?}");
    }

    #[tokio::test]
    async fn a_spent_budget_is_a_400_that_says_so() {
        let budget = Budget::start(Duration::from_millis(50), "checking the item");
        let error = budget.run(|| busy(Duration::from_millis(500))).await.unwrap_err();
        let Error::BadRequest(message) = error else { panic!("{error:?}") };
        assert_eq!(
            message,
            "checking the item took longer than its budget of 50 ms; a simpler schema or smaller data fits it"
        );
        // Later steps of the same request find it spent at once.
        assert!(matches!(budget.run(|| 1).await, Err(Error::BadRequest(_))));
    }
}
