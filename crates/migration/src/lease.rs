//! Holding a singleton job's lease while the job works: renewed in the background, and a flag the
//! job checks between units of work so it stops promptly if the lease was lost (a long stall).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sqlx::PgPool;
use tokio::task::JoinHandle;

/// How long a lease lasts without renewal: a crashed holder is replaced after this long.
pub const LEASE_TTL: Duration = Duration::from_secs(30);
const RENEW_EVERY: Duration = Duration::from_secs(10);

pub struct HeldLease {
    held: Arc<AtomicBool>,
    renewal: JoinHandle<()>,
    pool: PgPool,
    name: &'static str,
    holder: String,
}

/// Takes the lease if it is free (or already ours) and keeps renewing it until released.
pub async fn acquire(pool: &PgPool, name: &'static str, holder: &str) -> storage::Result<Option<HeldLease>> {
    if !storage::leases::try_acquire(pool, name, holder, LEASE_TTL).await? {
        return Ok(None);
    }
    let held = Arc::new(AtomicBool::new(true));
    let renewal = tokio::spawn(renew(pool.clone(), name, holder.to_owned(), Arc::clone(&held)));
    Ok(Some(HeldLease { held, renewal, pool: pool.clone(), name, holder: holder.to_owned() }))
}

async fn renew(pool: PgPool, name: &'static str, holder: String, held: Arc<AtomicBool>) {
    let mut last_renewed = tokio::time::Instant::now();
    loop {
        tokio::time::sleep(RENEW_EVERY).await;
        match storage::leases::try_acquire(&pool, name, &holder, LEASE_TTL).await {
            Ok(true) => last_renewed = tokio::time::Instant::now(),
            Ok(false) => {
                tracing::warn!(lease = name, "lease taken over by another worker; stopping");
                held.store(false, Ordering::SeqCst);
                return;
            }
            // PostgreSQL unreachable: the lease may expire; stop working once it surely has.
            Err(error) if last_renewed.elapsed() >= LEASE_TTL => {
                tracing::warn!(lease = name, %error, "lease could not be renewed in time; stopping");
                held.store(false, Ordering::SeqCst);
                return;
            }
            Err(error) => tracing::warn!(lease = name, %error, "lease renewal failed; retrying"),
        }
    }
}

impl HeldLease {
    pub fn is_held(&self) -> bool {
        self.held.load(Ordering::SeqCst)
    }

    /// Stops renewing and frees the lease for others at once.
    pub async fn release(self) {
        self.renewal.abort();
        if let Err(error) = storage::leases::release(&self.pool, self.name, &self.holder).await {
            tracing::warn!(lease = self.name, %error, "could not release lease; it will expire");
        }
    }
}

impl Drop for HeldLease {
    fn drop(&mut self) {
        self.renewal.abort();
    }
}
