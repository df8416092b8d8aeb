//! The historic backfill chain on hand-made v3 data: roots, nested and orphan observations, a
//! wrapper trace, duplicate trace versions, an experiment tree with two run items.

use std::collections::BTreeMap;

use domain::config::WriteMode;
use migration::backfill::{Backfill, ChainOutcome, SCRATCH_TABLE, Step};
use storage::background_migrations::StepStatus;
use tokio_util::sync::CancellationToken;

use crate::{Env, backfill_settings, env, migration};

const OLD_TABLES: [&str; 4] = ["traces", "observations", "scores", "dataset_run_items_rmt"];

async fn seed(env: &Env) {
    env.exec(
        "INSERT INTO traces (id, timestamp, name, user_id, metadata, release, version, project_id, public, \
         bookmarked, tags, input, session_id, event_ts, is_deleted) VALUES \
         ('T1', '2026-11-10 10:00:00', 'chat', 'u1', map('tk', 'tv'), 'r1', 'v1', 'p1', true, true, ['a', 'b'], '\"hi\"', 's1', '2026-11-10 10:00:00', 0), \
         ('T2', '2026-10-15 10:00:00', 'old-v0', 'u2', map(), NULL, NULL, 'p1', false, false, [], NULL, NULL, '2026-10-15 10:00:00', 0), \
         ('T2', '2026-10-15 10:00:00', 'old', 'u2', map(), NULL, NULL, 'p1', false, false, [], NULL, NULL, '2026-10-15 10:05:00', 0), \
         ('W', '2026-11-10 11:00:00', 'wrapper', NULL, map(), NULL, NULL, 'p1', false, false, [], NULL, NULL, '2026-11-10 11:00:00', 0), \
         ('E', '2026-11-09 10:00:00', 'exp', 'u3', map(), NULL, NULL, 'p1', false, false, [], NULL, NULL, '2026-11-09 10:00:00', 0)",
    )
    .await;
    env.exec(
        "INSERT INTO observations (id, trace_id, project_id, type, parent_observation_id, start_time, name, \
         metadata, level, version, event_ts, is_deleted) VALUES \
         ('A', 'T1', 'p1', 'SPAN', NULL, '2026-11-10 10:00:01', 'a', map('ok', 'ov'), 'DEFAULT', NULL, '2026-11-10 10:00:01', 0), \
         ('B', 'T1', 'p1', 'GENERATION', 'A', '2026-11-10 10:00:02', 'b', map(), 'DEFAULT', 'vb', '2026-11-10 10:00:02', 0), \
         ('C', 'T2', 'p1', 'EVENT', NULL, '2026-10-15 10:00:01', 'c', map(), 'DEFAULT', NULL, '2026-10-15 10:00:01', 0), \
         ('W', 'W', 'p1', 'SPAN', NULL, '2026-11-10 11:00:00', 'w', map(), 'DEFAULT', NULL, '2026-11-10 11:00:00', 0), \
         ('O', 'missing', 'p1', 'SPAN', NULL, '2026-11-10 12:00:00', 'o', map(), 'DEFAULT', NULL, '2026-11-10 12:00:00', 0), \
         ('E1', 'E', 'p1', 'SPAN', NULL, '2026-11-09 10:00:01', 'e1', map(), 'DEFAULT', NULL, '2026-11-09 10:00:01', 0), \
         ('E2', 'E', 'p1', 'SPAN', 'E1', '2026-11-09 10:00:02', 'e2', map(), 'DEFAULT', NULL, '2026-11-09 10:00:02', 0), \
         ('E3', 'E', 'p1', 'GENERATION', 'E2', '2026-11-09 10:00:03', 'e3', map(), 'DEFAULT', NULL, '2026-11-09 10:00:03', 0)",
    )
    .await;
    env.exec(
        "INSERT INTO dataset_run_items_rmt (id, project_id, dataset_run_id, dataset_item_id, dataset_id, trace_id, \
         observation_id, created_at, dataset_run_name, dataset_run_metadata, dataset_run_created_at, \
         dataset_item_expected_output, dataset_item_metadata, event_ts, is_deleted) VALUES \
         ('dri1', 'p1', 'run1', 'item1', 'ds', 'E', NULL, '2026-11-09 10:00:00', 'first run', map('m', '1'), '2026-11-09 10:00:00', '\"yes\"', map('im', 'iv'), '2026-11-09 10:00:00', 0), \
         ('dri2', 'p1', 'run2', 'item2', 'ds', 'E', 'E2', '2026-11-09 11:00:00', 'second run', map(), '2026-11-09 11:00:00', NULL, map(), '2026-11-09 11:00:00', 0)",
    )
    .await;
}

