//! The worker's copy of the model definitions, reloaded from PostgreSQL at most every
//! [`REFRESH`], so a model created through the API prices generations within that time.

use std::sync::Arc;
use std::time::{Duration, Instant};

use domain::pricing::PriceBook;

pub const REFRESH: Duration = Duration::from_secs(30);

pub struct Prices {
    pool: sqlx::PgPool,
    cached: tokio::sync::Mutex<Option<(Arc<PriceBook>, Instant)>>,
}

impl Prices {
    pub fn new(pool: sqlx::PgPool) -> Self {
        Self { pool, cached: tokio::sync::Mutex::new(None) }
    }

    /// The current book. When PostgreSQL cannot be read, the last book is kept (and an empty one
    /// used before the first load): generations are then stored without a computed cost rather
    /// than held back, since provided costs and usage are kept either way.
    pub async fn current(&self) -> Arc<PriceBook> {
        let mut cached = self.cached.lock().await;
        if let Some((book, loaded)) = cached.as_ref()
            && loaded.elapsed() < REFRESH
        {
            return Arc::clone(book);
        }
        match storage::models::price_book(&self.pool).await {
            Ok(book) => {
                let book = Arc::new(book);
                tracing::debug!(models = book.len(), "model prices loaded");
                *cached = Some((Arc::clone(&book), Instant::now()));
                book
            }
            Err(error) => {
                tracing::warn!(%error, "cannot load model prices; keeping the previous ones");
                let book = cached.as_ref().map(|(book, _)| Arc::clone(book)).unwrap_or_default();
                // Try again at the next batch rather than after a whole refresh period.
                book
            }
        }
    }
}
