//! One evaluation: the monitor's metrics query over its window, the comparison, and — in one
//! transaction — the evaluation row, the new state and, on a transition of an unmuted monitor, one
//! notification per channel (the outbox `deliver` sends from).

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;
use sqlx::PgPool;
use sqlx::types::Json;

use reads::Params;
use reads::metrics::Version;
use resources::timestamp;
use storage::clickhouse::ClickHouse;

use crate::api::{COLUMNS, Row};
use crate::channels::{self, Payload, PayloadMonitor, StoredChannel};
use crate::model::{ALERTING, OK};

/// How long a worker's claim on a monitor lasts: one that dies mid-evaluation leaves it to another
/// worker after this. An evaluation is one bounded ClickHouse read, far shorter.
const CLAIM_SECONDS: i32 = 120;

/// Up to `limit` monitors whose evaluation is due and that no other worker holds, claimed for this
/// one (`FOR UPDATE SKIP LOCKED`: two workers never take the same monitor).
pub(crate) async fn claim_due(pool: &PgPool, limit: i64) -> storage::Result<Vec<Row>> {
    let sql = format!(
        "UPDATE monitors SET claimed_until = now() + make_interval(secs => $2) \
         WHERE id IN (SELECT id FROM monitors WHERE next_due_at <= now() \
             AND (claimed_until IS NULL OR claimed_until < now()) \
             ORDER BY next_due_at LIMIT $1 FOR UPDATE SKIP LOCKED) \
         RETURNING {COLUMNS}"
    );
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(limit)
        .bind(f64::from(CLAIM_SECONDS))
        .fetch_all(pool)
        .await?)
}

/// What the query said: a value (`None`: no data in the window), or why it could not run.
pub(crate) type Measured = Result<Option<f64>, String>;

/// Runs the monitor's query over `[from, to)` through the metrics API's own compiler.
pub(crate) async fn measure(
    clickhouse: &ClickHouse,
    version: Version,
    row: &Row,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Measured {
    let query = row.query.0.metrics_query(&timestamp(&from), &timestamp(&to)).to_string();
    let params = Params::from_pairs([("query", query.as_str())]);
    let body = reads::metrics::run(clickhouse, &row.project_id, &params, version)
        .await
        .map_err(|e| e.to_string())?;
    let key = row.query.0.value_key();
    Ok(body.data.first().and_then(|r| r.get(&key)).and_then(number))
}

/// A metric value as ClickHouse prints it: a number, or a quoted 64-bit integer; NaN (an average
/// or quantile of nothing) and infinities count as no data.
pub(crate) fn number(value: &Value) -> Option<f64> {
    let n = match value {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.parse::<f64>().ok()?,
        _ => return None,
    };
    n.is_finite().then_some(n)
}

/// Records an evaluation of `claimed` (the row as it was claimed). If the monitor was changed or
/// deleted meanwhile, nothing is recorded: a changed monitor is due again at once.
pub(crate) async fn record(
    pool: &PgPool,
    claimed: &Row,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    measured: Measured,
) -> storage::Result<Outcome> {
    let mut tx = pool.begin().await?;
    let sql = format!("SELECT {COLUMNS} FROM monitors WHERE id = $1 FOR UPDATE");
    let current: Option<Row> =
        sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(&claimed.id).fetch_optional(&mut *tx).await?;
    let Some(current) = current else { return Ok(Outcome::Gone) };
    let next_due = to + Duration::seconds(i64::from(current.interval_seconds));
    if current.updated_at != claimed.updated_at {
        sqlx::query("UPDATE monitors SET claimed_until = NULL WHERE id = $1")
            .bind(&current.id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        return Ok(Outcome::Changed);
    }
    let (value, error) = match measured {
        Ok(value) => (value, None),
        Err(error) => (None, Some(error)),
    };
    let state = match &error {
        // A failed query says nothing about the metric: the state stays.
        Some(_) => current.state.clone(),
        None if current.comparison().breached(value, current.threshold) => ALERTING.to_owned(),
        None => OK.to_owned(),
    };
    let transition = state != current.state;
    let (evaluation_id,): (i64,) = sqlx::query_as(
        "INSERT INTO monitor_evaluations (monitor_id, evaluated_at, window_from, window_to, value, state, transition, \
             muted, error) VALUES ($1, $2, $3, $2, $4, $5, $6, $7, $8) RETURNING id",
    )
    .bind(&current.id)
    .bind(to)
    .bind(from)
    .bind(value)
    .bind(&state)
    .bind(transition)
    .bind(current.muted)
    .bind(&error)
    .fetch_one(&mut *tx)
    .await?;
    let mut notified = 0;
    if transition && !current.muted {
        for (index, channel) in current.channels.0.iter().enumerate() {
            let id = uuid::Uuid::now_v7().to_string();
            let payload = Payload {
                kind: if state == ALERTING { "monitor.alerting" } else { "monitor.resolved" }.to_owned(),
                monitor: PayloadMonitor {
                    id: current.id.clone(),
                    name: current.name.clone(),
                    project_id: current.project_id.clone(),
                },
                state: state.clone(),
                previous_state: current.state.clone(),
                value,
                comparison: current.comparison.clone(),
                threshold: current.threshold,
                window_seconds: i64::from(current.window_seconds),
                evaluated_at: timestamp(&to),
                notification_id: id.clone(),
            };
            let body = channels::body(&channel.kind, channel, &payload);
            sqlx::query(
                "INSERT INTO monitor_notifications (id, monitor_id, evaluation_id, channel_index, channel_type, \
                     channel, transition, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(&id)
            .bind(&current.id)
            .bind(evaluation_id)
            .bind(index as i32)
            .bind(&channel.kind)
            .bind(Json::<&StoredChannel>(channel))
            .bind(&state)
            .bind(&body)
            .execute(&mut *tx)
            .await?;
            notified += 1;
        }
    }
    sqlx::query(
        "UPDATE monitors SET state = $2, last_value = $3, last_evaluated_at = $4, next_due_at = $5, \
             claimed_until = NULL WHERE id = $1",
    )
    .bind(&current.id)
    .bind(&state)
    .bind(value)
    .bind(to)
    .bind(next_due)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Outcome::Recorded { transition, notified, failed: error.is_some() })
}

/// What became of a claimed monitor's evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Recorded {
        transition: bool,
        notified: usize,
        failed: bool,
    },
    /// Changed while it was being evaluated: due again at once.
    Changed,
    /// Deleted while it was being evaluated.
    Gone,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_as_clickhouse_prints_them() {
        assert_eq!(number(&json!(3)), Some(3.0));
        assert_eq!(number(&json!("18446744073709551615")), Some(18_446_744_073_709_551_615.0));
        assert_eq!(number(&json!(0.25)), Some(0.25));
        assert_eq!(number(&json!("nan")), None);
        assert_eq!(number(&json!("inf")), None);
        assert_eq!(number(&Value::Null), None);
    }
}
