//! The monitors resource: create, read, list, change, delete, mute, evaluate now, and the history
//! of a monitor's evaluations and notifications. Every statement is scoped by project.

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use sqlx::types::Json;

use domain::outbound::OutboundPolicy;
use domain::secrets::EncryptionKey;
use reads::Params;
use reads::metrics::Version;
use reads::params::PageRequest;
use resources::{Error, Message, Page, Result, timestamp};

use crate::channels::{StoredChannel, seal};
use crate::model::{
    Comparison, DeliveryBody, EvaluationBody, MAX_MONITORS_PER_PROJECT, MonitorBody, MonitorPatch,
    MonitorQuery, NewMonitor, NotificationBody, check_description, check_interval, check_name,
    check_threshold, check_window,
};

/// What a write needs besides the body: which views the deployment's monitors read, the key that
/// seals channel secrets, and which addresses channels may reach.
pub struct Rules<'a> {
    pub version: Version,
    pub key: Option<&'a EncryptionKey>,
    pub policy: &'a OutboundPolicy,
}

pub(crate) const COLUMNS: &str = "id, project_id, name, description, query, window_seconds, comparison, threshold, \
     interval_seconds, channels, state, muted, last_value, last_evaluated_at, next_due_at, created_at, updated_at";

#[derive(sqlx::FromRow, Clone)]
pub(crate) struct Row {
    pub id: String,
    pub project_id: String,
    pub name: String,
    pub description: String,
    pub query: Json<MonitorQuery>,
    pub window_seconds: i32,
    pub comparison: String,
    pub threshold: f64,
    pub interval_seconds: i32,
    pub channels: Json<Vec<StoredChannel>>,
    pub state: String,
    pub muted: bool,
    pub last_value: Option<f64>,
    pub last_evaluated_at: Option<DateTime<Utc>>,
    pub next_due_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Row {
    pub(crate) fn comparison(&self) -> Comparison {
        Comparison::parse(&self.comparison).unwrap_or(Comparison::Above)
    }
}

impl From<Row> for MonitorBody {
    fn from(row: Row) -> Self {
        Self {
            comparison: row.comparison(),
            id: row.id,
            project_id: row.project_id,
            name: row.name,
            description: row.description,
            query: row.query.0,
            window_seconds: i64::from(row.window_seconds),
            threshold: row.threshold,
            interval_seconds: i64::from(row.interval_seconds),
            channels: row.channels.0.iter().map(StoredChannel::body).collect(),
            state: row.state,
            muted: row.muted,
            last_value: row.last_value,
            last_evaluated_at: row.last_evaluated_at.as_ref().map(timestamp),
            next_evaluation_at: timestamp(&row.next_due_at),
            created_at: timestamp(&row.created_at),
            updated_at: timestamp(&row.updated_at),
        }
    }
}

fn not_found(id: &str) -> Error {
    Error::not_found(format!("Monitor {id} not found"))
}

async fn find(pool: &PgPool, project: &str, id: &str) -> Result<Row> {
    let sql = format!("SELECT {COLUMNS} FROM monitors WHERE project_id = $1 AND id = $2");
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(id)
        .fetch_optional(pool)
        .await?
        .ok_or_else(|| not_found(id))
}

/// `POST /api/public/monitors`: checked whole, then stored; the first evaluation is due at once.
pub async fn create(
    pool: &PgPool,
    project: &str,
    created_by: Option<&str>,
    new: NewMonitor,
    rules: &Rules<'_>,
) -> Result<MonitorBody> {
    let name = check_name(&new.name)?;
    let description = new.description.unwrap_or_default();
    check_description(&description)?;
    check_window(new.window_seconds)?;
    check_interval(new.interval_seconds)?;
    check_threshold(new.threshold)?;
    new.query.check(rules.version)?;
    let channels = seal(new.channels, rules.key, rules.policy)?;
    // The count and the insert share a transaction under a per-project lock, so two creates racing
    // at 99 cannot both see room (a plain count would let both insert and the project reach 101).
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended('loupe-monitors:' || $1, 0))")
        .bind(project)
        .execute(&mut *tx)
        .await?;
    let (count,): (i64,) = sqlx::query_as("SELECT count(*) FROM monitors WHERE project_id = $1")
        .bind(project)
        .fetch_one(&mut *tx)
        .await?;
    if count >= MAX_MONITORS_PER_PROJECT {
        return Err(Error::bad_request(format!(
            "A project has at most {MAX_MONITORS_PER_PROJECT} monitors; delete one first"
        )));
    }
    let sql = format!(
        "INSERT INTO monitors (id, project_id, name, description, query, window_seconds, comparison, threshold, \
             interval_seconds, channels, muted, created_by) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING {COLUMNS}"
    );
    let row: Row = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(project)
        .bind(name)
        .bind(description)
        .bind(Json(&new.query))
        .bind(new.window_seconds as i32)
        .bind(new.comparison.as_str())
        .bind(new.threshold)
        .bind(new.interval_seconds as i32)
        .bind(Json(&channels))
        .bind(new.muted)
        .bind(created_by)
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(row.into())
}

