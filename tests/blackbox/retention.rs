//! A project's retention, enforced by the worker: data older than the window goes from every table
//! of both models, from blob storage and from the PostgreSQL rows that are trace data, while newer
//! data and the data of a project without retention stay; a month only retained projects hold is
//! dropped whole; a worker removes nothing while another holds the job's lease; the job's progress shows in `worker retention-status`; `worker migration-status`
//! says from when the events hold every project's window (option B).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant, SystemTime};

use chrono::{DateTime, SecondsFormat, Utc};
use reqwest::Method;
use serde_json::{Value, json};
use sqlx::PgPool;

use crate::api::{Api, basic};
use crate::apps::{command, free_port};

const ADMIN: &str = "Bearer admin-blackbox-key";
const KEPT: &str = "project-blackbox";
const DAYS: i64 = 7;

/// Each project table and the column that dates its rows.
const TABLES: &[(&str, &str)] = &[
    ("observations_batch_staging", "start_time"),
    ("events_full", "start_time"),
    ("events_core", "start_time"),
    ("observations", "start_time"),
    ("scores", "timestamp"),
    ("traces", "timestamp"),
    ("dataset_run_items_rmt", "created_at"),
];
const MONTHLY: &[&str] = &["events_full", "events_core", "observations", "scores", "traces"];

fn ago(days: i64) -> DateTime<Utc> {
    Utc::now() - chrono::Duration::days(days)
}

fn iso(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A trace with one span and one score, all dated `at`.
fn batch(trace_id: &str, at: DateTime<Utc>) -> Value {
    let at = iso(at);
    json!({"batch": [
        {"id": format!("e-{trace_id}"), "type": "trace-create", "timestamp": at,
         "body": {"id": trace_id, "name": "t", "timestamp": at}},
        {"id": format!("o-{trace_id}"), "type": "span-create", "timestamp": at,
         "body": {"id": format!("span-{trace_id}"), "traceId": trace_id, "name": "s", "startTime": at}},
        {"id": format!("s-{trace_id}"), "type": "score-create", "timestamp": at,
         "body": {"id": format!("score-{trace_id}"), "traceId": trace_id, "name": "q", "value": 1}}
    ]})
}

/// A project's rows of `table` dated before the window (7 days) and within it.
async fn split(api: &Api, table: &str, column: &str, project: &str) -> (u64, u64) {
    let sql = format!(
        "SELECT countIf({column} < now64(3) - INTERVAL {DAYS} DAY) FROM {table} WHERE project_id = ?"
    );
    let old: u64 = api.stack.ch.client().query(&sql).bind(project).fetch_one().await.unwrap();
    let sql = format!(
        "SELECT countIf({column} >= now64(3) - INTERVAL {DAYS} DAY) FROM {table} WHERE project_id = ?"
    );
    let new: u64 = api.stack.ch.client().query(&sql).bind(project).fetch_one().await.unwrap();
    (old, new)
}

async fn counts(api: &Api, project: &str) -> Vec<(&'static str, (u64, u64))> {
    let mut all = Vec::new();
    for (table, column) in TABLES {
        all.push((*table, split(api, table, column, project).await));
    }
    all
}

/// Rows the active parts of a partition hold, lightweight-deleted ones included until a merge: 0
/// only when the partition was dropped (moving it away leaves an empty covering part behind for a
/// while, which holds none).
async fn active_rows(api: &Api, table: &str, partition: &str) -> u64 {
    api.stack
        .ch
        .client()
        .query(
            "SELECT toUInt64(sum(rows)) FROM system.parts WHERE database = currentDatabase() AND table = ? \
             AND partition_id = ? AND active",
        )
        .bind(table)
        .bind(partition)
        .fetch_one()
        .await
        .unwrap()
}

/// Rows the ingestion path does not write in these tests: events (v4 producers) and dataset run
/// items, inserted as a writer would.
async fn insert_direct(api: &Api, project: &str, trace: &str, at: DateTime<Utc>) {
    let ch = api.stack.ch.client();
    let ms = at.timestamp_millis();
    ch.query(
        "INSERT INTO events_full (project_id, trace_id, span_id, start_time, event_ts, is_deleted) \
         VALUES (?, ?, ?, fromUnixTimestamp64Milli(toInt64(?)), now64(3), 0)",
    )
    .bind(project)
    .bind(trace)
    .bind(format!("ev-{trace}"))
    .bind(ms)
    .execute()
    .await
    .unwrap();
    ch.query(
        "INSERT INTO dataset_run_items_rmt (id, project_id, dataset_run_id, dataset_item_id, dataset_id, trace_id, \
             created_at, dataset_run_name, dataset_run_created_at, event_ts, is_deleted) \
         VALUES (?, ?, 'run', 'item', 'ds', ?, fromUnixTimestamp64Milli(toInt64(?)), 'run', \
             fromUnixTimestamp64Milli(toInt64(?)), now64(3), 0)",
    )
    .bind(format!("dri-{trace}"))
    .bind(project)
    .bind(trace)
    .bind(ms)
    .bind(ms)
    .execute()
    .await
    .unwrap();
}

fn files_under(dir: &Path) -> BTreeSet<PathBuf> {
    let mut found = BTreeSet::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return found };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.insert(path);
        }
    }
    found
}

