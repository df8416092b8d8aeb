//! The worker's monitors job: every poll, evaluate the monitors that are due (claimed, so two
//! workers never evaluate the same one at once) and send the pending notifications, each bounded
//! by `LANGFUSE_MONITORS_MAX_PER_TICK`. Everything it needs to resume is in PostgreSQL (the next
//! due time, the outbox), so a restarted worker picks up where the last one was.

use chrono::{Duration, Utc};
use futures::StreamExt;
use sqlx::PgPool;
use tokio_util::sync::CancellationToken;

use domain::config::{MonitorSettings, WriteMode};
use domain::outbound::OutboundPolicy;
use domain::secrets::EncryptionKey;
use storage::clickhouse::ClickHouse;

use crate::engine::{self, Outcome};
use crate::{deliver, model};

/// Evaluations run at once within one poll.
const EVALUATION_CONCURRENCY: usize = 4;
/// Deliveries in flight at once within one poll.
const DELIVERY_CONCURRENCY: usize = 8;

pub struct Monitors {
    pub postgres: PgPool,
    pub clickhouse: ClickHouse,
    pub settings: MonitorSettings,
    pub write_mode: WriteMode,
    pub key: Option<EncryptionKey>,
    /// Which addresses channels may reach (`LANGFUSE_OUTBOUND_ALLOWED_HOSTS`).
    pub policy: OutboundPolicy,
    /// Built by [`http_client`] over the same policy.
    pub http: reqwest::Client,
}

/// What one poll did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tick {
    pub evaluated: usize,
    pub transitions: usize,
    pub delivered: usize,
    pub undelivered: usize,
}

/// The HTTP client of the channels: the outbound crate's guarded resolver (every address a name
/// resolves to is checked against `policy`), and no redirects (a notification is a POST that a
/// receiver should answer, not bounce elsewhere).
pub fn http_client(policy: &OutboundPolicy) -> reqwest::Client {
    outbound::guarded_builder(std::sync::Arc::new(policy.clone()))
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(std::time::Duration::from_secs(5))
        .build()
        .unwrap_or_default()
}

impl Monitors {
    pub async fn run(self, shutdown: CancellationToken) {
        tracing::info!(poll_ms = self.settings.poll_interval.as_millis() as u64, "monitors job started");
        loop {
            if let Err(error) = self.tick().await {
                tracing::warn!(%error, "monitors: a poll failed; trying again at the next");
            }
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = tokio::time::sleep(self.settings.poll_interval) => {}
            }
        }
    }

    /// One poll: the due evaluations, then the deliveries (those of this poll's transitions too).
    pub async fn tick(&self) -> storage::Result<Tick> {
        let mut tick = Tick::default();
        let limit = i64::from(self.settings.max_per_tick);
        let due = engine::claim_due(&self.postgres, limit).await?;
        let version = model::version_for(self.write_mode);
        let outcomes: Vec<storage::Result<Outcome>> = futures::stream::iter(due)
            .map(|row| async move {
                let to = Utc::now();
                let from = to - Duration::seconds(i64::from(row.window_seconds));
                let measured = engine::measure(&self.clickhouse, version, &row, from, to).await;
                if let Err(error) = &measured {
                    tracing::warn!(monitor = %row.id, %error, "monitor query failed");
                }
                engine::record(&self.postgres, &row, from, to, measured).await
            })
            .buffer_unordered(EVALUATION_CONCURRENCY)
            .collect()
            .await;
        for outcome in outcomes {
            if let Outcome::Recorded { transition, .. } = outcome? {
                tick.evaluated += 1;
                tick.transitions += usize::from(transition);
            }
        }
        let pending = deliver::claim(&self.postgres, limit).await?;
        let senders = crate::channels::Senders {
            key: self.key.as_ref(),
            github_api_url: &self.settings.github_api_url,
            policy: &self.policy,
        };
        let results: Vec<storage::Result<bool>> = futures::stream::iter(pending)
            .map(|p| deliver::deliver(&self.postgres, &self.http, &senders, p))
            .buffer_unordered(DELIVERY_CONCURRENCY)
            .collect()
            .await;
        for delivered in results {
            if delivered? {
                tick.delivered += 1;
            } else {
                tick.undelivered += 1;
            }
        }
        Ok(tick)
    }
}