pub async fn get(pool: &PgPool, project: &str, id: &str) -> Result<MonitorBody> {
    Ok(find(pool, project, id).await?.into())
}

/// `GET /api/public/monitors`: newest first, `page` and `limit` (1–100) as every resource list.
pub async fn list(pool: &PgPool, project: &str, params: &Params) -> Result<Page<MonitorBody>> {
    let page = PageRequest::parse(params)?;
    let (total,): (i64,) = sqlx::query_as("SELECT count(*) FROM monitors WHERE project_id = $1")
        .bind(project)
        .fetch_one(pool)
        .await?;
    let sql = format!(
        "SELECT {COLUMNS} FROM monitors WHERE project_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3"
    );
    let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(page.limit)
        .bind(page.offset())
        .fetch_all(pool)
        .await?;
    Ok(Page::new(rows.into_iter().map(MonitorBody::from).collect(), &page, total))
}

/// `PATCH /api/public/monitors/{monitorId}`: absent fields keep their value; the next evaluation
/// is due at once, so a changed threshold or query shows in the state within one poll.
pub async fn update(
    pool: &PgPool,
    project: &str,
    id: &str,
    patch: MonitorPatch,
    rules: &Rules<'_>,
) -> Result<MonitorBody> {
    let mut row = find(pool, project, id).await?;
    if let Some(name) = &patch.name {
        row.name = check_name(name)?;
    }
    if let Some(description) = patch.description {
        check_description(&description)?;
        row.description = description;
    }
    if let Some(query) = patch.query {
        query.check(rules.version)?;
        row.query = Json(query);
    }
    if let Some(window) = patch.window_seconds {
        check_window(window)?;
        row.window_seconds = window as i32;
    }
    if let Some(interval) = patch.interval_seconds {
        check_interval(interval)?;
        row.interval_seconds = interval as i32;
    }
    if let Some(threshold) = patch.threshold {
        check_threshold(threshold)?;
        row.threshold = threshold;
    }
    if let Some(comparison) = patch.comparison {
        row.comparison = comparison.as_str().to_owned();
    }
    if let Some(channels) = patch.channels {
        row.channels = Json(seal(channels, rules.key, rules.policy)?);
    }
    let sql = format!(
        "UPDATE monitors SET name = $3, description = $4, query = $5, window_seconds = $6, comparison = $7, \
             threshold = $8, interval_seconds = $9, channels = $10, next_due_at = now(), updated_at = now() \
         WHERE project_id = $1 AND id = $2 RETURNING {COLUMNS}"
    );
    let row: Row = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(id)
        .bind(&row.name)
        .bind(&row.description)
        .bind(&row.query)
        .bind(row.window_seconds)
        .bind(&row.comparison)
        .bind(row.threshold)
        .bind(row.interval_seconds)
        .bind(&row.channels)
        .fetch_optional(pool)
        .await?
        .ok_or_else(|| not_found(id))?;
    Ok(row.into())
}

pub async fn delete(pool: &PgPool, project: &str, id: &str) -> Result<Message> {
    let done = sqlx::query("DELETE FROM monitors WHERE project_id = $1 AND id = $2")
        .bind(project)
        .bind(id)
        .execute(pool)
        .await?;
    if done.rows_affected() == 0 {
        return Err(not_found(id));
    }
    Ok(Message { message: "Monitor successfully deleted" })
}

/// Mute or unmute. Muted, a monitor is still evaluated and changes state, but makes no
/// notification; unmuting does not replay the transitions it missed.
pub async fn set_muted(pool: &PgPool, project: &str, id: &str, muted: bool) -> Result<MonitorBody> {
    let sql = format!(
        "UPDATE monitors SET muted = $3, updated_at = now() WHERE project_id = $1 AND id = $2 RETURNING {COLUMNS}"
    );
    let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(project)
        .bind(id)
        .bind(muted)
        .fetch_optional(pool)
        .await?;
    Ok(row.ok_or_else(|| not_found(id))?.into())
}

