//! What the worker adds to rows from PostgreSQL before inserting them: the model and computed cost
//! of generations that report usage without cost (`domain::pricing`), and the id of the prompt a
//! generation names by name and version. Both are best effort: when PostgreSQL cannot be read the
//! rows are inserted without them rather than held back, since everything the SDK sent is kept.

use std::sync::Arc;

use domain::event::Event;
use domain::pricing::{PriceBook, Pricer};
use domain::v3::ObservationRecord;
use storage::prompt_links::PromptIds;

use super::Prices;

pub struct Enrichment {
    pub prices: Arc<PriceBook>,
    pub prompts: PromptIds,
}

impl Enrichment {
    /// Loads the current prices and the ids of the prompts named by `(project, name, version)`.
    pub async fn load(prices: &Prices, pool: &sqlx::PgPool, keys: &[(String, String, u16)]) -> Self {
        let prompts = storage::prompt_links::prompt_ids(pool, keys).await.unwrap_or_else(|error| {
            tracing::warn!(%error, "cannot look up prompts; generations keep their prompt name and version only");
            PromptIds::new()
        });
        Self { prices: prices.current().await, prompts }
    }

    fn prompt_id(&self, project: &str, name: &str, version: Option<u16>) -> Option<&String> {
        self.prompts.get(&(project.to_owned(), name.to_owned(), version?))
    }

    pub fn events(&self, events: &mut [Event]) {
        price_events(&self.prices, events);
        for event in events {
            if let Some(id) = self.prompt_id(&event.project_id, &event.prompt_name, event.prompt_version) {
                event.prompt_id.clone_from(id);
            }
        }
    }

    pub fn observations(&self, records: &mut [ObservationRecord]) {
        let mut pricer = Pricer::new(&self.prices);
        for record in records {
            pricer.price_observation(record);
            let name = record.prompt_name.as_deref().unwrap_or_default();
            if let Some(id) = self.prompt_id(&record.project_id, name, record.prompt_version) {
                record.prompt_id = Some(id.clone());
            }
        }
    }
}

/// Prices the generations that report usage without cost: all the enrichment events naming no
/// prompt need, so it runs where they are converted (`Prepared::encode_events`).
pub fn price_events(prices: &PriceBook, events: &mut [Event]) {
    let mut pricer = Pricer::new(prices);
    for event in events {
        pricer.price_event(event);
    }
}
