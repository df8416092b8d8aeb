//! Dual-write propagation: closed staging partitions reach `events_full` with their trace's
//! attributes, exactly once, by one worker at a time; a partition held back is reported stuck.

use std::time::Duration;

use chrono::Utc;
use domain::config::WriteMode;
use migration::propagation::{Propagation, RunOutcome};
use migration::propagation_health;
use tokio_util::sync::CancellationToken;

use crate::{Env, env, migration, propagation_settings};

fn propagation(env: &Env, holder: &str) -> Propagation {
    Propagation {
        clickhouse: env.ch.clone(),
        postgres: env.pool.clone(),
        settings: propagation_settings(),
        write_mode: WriteMode::Dual,
        holder: holder.into(),
    }
}

/// Stages a trace and two observations `minutes_ago` (the partitioning clock).
async fn stage(env: &Env, trace: &str, minutes_ago: u32) {
    env.exec(&format!(
        "INSERT INTO observations_batch_staging (id, trace_id, project_id, type, parent_observation_id, start_time, \
         name, metadata, level, event_ts, is_deleted, s3_first_seen_timestamp, ingestion_sdk_name) VALUES \
         ('t-{trace}', '{trace}', 'p1', 'SPAN', NULL, now64(3) - INTERVAL 30 MINUTE, 'root', map(), 'DEFAULT', now64(3), 0, now64(3) - INTERVAL {minutes_ago} MINUTE, 'python'), \
         ('{trace}-a', '{trace}', 'p1', 'SPAN', NULL, now64(3) - INTERVAL 30 MINUTE, 'a', map('shared', 'obs', 'own', '1'), 'DEFAULT', now64(3), 0, now64(3) - INTERVAL {minutes_ago} MINUTE, 'python'), \
         ('{trace}-b', '{trace}', 'p1', 'GENERATION', '{trace}-a', now64(3) - INTERVAL 29 MINUTE, 'b', map(), 'DEFAULT', now64(3), 0, now64(3) - INTERVAL {minutes_ago} MINUTE, 'python')"
    ))
    .await;
    env.exec(&format!(
        "INSERT INTO traces (id, timestamp, name, user_id, session_id, metadata, project_id, tags, event_ts, is_deleted) \
         VALUES ('{trace}', now64(3) - INTERVAL 30 MINUTE, 'trace-{trace}', 'user-{trace}', 'session-{trace}', \
         map('shared', 'trace', 'tk', 'tv'), 'p1', ['x'], now64(3), 0)"
    ))
    .await;
}

#[derive(clickhouse::Row, serde::Deserialize, Debug)]
struct Row {
    span_id: String,
    parent_span_id: String,
    user_id: String,
    session_id: String,
    trace_name: String,
    metadata_names: Vec<String>,
    metadata_values: Vec<String>,
    source: String,
    ingestion_sdk_name: String,
}

async fn events(env: &Env) -> Vec<Row> {
    env.ch
        .client()
        .query(
            "SELECT span_id, parent_span_id, user_id, session_id, trace_name, metadata_names, metadata_values, source, \
             ingestion_sdk_name FROM events_full FINAL ORDER BY span_id",
        )
        .fetch_all()
        .await
        .unwrap()
}

#[tokio::test]
async fn closed_partitions_are_copied_once_with_their_trace_attributes() {
    let env = env().await;
    stage(&env, "old", 20).await;
    stage(&env, "new", 0).await;
    let job = propagation(&env, "worker-a");
    let outcome = job.run_once(&CancellationToken::new()).await.unwrap();
    assert_eq!(outcome, RunOutcome::Propagated { partitions: 1, rows: 3 });
    let rows = events(&env).await;
    let spans: Vec<&str> = rows.iter().map(|r| r.span_id.as_str()).collect();
    assert_eq!(spans, ["old-a", "old-b", "t-old"], "only the closed partition is copied");
    let (a, b, root) = (&rows[0], &rows[1], &rows[2]);
    assert_eq!(
        (root.parent_span_id.as_str(), a.parent_span_id.as_str(), b.parent_span_id.as_str()),
        ("", "t-old", "old-a")
    );
    for row in &rows {
        assert_eq!((row.user_id.as_str(), row.session_id.as_str()), ("user-old", "session-old"), "{row:?}");
        assert_eq!(row.trace_name, "trace-old");
        assert_eq!(row.source, "ingestion-api-dual-write");
        assert_eq!(row.ingestion_sdk_name, "python");
    }
    let metadata: Vec<(&str, &str)> = a
        .metadata_names
        .iter()
        .map(String::as_str)
        .zip(a.metadata_values.iter().map(String::as_str))
        .collect();
    assert!(metadata.contains(&("shared", "obs")), "the observation's key wins: {metadata:?}");
    assert!(metadata.contains(&("tk", "tv")) && metadata.contains(&("own", "1")), "{metadata:?}");
    assert_eq!(metadata.len(), 3, "no duplicate keys: {metadata:?}");

    let state = storage::propagation_state::get(&env.pool).await.unwrap();
    assert!(state.last_partition.is_some());
    assert_eq!((state.rows_propagated, state.partitions_propagated), (3, 1));
    let again = job.run_once(&CancellationToken::new()).await.unwrap();
    assert_eq!(again, RunOutcome::Propagated { partitions: 0, rows: 0 }, "a partition is copied once");
}

#[tokio::test]
async fn a_due_partition_left_waiting_past_the_threshold_is_stuck() {
    let env = env().await;
    stage(&env, "late", 40).await;
    let settings = propagation_settings();
    let dual = migration(WriteMode::Dual);
    let health = propagation_health::check(&env.ch, &env.pool, &dual, &settings, Utc::now()).await.unwrap();
    assert!(health.stuck, "{health:?}");
    assert!(health.oldest_due_waiting_seconds.unwrap() > 15 * 60, "{health:?}");
    assert!(health.reason.contains("over the"), "{}", health.reason);

    let legacy = migration(WriteMode::Legacy);
    let health = propagation_health::check(&env.ch, &env.pool, &legacy, &settings, Utc::now()).await.unwrap();
    assert!(!health.enabled && !health.stuck, "legacy mode never propagates: {health:?}");

    propagation(&env, "worker-a").run_once(&CancellationToken::new()).await.unwrap();
    let health = propagation_health::check(&env.ch, &env.pool, &dual, &settings, Utc::now()).await.unwrap();
    assert!(!health.stuck && health.pending_partitions == 0, "{health:?}");
}

#[tokio::test]
async fn one_worker_propagates_at_a_time_and_a_dead_holder_is_replaced() {
    let env = env().await;
    stage(&env, "old", 20).await;
    let name = migration::propagation::LEASE;
    assert!(storage::leases::try_acquire(&env.pool, name, "crashed", Duration::from_secs(2)).await.unwrap());
    let b = propagation(&env, "worker-b");
    assert_eq!(b.run_once(&CancellationToken::new()).await.unwrap(), RunOutcome::NotLeader);
    // The crashed holder never renews: its lease runs out and worker-b takes over.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        match b.run_once(&CancellationToken::new()).await.unwrap() {
            RunOutcome::NotLeader if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(200)).await
            }
            outcome => {
                assert_eq!(outcome, RunOutcome::Propagated { partitions: 1, rows: 3 });
                break;
            }
        }
    }
}