/// Makes the next evaluation due now (the worker takes it at its next poll).
pub async fn evaluate_now(pool: &PgPool, project: &str, id: &str) -> Result<MonitorBody> {
    let sql = format!(
        "UPDATE monitors SET next_due_at = now() WHERE project_id = $1 AND id = $2 RETURNING {COLUMNS}"
    );
    let row: Option<Row> =
        sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(project).bind(id).fetch_optional(pool).await?;
    Ok(row.ok_or_else(|| not_found(id))?.into())
}

#[derive(sqlx::FromRow)]
struct EvaluationRow {
    id: i64,
    evaluated_at: DateTime<Utc>,
    window_from: DateTime<Utc>,
    window_to: DateTime<Utc>,
    value: Option<f64>,
    state: String,
    transition: bool,
    muted: bool,
    error: Option<String>,
}

/// `GET /api/public/monitors/{monitorId}/evaluations`: newest first.
pub async fn evaluations(
    pool: &PgPool,
    project: &str,
    id: &str,
    params: &Params,
) -> Result<Page<EvaluationBody>> {
    let page = PageRequest::parse(params)?;
    find(pool, project, id).await?;
    let (total,): (i64,) = sqlx::query_as("SELECT count(*) FROM monitor_evaluations WHERE monitor_id = $1")
        .bind(id)
        .fetch_one(pool)
        .await?;
    let rows: Vec<EvaluationRow> = sqlx::query_as(
        "SELECT id, evaluated_at, window_from, window_to, value, state, transition, muted, error \
         FROM monitor_evaluations WHERE monitor_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3",
    )
    .bind(id)
    .bind(page.limit)
    .bind(page.offset())
    .fetch_all(pool)
    .await?;
    let data = rows
        .into_iter()
        .map(|r| EvaluationBody {
            id: r.id,
            evaluated_at: timestamp(&r.evaluated_at),
            window_from: timestamp(&r.window_from),
            window_to: timestamp(&r.window_to),
            value: r.value,
            state: r.state,
            transition: r.transition,
            muted: r.muted,
            error: r.error,
        })
        .collect();
    Ok(Page::new(data, &page, total))
}

#[derive(sqlx::FromRow)]
struct NotificationRow {
    id: String,
    evaluation_id: i64,
    channel_index: i32,
    channel_type: String,
    transition: String,
    status: String,
    attempts: i32,
    created_at: DateTime<Utc>,
}

#[derive(sqlx::FromRow)]
struct DeliveryRow {
    notification_id: String,
    attempt: i32,
    attempted_at: DateTime<Utc>,
    status_code: Option<i32>,
    error: Option<String>,
    duration_ms: i32,
}

/// `GET /api/public/monitors/{monitorId}/notifications`: newest first, each with its delivery log.
pub async fn notifications(
    pool: &PgPool,
    project: &str,
    id: &str,
    params: &Params,
) -> Result<Page<NotificationBody>> {
    let page = PageRequest::parse(params)?;
    find(pool, project, id).await?;
    let (total,): (i64,) = sqlx::query_as("SELECT count(*) FROM monitor_notifications WHERE monitor_id = $1")
        .bind(id)
        .fetch_one(pool)
        .await?;
    let rows: Vec<NotificationRow> = sqlx::query_as(
        "SELECT id, evaluation_id, channel_index, channel_type, transition, status, attempts, created_at \
         FROM monitor_notifications WHERE monitor_id = $1 \
         ORDER BY created_at DESC, evaluation_id DESC, channel_index LIMIT $2 OFFSET $3",
    )
    .bind(id)
    .bind(page.limit)
    .bind(page.offset())
    .fetch_all(pool)
    .await?;
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    let deliveries: Vec<DeliveryRow> = sqlx::query_as(
        "SELECT notification_id, attempt, attempted_at, status_code, error, duration_ms FROM monitor_deliveries \
         WHERE notification_id = ANY($1) ORDER BY attempt",
    )
    .bind(&ids)
    .fetch_all(pool)
    .await?;
    let data = rows
        .into_iter()
        .map(|r| NotificationBody {
            deliveries: deliveries
                .iter()
                .filter(|d| d.notification_id == r.id)
                .map(|d| DeliveryBody {
                    attempt: d.attempt,
                    attempted_at: timestamp(&d.attempted_at),
                    status_code: d.status_code,
                    error: d.error.clone(),
                    duration_ms: d.duration_ms,
                })
                .collect(),
            id: r.id,
            evaluation_id: r.evaluation_id,
            channel_index: r.channel_index,
            channel_type: r.channel_type,
            transition: r.transition,
            status: r.status,
            attempts: r.attempts,
            created_at: timestamp(&r.created_at),
        })
        .collect();
    Ok(Page::new(data, &page, total))
}
