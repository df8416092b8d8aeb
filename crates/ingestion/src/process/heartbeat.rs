//! Proof of life of a job loop, for the worker's liveness endpoint: a loop that is retrying
//! through a store outage is alive (it beats while it waits); a loop that hangs is not.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[derive(Clone, Debug)]
pub struct Heartbeat(Arc<AtomicI64>);

fn now_millis() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

impl Default for Heartbeat {
    fn default() -> Self {
        Self(Arc::new(AtomicI64::new(now_millis())))
    }
}

impl Heartbeat {
    pub fn beat(&self) {
        self.0.store(now_millis(), Ordering::Relaxed);
    }

    /// Time since the last beat.
    pub fn age(&self) -> Duration {
        Duration::from_millis(u64::try_from(now_millis() - self.0.load(Ordering::Relaxed)).unwrap_or(0))
    }
}