#[derive(Debug, PartialEq, Eq, Clone)]
struct Event {
    parent: String,
    trace_name: String,
    user_id: String,
    session_id: String,
    version: String,
    bookmarked: bool,
    metadata_names: Vec<String>,
    experiment_id: String,
    experiment_root: String,
}

#[derive(clickhouse::Row, serde::Deserialize)]
struct EventRow {
    span_id: String,
    parent_span_id: String,
    trace_name: String,
    user_id: String,
    session_id: String,
    version: String,
    bookmarked: bool,
    metadata_names: Vec<String>,
    experiment_id: String,
    experiment_item_root_span_id: String,
}

async fn events(env: &Env) -> BTreeMap<String, Event> {
    let rows: Vec<EventRow> = env
        .ch
        .client()
        .query(
            "SELECT span_id, parent_span_id, trace_name, user_id, session_id, version, bookmarked, metadata_names, \
             experiment_id, experiment_item_root_span_id FROM events_full FINAL ORDER BY span_id",
        )
        .fetch_all()
        .await
        .unwrap();
    let mut events = BTreeMap::new();
    for row in rows {
        let event = Event {
            parent: row.parent_span_id,
            trace_name: row.trace_name,
            user_id: row.user_id,
            session_id: row.session_id,
            version: row.version,
            bookmarked: row.bookmarked,
            metadata_names: row.metadata_names,
            experiment_id: row.experiment_id,
            experiment_root: row.experiment_item_root_span_id,
        };
        assert!(events.insert(row.span_id.clone(), event).is_none(), "span {} appears twice", row.span_id);
    }
    events
}

fn expect_migrated(events: &BTreeMap<String, Event>) {
    let spans: Vec<&str> = events.keys().map(String::as_str).collect();
    assert_eq!(spans, ["A", "B", "C", "E1", "E2", "E3", "O", "W", "t-E", "t-T1", "t-T2", "t-W"]);
    let root = &events["t-T1"];
    assert_eq!((root.parent.as_str(), root.trace_name.as_str(), root.user_id.as_str()), ("", "chat", "u1"));
    assert_eq!(root.metadata_names, ["tk"], "a root keeps its trace's metadata");
    let a = &events["A"];
    assert_eq!(
        (
            a.parent.as_str(),
            a.trace_name.as_str(),
            a.user_id.as_str(),
            a.session_id.as_str(),
            a.version.as_str()
        ),
        ("t-T1", "chat", "u1", "s1", "v1")
    );
    assert!(a.bookmarked, "a top-level observation carries the trace's bookmark");
    assert_eq!(a.metadata_names, ["ok"], "trace metadata is not copied onto observations");
    let b = &events["B"];
    assert_eq!((b.parent.as_str(), b.version.as_str(), b.bookmarked), ("A", "vb", false));
    assert_eq!(events["t-T2"].trace_name, "old", "the latest trace version wins");
    assert_eq!(events["C"].trace_name, "old");
    assert_eq!(events["W"].parent, "", "a wrapper trace's observation is a root");
    assert_eq!((events["O"].parent.as_str(), events["O"].user_id.as_str()), ("t-missing", ""));
    for (span, run, root) in
        [("t-E", "run1", "t-E"), ("E1", "run1", "t-E"), ("E2", "run2", "E2"), ("E3", "run2", "E2")]
    {
        assert_eq!(
            (events[span].experiment_id.as_str(), events[span].experiment_root.as_str()),
            (run, root),
            "{span}"
        );
        assert_eq!(events[span].user_id, "u3", "{span}");
    }
    for span in ["A", "t-T1", "O"] {
        assert_eq!(events[span].experiment_id, "", "{span}");
    }
}

fn backfill(env: &Env, chunk_rows: u64) -> Backfill {
    Backfill {
        clickhouse: env.ch.clone(),
        postgres: env.pool.clone(),
        settings: backfill_settings(chunk_rows),
        migration: migration(WriteMode::Dual),
        holder: "worker-a".into(),
        chunk_budget: None,
    }
}

async fn statuses(env: &Env) -> Vec<StepStatus> {
    storage::background_migrations::list(&env.pool).await.unwrap().into_iter().map(|s| s.status).collect()
}