/// Makes accepted payload blobs look `days` old: moved to that day's folder of their project
/// (`ingestion/<project>/<yyyy>/<mm>/<dd>/<hh>/<mm>/<file>`) and last modified then. Returns the new paths.
fn age(root: &Path, files: &BTreeSet<PathBuf>, days: i64) -> BTreeSet<PathBuf> {
    let day = ago(days);
    let then = SystemTime::now() - Duration::from_secs(u64::try_from(days).unwrap() * 86_400);
    let mut moved = BTreeSet::new();
    for file in files {
        let parts: Vec<String> = file
            .strip_prefix(root)
            .unwrap()
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        assert_eq!(parts.len(), 7, "project, date, hour, minute and name: {parts:?}");
        let to = root
            .join(&parts[0])
            .join(day.format("%Y/%m/%d").to_string())
            .join(&parts[4])
            .join(&parts[5])
            .join(&parts[6]);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::rename(file, &to).unwrap();
        std::fs::File::options().write(true).open(&to).unwrap().set_modified(then).unwrap();
        moved.insert(to);
    }
    moved
}

/// Sends the batches as `key` and waits until the worker has stored their traces.
async fn ingest(api: &Api, key: &str, project: &str, batches: &[(&str, DateTime<Utc>)]) {
    for (trace, at) in batches {
        let (status, answer) =
            api.send_as(key, Method::POST, "/api/public/ingestion", Some(&batch(trace, *at))).await;
        assert_eq!(status, 207, "{answer}");
    }
    let ids: Vec<String> = batches.iter().map(|(t, _)| (*t).to_owned()).collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let stored: u64 = api
            .stack
            .ch
            .client()
            .query("SELECT count(DISTINCT id) FROM traces WHERE project_id = ? AND id IN ?")
            .bind(project)
            .bind(&ids)
            .fetch_one()
            .await
            .unwrap();
        let scored: u64 = api
            .stack
            .ch
            .client()
            .query("SELECT count(DISTINCT trace_id) FROM scores WHERE project_id = ? AND trace_id IN ?")
            .bind(project)
            .bind(&ids)
            .fetch_one()
            .await
            .unwrap();
        if stored == ids.len() as u64 && scored == ids.len() as u64 {
            return;
        }
        assert!(Instant::now() < deadline, "{ids:?} never stored");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn media(pool: &PgPool, dir: &Path, project: &str, id: &str, links: &[i64]) -> PathBuf {
    let key = format!("media/{project}/{id}.png");
    sqlx::query(
        "INSERT INTO media (project_id, id, sha256_hash, content_type, content_length, blob_key, created_at) \
         VALUES ($1, $2, 'h', 'image/png', 3, $3, now() - interval '40 days')",
    )
    .bind(project)
    .bind(id)
    .bind(&key)
    .execute(pool)
    .await
    .unwrap();
    for (i, days) in links.iter().enumerate() {
        sqlx::query(
            "INSERT INTO media_links (project_id, media_id, trace_id, field, created_at) \
             VALUES ($1, $2, $3, 'input', now() - make_interval(days => $4::int))",
        )
        .bind(project)
        .bind(id)
        .bind(format!("trace-{i}"))
        .bind(i32::try_from(*days).unwrap())
        .execute(pool)
        .await
        .unwrap();
    }
    let path = dir.join(&key);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b"png").unwrap();
    path
}

