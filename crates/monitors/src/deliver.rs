//! The notification outbox: each pending notification is claimed by one worker, sent, and every
//! attempt logged with the receiver's status code. A failure that may pass (no answer, 408, 429,
//! 5xx) is retried with exponential back-off up to [`MAX_ATTEMPTS`]; any other 4xx fails at once.

use std::time::{Duration, Instant};

use sqlx::PgPool;
use sqlx::types::Json;

use crate::channels::{self, StoredChannel};
use crate::model::ALERTING;

pub const MAX_ATTEMPTS: i32 = 6;
/// Each request's whole time, connection included.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
const CLAIM_SECONDS: f64 = 60.0;

/// The wait before attempt `attempt + 1`: 1, 2, 4, 8, 16 seconds.
pub fn backoff(attempt: i32) -> Duration {
    Duration::from_secs(1 << (attempt - 1).clamp(0, 4))
}

#[derive(sqlx::FromRow)]
pub(crate) struct Pending {
    id: String,
    channel: Json<StoredChannel>,
    transition: String,
    body: String,
    attempts: i32,
}

pub(crate) async fn claim(pool: &PgPool, limit: i64) -> storage::Result<Vec<Pending>> {
    Ok(sqlx::query_as(
        "UPDATE monitor_notifications SET claimed_until = now() + make_interval(secs => $2) \
         WHERE id IN (SELECT id FROM monitor_notifications WHERE status = 'pending' AND next_attempt_at <= now() \
             AND (claimed_until IS NULL OR claimed_until < now()) \
             ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED) \
         RETURNING id, channel, transition, body, attempts",
    )
    .bind(limit)
    .bind(CLAIM_SECONDS)
    .fetch_all(pool)
    .await?)
}

/// How one attempt ended.
struct Attempt {
    status_code: Option<i32>,
    error: Option<String>,
    /// Worth another try later.
    retry: bool,
}

/// Sends one attempt of `pending` and records it; returns whether it was delivered.
pub(crate) async fn deliver(
    pool: &PgPool,
    http: &reqwest::Client,
    senders: &channels::Senders<'_>,
    pending: Pending,
) -> storage::Result<bool> {
    let attempt_number = pending.attempts + 1;
    let event = if pending.transition == ALERTING { "monitor.alerting" } else { "monitor.resolved" };
    let started = Instant::now();
    let now = chrono::Utc::now().timestamp();
    let attempt = match channels::request(&pending.channel.0, &pending.body, &pending.id, event, senders, now)
    {
        Err(error) => Attempt { status_code: None, error: Some(error), retry: false },
        Ok(request) => send(http, request).await,
    };
    let elapsed = i32::try_from(started.elapsed().as_millis()).unwrap_or(i32::MAX);
    let delivered = attempt.error.is_none();
    let status = if delivered {
        "delivered"
    } else if attempt.retry && attempt_number < MAX_ATTEMPTS {
        "pending"
    } else {
        "failed"
    };
    let wait = backoff(attempt_number).as_secs_f64();
    let mut tx = pool.begin().await?;
    sqlx::query(
        "INSERT INTO monitor_deliveries (notification_id, attempt, status_code, error, duration_ms) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(&pending.id)
    .bind(attempt_number)
    .bind(attempt.status_code)
    .bind(&attempt.error)
    .bind(elapsed)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "UPDATE monitor_notifications SET attempts = $2, status = $3, claimed_until = NULL, updated_at = now(), \
             next_attempt_at = now() + make_interval(secs => $4) WHERE id = $1",
    )
    .bind(&pending.id)
    .bind(attempt_number)
    .bind(status)
    .bind(wait)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    if !delivered {
        tracing::warn!(
            notification = %pending.id, attempt = attempt_number, status, error = attempt.error.as_deref(),
            "monitor notification not delivered"
        );
    }
    Ok(delivered)
}

async fn send(http: &reqwest::Client, request: channels::Request) -> Attempt {
    let mut builder = http.post(&request.url).timeout(REQUEST_TIMEOUT).body(request.body);
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    match builder.send().await {
        // A refused address stays refused: no point in retrying it.
        Err(error) => {
            let words = without_url(&error);
            let refused = words.contains("LANGFUSE_OUTBOUND_ALLOWED_HOSTS");
            Attempt { status_code: None, error: Some(words), retry: !refused }
        }
        Ok(response) => {
            let status = response.status();
            let code = i32::from(status.as_u16());
            if status.is_success() {
                return Attempt { status_code: Some(code), error: None, retry: false };
            }
            let retry = status.is_server_error() || matches!(code, 408 | 429);
            Attempt { status_code: Some(code), error: Some(format!("the receiver answered {status}")), retry }
        }
    }
}

/// reqwest's error names the URL, which for Slack is the secret: the log keeps only the cause.
fn without_url(error: &reqwest::Error) -> String {
    let kind = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else {
        "request failed"
    };
    let mut cause = String::new();
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        cause = inner.to_string();
        source = inner.source();
    }
    if cause.is_empty() { kind.to_owned() } else { format!("{kind}: {cause}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_sixteen_seconds() {
        let waits: Vec<u64> = (1..=MAX_ATTEMPTS).map(|a| backoff(a).as_secs()).collect();
        assert_eq!(waits, vec![1, 2, 4, 8, 16, 16]);
    }
}