async fn checksums(env: &Env) -> Vec<(u64, u64)> {
    let mut sums = Vec::new();
    for table in OLD_TABLES {
        sums.push(env.checksum(table).await);
    }
    sums
}

#[tokio::test]
async fn the_chain_builds_every_event_and_leaves_the_old_tables_alone() {
    let env = env().await;
    seed(&env).await;
    let before = checksums(&env).await;
    let unmigrated = migration::verify::verify(&env.ch, None).await.unwrap();
    let missing: Vec<u64> = unmigrated.checks.iter().map(|c| c.mismatches).collect();
    // 4 traces without roots, 8 observations without events, 0 attributes to compare, no scores,
    // 2 run-item spans without their experiment.
    assert_eq!(missing, [4, 8, 0, 0, 2], "{}", migration::verify::render(&unmigrated));
    let outcome = backfill(&env, 2).run_chain(&CancellationToken::new()).await.unwrap();
    assert_eq!(
        outcome,
        ChainOutcome::Dormant {
            step: Step::DropScratchTable.name(),
            gate: "LANGFUSE_BACKGROUND_MIGRATION_V4_DROP_PID_TID_SORTING_TABLES"
        }
    );
    use StepStatus::*;
    assert_eq!(statuses(&env).await, [Succeeded, Succeeded, Succeeded, Succeeded, Pending]);
    expect_migrated(&events(&env).await);
    assert_eq!(checksums(&env).await, before, "the old tables changed");
    let verified = migration::verify::verify(&env.ch, Some("p1")).await.unwrap();
    assert_eq!(verified.mismatches(), 0, "{}", migration::verify::render(&verified));
    assert_eq!(verified.checks[2].checked, 12, "every backfilled event is compared with its trace");
    let steps = storage::background_migrations::list(&env.pool).await.unwrap();
    // The two versions of T2 collapse on insert (optimize_on_insert), so four trace rows.
    assert_eq!((steps[0].rows_done, steps[0].rows_estimated), (4, Some(4)), "traces counted");
    assert_eq!((steps[1].rows_done, steps[2].rows_done), (8, 8), "observations counted");
    assert_eq!(steps[3].rows_done, 1, "one experiment trace");
}