async fn comment(pool: &PgPool, project: &str, id: &str, object_type: &str, days: i32) {
    sqlx::query(
        "INSERT INTO comments (id, project_id, object_type, object_id, content, created_at) \
         VALUES ($1, $2, $3, 'x', 'c', now() - make_interval(days => $4))",
    )
    .bind(id)
    .bind(project)
    .bind(object_type)
    .bind(days)
    .execute(pool)
    .await
    .unwrap();
}

async fn comment_ids(pool: &PgPool) -> Vec<String> {
    sqlx::query_scalar("SELECT id FROM comments ORDER BY id").fetch_all(pool).await.unwrap()
}

/// `(target, last removed, removed in all, partitions dropped, last error)` of a project.
type ProgressRow = (String, i64, i64, i64, Option<String>);

async fn progress(pool: &PgPool, project: &str) -> Vec<ProgressRow> {
    sqlx::query_as(
        "SELECT target, last_removed, removed_total, partitions_dropped, last_error FROM retention_progress \
         WHERE project_id = $1 ORDER BY target",
    )
    .bind(project)
    .fetch_all(pool)
    .await
    .unwrap()
}

async fn subcommand(api: &Api, name: &str) -> String {
    let output = command("worker", &api.stack.env)
        .arg(name)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .output()
        .await
        .unwrap();
    assert!(output.status.success(), "{name}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[tokio::test]
async fn data_past_the_window_goes_everywhere_and_the_rest_stays() {
    let dir = std::env::temp_dir().join(format!("loupe-retention-{}", free_port()));
    let api = Api::start_with(
        &[
            ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual"),
            ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
            ("LANGFUSE_EVENT_UPLOAD_LOCAL_DIR", dir.to_str().unwrap()),
            // Every payload kept as a blob, so blob retention has something to remove.
            ("LANGFUSE_INGESTION_QUEUE_INLINE_MAX_BYTES", "0"),
            ("LANGFUSE_RETENTION_INTERVAL_SECONDS", "1"),
            ("LANGFUSE_RETENTION_PAUSE_MS", "0"),
        ],
        &test_support::S3_SETTINGS,
    )
    .await;
    let worker = api.worker().await;
    let (status, key) =
        api.send_as(ADMIN, Method::POST, "/api/admin/organizations/org-blackbox/apiKeys", None).await;
    assert_eq!(status, 201, "{key}");
    let org = basic(key["publicKey"].as_str().unwrap(), key["secretKey"].as_str().unwrap());
    // The retention is set once the data is in, so no pass removes it before it is counted.
    let (status, project) = api
        .send_as(&org, Method::POST, "/api/public/projects", Some(&json!({"name": "weekly", "retention": 0})))
        .await;
    assert_eq!(status, 201, "{project}");
    let weekly = project["id"].as_str().unwrap().to_owned();
    let (status, key) =
        api.send_as(&org, Method::POST, &format!("/api/public/projects/{weekly}/apiKeys"), None).await;
    assert_eq!(status, 201, "{key}");
    let weekly_key = basic(key["publicKey"].as_str().unwrap(), key["secretKey"].as_str().unwrap());

    // The weekly project alone has data 400 days old: that month can be dropped whole. Both have
    // data 40 days old, whose month the project without retention keeps: deleted row by row.
    let (ancient, old, recent) = (ago(400), ago(40), ago(1));
    ingest(&api, &weekly_key, &weekly, &[("w-ancient", ancient), ("w-old", old)]).await;
    ingest(&api, &api.key, KEPT, &[("k-old", old)]).await;
    let old_blobs = age(&dir.join("ingestion"), &files_under(&dir.join("ingestion")), 40);
    assert!(!old_blobs.is_empty(), "the batches were kept as blobs");
    ingest(&api, &weekly_key, &weekly, &[("w-recent", recent)]).await;
    ingest(&api, &api.key, KEPT, &[("k-recent", recent)]).await;
    let recent_blobs: BTreeSet<PathBuf> =
        files_under(&dir.join("ingestion")).difference(&old_blobs).cloned().collect();
    for (project, prefix) in [(weekly.as_str(), "w"), (KEPT, "k")] {
        for (suffix, at) in [("ancient", ancient), ("old", old), ("recent", recent)] {
            if project == KEPT && suffix == "ancient" {
                continue;
            }
            insert_direct(&api, project, &format!("{prefix}-{suffix}"), at).await;
        }
    }
    let pool = api.stack.pg.pool().await;
    let old_media = media(&pool, &dir, &weekly, "m-old", &[40]).await;
    let reused_media = media(&pool, &dir, &weekly, "m-reused", &[40, 1]).await;
    let kept_media = media(&pool, &dir, KEPT, "m-kept", &[40]).await;
    comment(&pool, &weekly, "c-old", "TRACE", 40).await;
    comment(&pool, &weekly, "c-recent", "OBSERVATION", 1).await;
    comment(&pool, &weekly, "c-prompt", "PROMPT", 40).await;
    comment(&pool, KEPT, "c-kept", "TRACE", 40).await;

    let weekly_before = counts(&api, &weekly).await;
    let kept_before = counts(&api, KEPT).await;
    for (table, (old_rows, new_rows)) in &weekly_before {
        assert!(
            *old_rows >= 1 && *new_rows >= 1,
            "{table} holds old and new rows of the project: {weekly_before:?}"
        );
    }
    let ancient_month = ancient.format("%Y%m").to_string();
    let old_month = old.format("%Y%m").to_string();
    for table in MONTHLY {
        assert!(active_rows(&api, table, &ancient_month).await > 0, "{table} has the month {ancient_month}");
    }

    // Another worker holds the job's lease: this one removes nothing meanwhile.
    sqlx::query(
        "INSERT INTO migration_leases (name, holder, lease_until) \
         VALUES ('retention', 'another-worker', now() + interval '1 hour') \
         ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, lease_until = EXCLUDED.lease_until",
    )
    .execute(&pool)
    .await
    .unwrap();
    let update = json!({"name": "weekly", "retention": DAYS});
    let (status, body) =
        api.send_as(&org, Method::PUT, &format!("/api/public/projects/{weekly}"), Some(&update)).await;
    assert_eq!((status, body["retentionDays"].as_i64()), (200, Some(DAYS)), "{body}");
    // Three times the interval: passes would have run had the lease been free.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(counts(&api, &weekly).await, weekly_before, "nothing removed under another's lease");
    assert!(progress(&pool, &weekly).await.is_empty());
    sqlx::query("UPDATE migration_leases SET lease_until = now() WHERE name = 'retention'")
        .execute(&pool)
        .await
        .unwrap();

    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let now = counts(&api, &weekly).await;
        let done = now.iter().all(|(_, (old_rows, _))| *old_rows == 0)
            // A progress row per table, per blob folder, and for comments and dead letters.
            && progress(&pool, &weekly).await.len()
                == TABLES.len() + resources::identity::deletion::BLOB_FOLDERS.len() + 2
            && !old_media.exists()
            && old_blobs
                .iter()
                .filter(|f| f.starts_with(dir.join("ingestion").join(&weekly)))
                .all(|f| !f.exists());
        if done {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "retention never removed the old data: {now:?}\n{}",
            worker.log_tail()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }

    // Newer data and the other project's data are untouched, table by table.
    let weekly_after = counts(&api, &weekly).await;
    for ((table, (_, new_before)), (_, (old_after, new_after))) in weekly_before.iter().zip(&weekly_after) {
        assert_eq!((*old_after, new_after), (0, new_before), "{table}: the window's rows stay");
    }
    assert_eq!(counts(&api, KEPT).await, kept_before, "a project without retention keeps everything");
    // The month only the weekly project had is dropped whole; the month both have stays.
    for table in MONTHLY {
        assert_eq!(active_rows(&api, table, &ancient_month).await, 0, "{table} {ancient_month} dropped");
        assert!(active_rows(&api, table, &old_month).await > 0, "{table} {old_month} is kept");
    }
    // Blob storage: the old payloads of the weekly project go, the rest stays.
    for file in &old_blobs {
        let weekly_file = file.starts_with(dir.join("ingestion").join(&weekly));
        assert_eq!(file.exists(), !weekly_file, "{}", file.display());
    }
    assert!(recent_blobs.iter().all(|f| f.exists()), "recent payloads stay");
    assert!(!old_media.exists() && reused_media.exists() && kept_media.exists());
    let media_ids: Vec<String> =
        sqlx::query_scalar("SELECT id FROM media ORDER BY id").fetch_all(&pool).await.unwrap();
    assert_eq!(media_ids, ["m-kept", "m-reused"], "media a recent trace refers to stays");
    assert_eq!(comment_ids(&pool).await, ["c-kept", "c-prompt", "c-recent"]);

    // Progress per target: rows removed, partitions dropped, no error.
    let rows = progress(&pool, &weekly).await;
    let of = |target: &str| rows.iter().find(|r| r.0 == target).cloned().unwrap();
    for (table, _) in TABLES {
        let (_, _, total, dropped, error) = of(&format!("clickhouse:{table}"));
        assert_eq!(error, None, "{table}");
        assert!(total >= 1, "{table} removed rows: {rows:?}");
        assert_eq!(dropped > 0, MONTHLY.contains(table), "{table}: {rows:?}");
    }
    assert!(of("blobs:ingestion").2 >= 1 && of("blobs:media").2 == 1 && of("postgres:comments").2 == 1);

    // A further pass finds nothing more: the totals stay.
    let before: i64 = rows.iter().map(|r| r.2).sum();
    let pass: DateTime<Utc> =
        sqlx::query_scalar("SELECT started_at FROM retention_passes").fetch_one(&pool).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let finished: Option<DateTime<Utc>> =
            sqlx::query_scalar("SELECT finished_at FROM retention_passes WHERE started_at > $1")
                .bind(pass)
                .fetch_optional(&pool)
                .await
                .unwrap()
                .flatten();
        if finished.is_some() {
            break;
        }
        assert!(Instant::now() < deadline, "no further pass");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let again = progress(&pool, &weekly).await;
    assert_eq!(again.iter().map(|r| r.2).sum::<i64>(), before, "{again:?}");
    assert!(again.iter().all(|r| r.1 == 0), "the repeat removed nothing: {again:?}");

    let status = subcommand(&api, "retention-status").await;
    assert!(status.contains(&format!("project {weekly}: retention 7 days")), "{status}");
    assert!(status.contains(&format!("project {KEPT}: no retention, data is kept forever")), "{status}");
    assert!(status.contains("clickhouse:events_full") && status.contains("partitions dropped"), "{status}");
    assert!(status.contains("last pass started"), "{status}");
}

#[tokio::test]
async fn migration_status_says_from_when_the_events_hold_every_window() {
    let api = Api::start(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual")]).await;
    let pool = api.stack.pg.pool().await;
    let started = Utc::now() - chrono::Duration::days(10);
    sqlx::query(
        "INSERT INTO write_mode_history (write_mode, first_seen_at) VALUES ('dual', $1) \
         ON CONFLICT (write_mode) DO UPDATE SET first_seen_at = $1",
    )
    .bind(started)
    .execute(&pool)
    .await
    .unwrap();
    let status = subcommand(&api, "migration-status").await;
    assert!(status.contains("projects keep data forever (project-blackbox)"), "{status}");

    sqlx::query("UPDATE projects SET retention_days = 30").execute(&pool).await.unwrap();
    let status = subcommand(&api, "migration-status").await;
    let line = status.lines().find(|l| l.contains("historic data is in the v4 tables")).unwrap();
    assert!(line.contains("[no]"), "{line}");
    let from: DateTime<Utc> =
        sqlx::query_scalar("SELECT first_seen_at + interval '30 days' FROM write_mode_history")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert!(
        line.contains(&format!("the events hold every project's whole retention window from {from}")),
        "{line}"
    );

    sqlx::query("UPDATE write_mode_history SET first_seen_at = now() - interval '31 days'")
        .execute(&pool)
        .await
        .unwrap();
    let status = subcommand(&api, "migration-status").await;
    let line = status.lines().find(|l| l.contains("historic data is in the v4 tables")).unwrap();
    assert!(line.contains("[yes]") && line.contains("cutover possible without backfill"), "{line}");
}