#[tokio::test]
async fn interrupted_after_every_chunk_it_resumes_to_the_same_result_and_a_rerun_changes_nothing() {
    let env = env().await;
    seed(&env).await;
    let mut interrupted = backfill(&env, 1);
    interrupted.chunk_budget = Some(1);
    let mut passes = 0;
    loop {
        passes += 1;
        assert!(passes < 100, "the chain does not finish");
        match interrupted.run_chain(&CancellationToken::new()).await.unwrap() {
            ChainOutcome::Interrupted => continue,
            ChainOutcome::Dormant { .. } => break,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(passes > 15, "every step was interrupted at least once ({passes} passes)");
    let first = events(&env).await;
    expect_migrated(&first);

    // Run the whole chain again from scratch: the visible events stay exactly the same.
    sqlx::query("UPDATE background_migrations SET status = 'pending', state = '{}', rows_done = 0")
        .execute(&env.pool)
        .await
        .unwrap();
    backfill(&env, 3).run_chain(&CancellationToken::new()).await.unwrap();
    let second = events(&env).await;
    assert_eq!(first, second);
}

#[tokio::test]
async fn a_failing_step_halts_the_chain_with_its_cause_until_retried() {
    let env = env().await;
    seed(&env).await;
    env.exec("RENAME TABLE dataset_run_items_rmt TO dri_away").await;
    let outcome = backfill(&env, 100).run_chain(&CancellationToken::new()).await.unwrap();
    let ChainOutcome::Halted { step, error } = outcome else { panic!("{outcome:?}") };
    assert_eq!(step, Step::RootSpans.name());
    assert!(error.contains("dataset_run_items_rmt"), "{error}");
    use StepStatus::*;
    assert_eq!(statuses(&env).await, [Failed, Pending, Pending, Pending, Pending]);
    // Halted stays halted: later steps do not start on their own.
    let again = backfill(&env, 100).run_chain(&CancellationToken::new()).await.unwrap();
    assert!(matches!(again, ChainOutcome::Halted { .. }), "{again:?}");

    env.exec("RENAME TABLE dri_away TO dataset_run_items_rmt").await;
    assert_eq!(storage::background_migrations::retry_failed(&env.pool).await.unwrap().len(), 1);
    backfill(&env, 100).run_chain(&CancellationToken::new()).await.unwrap();
    expect_migrated(&events(&env).await);
}

#[tokio::test]
async fn the_scratch_table_is_dropped_only_when_allowed() {
    let env = env().await;
    seed(&env).await;
    backfill(&env, 100).run_chain(&CancellationToken::new()).await.unwrap();
    // M2's table, M1's and M3's sets of experiment traces, and M4's three.
    let scratch = format!(
        "SELECT count() FROM system.tables WHERE database = currentDatabase() \
         AND (name = '{SCRATCH_TABLE}' OR endsWith(name, '_pid_tid_sorting'))"
    );
    assert_eq!(env.count(&scratch).await, 6);
    let mut dropping = backfill(&env, 100);
    dropping.migration.drop_pid_tid_sorting_tables = true;
    assert_eq!(dropping.run_chain(&CancellationToken::new()).await.unwrap(), ChainOutcome::Finished);
    assert_eq!(env.count(&scratch).await, 0);
    assert_eq!(statuses(&env).await, [StepStatus::Succeeded; 5]);
    expect_migrated(&events(&env).await);
}

#[tokio::test]
async fn legacy_mode_and_a_closed_gate_never_run_it() {
    let env = env().await;
    let mut legacy = backfill(&env, 100);
    legacy.migration = migration(WriteMode::Legacy);
    assert!(!legacy.runs());
    let mut gated = backfill(&env, 100);
    gated.migration.enable_historic_backfill = false;
    let outcome = gated.run_chain(&CancellationToken::new()).await.unwrap();
    assert!(
        matches!(outcome, ChainOutcome::Dormant { step, .. } if step == Step::RootSpans.name()),
        "{outcome:?}"
    );
    assert_eq!(statuses(&env).await, [StepStatus::Pending; 5]);
}

#[tokio::test]
async fn one_worker_runs_the_chain_at_a_time() {
    let env = env().await;
    let lease =
        migration::lease::acquire(&env.pool, migration::backfill::LEASE, "worker-b").await.unwrap().unwrap();
    assert_eq!(
        backfill(&env, 100).run_chain(&CancellationToken::new()).await.unwrap(),
        ChainOutcome::NotLeader
    );
    lease.release().await;
    assert_ne!(
        backfill(&env, 100).run_chain(&CancellationToken::new()).await.unwrap(),
        ChainOutcome::NotLeader
    );
}

/// An experiment trace of 10,000 spans: its span ids (about 360 KB of them) go to ClickHouse as
/// bounded parameters, not in the statement's text, which would pass `max_query_size` (256 KiB).
#[tokio::test]
async fn an_experiment_trace_of_ten_thousand_spans_is_copied_whole() {
    let env = env().await;
    env.exec(
        "INSERT INTO traces (id, timestamp, name, project_id, public, bookmarked, tags, event_ts, is_deleted) \
         VALUES ('BIG', '2026-11-09 10:00:00', 'big', 'p1', false, false, [], '2026-11-09 10:00:00', 0)",
    )
    .await;
    env.exec(
        "INSERT INTO observations (id, trace_id, project_id, type, start_time, name, metadata, level, event_ts, is_deleted) \
         SELECT concat('span-with-a-rather-long-identifier-', toString(number)), 'BIG', 'p1', 'SPAN', \
                toDateTime64('2026-11-09 10:00:01', 3), 's', map(), 'DEFAULT', toDateTime64('2026-11-09 10:00:01', 3), 0 \
         FROM numbers(10000)",
    )
    .await;
    env.exec(
        "INSERT INTO dataset_run_items_rmt (id, project_id, dataset_run_id, dataset_item_id, dataset_id, trace_id, \
         observation_id, created_at, dataset_run_name, dataset_run_metadata, dataset_run_created_at, \
         dataset_item_metadata, event_ts, is_deleted) VALUES \
         ('dri-big', 'p1', 'run-big', 'item1', 'ds', 'BIG', NULL, '2026-11-09 10:00:00', 'big run', map(), \
          '2026-11-09 10:00:00', map(), '2026-11-09 10:00:00', 0)",
    )
    .await;
    backfill(&env, 5_000).run_chain(&CancellationToken::new()).await.unwrap();
    use StepStatus::*;
    assert_eq!(statuses(&env).await[..4], [Succeeded, Succeeded, Succeeded, Succeeded]);
    let linked = env
        .count("SELECT count() FROM events_full FINAL WHERE trace_id = 'BIG' AND experiment_id = 'run-big'")
        .await;
    assert_eq!(linked, 10_001, "every span and the root carry the run");
}
