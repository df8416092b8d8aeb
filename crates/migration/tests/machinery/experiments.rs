//! M4 (experiment traces) on a varied fixture: nested spans, several run items on one trace (two
//! sharing a root, one deleted), a trace whose only run item was deleted (a plain trace now), a
//! dataset item in several runs, an item without a trace, an item
//! rooted at a span that does not exist, a wrapper trace, traces and spans over several months, the
//! same trace id in another project; every event compared with what it must be, and the step
//! interrupted after every chunk and made to repeat chunks it had done.

use std::collections::BTreeMap;

use domain::config::WriteMode;
use migration::backfill::{Backfill, ChainOutcome, Step};
use storage::background_migrations::StepStatus;
use tokio_util::sync::CancellationToken;

use crate::{Env, backfill_settings, env, migration};

async fn seed(env: &Env) {
    env.exec(
        "INSERT INTO traces (id, timestamp, name, user_id, metadata, project_id, public, bookmarked, tags, \
         input, event_ts, is_deleted) VALUES \
         ('X1', '2026-11-05 10:00:00', 'x1', 'u1', map('tk', 'tv'), 'p1', false, true, ['a'], '\"in\"', '2026-11-05 10:00:00', 0), \
         ('X2', '2026-08-20 10:00:00', 'x2', 'u2', map(), 'p1', false, false, [], NULL, '2026-08-20 10:00:00', 0), \
         ('X3', '2026-06-10 10:00:00', 'x3-old', 'u3', map(), 'p1', false, false, [], NULL, '2026-06-10 10:00:00', 0), \
         ('X3', '2026-06-10 10:00:00', 'x3', 'u3', map(), 'p1', false, false, [], NULL, '2026-06-10 10:05:00', 0), \
         ('X4', '2026-11-20 10:00:00', 'x4', NULL, map(), 'p1', true, false, [], NULL, '2026-11-20 10:00:00', 0), \
         ('XW', '2026-09-01 10:00:00', 'xw', NULL, map(), 'p1', false, false, [], NULL, '2026-09-01 10:00:00', 0), \
         ('XD', '2026-11-07 10:00:00', 'xd', NULL, map(), 'p1', false, false, [], NULL, '2026-11-07 10:00:00', 0), \
         ('T1', '2026-11-06 10:00:00', 'plain', 'u9', map(), 'p1', false, false, [], NULL, '2026-11-06 10:00:00', 0), \
         ('X1', '2026-11-05 10:00:00', 'other-project', NULL, map(), 'p2', false, false, [], NULL, '2026-11-05 10:00:00', 0)",
    )
    .await;
    env.exec(
        "INSERT INTO observations (id, trace_id, project_id, type, parent_observation_id, start_time, name, \
         metadata, level, event_ts, is_deleted) VALUES \
         ('X1a', 'X1', 'p1', 'SPAN', NULL, '2026-11-05 10:00:01', 'x1a', map('ok', 'ov'), 'DEFAULT', '2026-11-05 10:00:01', 0), \
         ('X1b', 'X1', 'p1', 'GENERATION', 'X1a', '2026-11-05 10:00:02', 'x1b', map(), 'DEFAULT', '2026-11-05 10:00:02', 0), \
         ('X1c', 'X1', 'p1', 'SPAN', 'X1b', '2026-11-05 10:00:03', 'x1c', map(), 'DEFAULT', '2026-11-05 10:00:03', 0), \
         ('X1d', 'X1', 'p1', 'EVENT', 'X1a', '2026-11-05 10:00:04', 'x1d', map(), 'DEFAULT', '2026-11-05 10:00:04', 0), \
         ('X1e', 'X1', 'p1', 'SPAN', NULL, '2026-11-05 10:00:05', 'x1e', map(), 'DEFAULT', '2026-11-05 10:00:05', 0), \
         ('X1o', 'X1', 'p1', 'SPAN', 'gone', '2026-11-05 10:00:06', 'x1o', map(), 'DEFAULT', '2026-11-05 10:00:06', 0), \
         ('X2a', 'X2', 'p1', 'SPAN', NULL, '2026-08-20 10:00:01', 'x2a-v1', map(), 'DEFAULT', '2026-08-20 10:00:01', 0), \
         ('X2a', 'X2', 'p1', 'SPAN', NULL, '2026-08-20 10:00:01', 'x2a', map(), 'DEFAULT', '2026-08-20 10:00:09', 0), \
         ('X2b', 'X2', 'p1', 'SPAN', 'X2a', '2026-08-20 10:00:02', 'x2b', map(), 'DEFAULT', '2026-08-20 10:00:02', 0), \
         ('X2c', 'X2', 'p1', 'SPAN', 'X2b', '2026-09-02 00:00:01', 'x2c', map(), 'DEFAULT', '2026-09-02 00:00:01', 0), \
         ('X3a', 'X3', 'p1', 'SPAN', NULL, '2026-06-10 10:00:01', 'x3a', map(), 'DEFAULT', '2026-06-10 10:00:01', 0), \
         ('X3b', 'X3', 'p1', 'SPAN', 'X3a', '2026-06-10 10:00:02', 'x3b', map(), 'DEFAULT', '2026-06-10 10:00:02', 0), \
         ('X3c', 'X3', 'p1', 'GENERATION', 'X3b', '2026-06-10 10:00:03', 'x3c', map(), 'DEFAULT', '2026-06-10 10:00:03', 0), \
         ('XW', 'XW', 'p1', 'SPAN', NULL, '2026-09-01 10:00:00', 'xw', map(), 'DEFAULT', '2026-09-01 10:00:00', 0), \
         ('XWc', 'XW', 'p1', 'SPAN', 'XW', '2026-09-01 10:00:01', 'xwc', map(), 'DEFAULT', '2026-09-01 10:00:01', 0), \
         ('XDa', 'XD', 'p1', 'SPAN', NULL, '2026-11-07 10:00:01', 'xda', map(), 'DEFAULT', '2026-11-07 10:00:01', 0), \
         ('T1a', 'T1', 'p1', 'SPAN', NULL, '2026-11-06 10:00:01', 't1a', map(), 'DEFAULT', '2026-11-06 10:00:01', 0), \
         ('P2a', 'X1', 'p2', 'SPAN', NULL, '2026-11-05 10:00:01', 'p2a', map(), 'DEFAULT', '2026-11-05 10:00:01', 0)",
    )
    .await;
    env.exec(
        "INSERT INTO dataset_run_items_rmt (id, project_id, dataset_run_id, dataset_item_id, dataset_id, trace_id, \
         observation_id, created_at, dataset_run_name, dataset_run_description, dataset_run_metadata, \
         dataset_run_created_at, dataset_item_expected_output, dataset_item_metadata, dataset_item_version, \
         event_ts, is_deleted) VALUES \
         ('i1', 'p1', 'R1', 'item1', 'ds1', 'X1', NULL, '2026-11-05 10:00:00', 'run one', 'first', map('m', '1'), '2026-11-01 00:00:00', '\"a\"', map('im', 'iv'), '2026-11-01 00:00:00.123', '2026-11-05 10:00:00', 0), \
         ('i2', 'p1', 'R2', 'item2', 'ds1', 'X1', 'X1b', '2026-11-05 11:00:00', 'run two', NULL, map(), '2026-08-01 00:00:00', NULL, map(), NULL, '2026-11-05 11:00:00', 0), \
         ('i3', 'p1', 'R3', 'item3', 'ds1', 'X1', 'X1b', '2026-11-05 12:00:00', 'run three', NULL, map(), '2026-11-05 00:00:00', '\"c\"', map(), NULL, '2026-11-05 12:00:00', 0), \
         ('i4', 'p1', 'R2', 'item4', 'ds1', 'X1', 'X1d', '2026-11-05 13:00:00', 'run two', NULL, map(), '2026-08-01 00:00:00', NULL, map(), NULL, '2026-11-05 13:00:00', 0), \
         ('i4', 'p1', 'R2', 'item4', 'ds1', 'X1', 'X1d', '2026-11-05 13:00:00', 'run two', NULL, map(), '2026-08-01 00:00:00', NULL, map(), NULL, '2026-11-05 14:00:00', 1), \
         ('i5', 'p1', 'R2', 'item1', 'ds1', 'X2', NULL, '2026-08-20 11:00:00', 'run two', NULL, map(), '2026-08-01 00:00:00', '\"a\"', map(), NULL, '2026-08-20 11:00:00', 0), \
         ('i6', 'p1', 'R1', 'item2', 'ds1', 'X3', 'X3b', '2026-06-10 11:00:00', 'run one', 'first', map('m', '1'), '2026-11-01 00:00:00', NULL, map(), NULL, '2026-06-10 11:00:00', 0), \
         ('i7', 'p1', 'R1', 'item5', 'ds1', 'GHOST', NULL, '2026-11-05 10:30:00', 'run one', 'first', map('m', '1'), '2026-11-01 00:00:00', NULL, map(), NULL, '2026-11-05 10:30:00', 0), \
         ('i8', 'p1', 'R4', 'item6', 'ds2', 'X4', NULL, '2026-11-20 11:00:00', 'run four', NULL, map(), '2026-11-20 00:00:00', NULL, map(), NULL, '2026-11-20 11:00:00', 0), \
         ('i9', 'p1', 'R4', 'item7', 'ds2', 'X4', 'nowhere', '2026-11-20 11:30:00', 'run four', NULL, map(), '2026-11-20 00:00:00', NULL, map(), NULL, '2026-11-20 11:30:00', 0), \
         ('i10', 'p1', 'R1', 'item7', 'ds1', 'XW', NULL, '2026-09-01 11:00:00', 'run one', 'first', map('m', '1'), '2026-11-01 00:00:00', NULL, map(), NULL, '2026-09-01 11:00:00', 0), \
         ('i11', 'p1', 'R1', 'item8', 'ds1', 'XD', NULL, '2026-11-07 11:00:00', 'run one', 'first', map('m', '1'), '2026-11-01 00:00:00', NULL, map(), NULL, '2026-11-07 11:00:00', 0), \
         ('i11', 'p1', 'R1', 'item8', 'ds1', 'XD', NULL, '2026-11-07 11:00:00', 'run one', 'first', map('m', '1'), '2026-11-01 00:00:00', NULL, map(), NULL, '2026-11-07 12:00:00', 1)",
    )
    .await;
}

/// The experiment columns of an event, as text: run id, name, metadata, description, dataset, item,
/// item version, expected output, item metadata, root span.
type Experiment = (
    String,
    String,
    Vec<(String, String)>,
    String,
    String,
    String,
    String,
    String,
    Vec<(String, String)>,
    String,
);

#[derive(Debug, clickhouse::Row, serde::Deserialize)]
struct EventRow {
    project_id: String,
    span_id: String,
    parent_span_id: String,
    name: String,
    trace_name: String,
    user_id: String,
    source: String,
    experiment: Experiment,
}

async fn events(env: &Env) -> BTreeMap<(String, String), EventRow> {
    let rows: Vec<EventRow> = env
        .ch
        .client()
        .query(
            "SELECT project_id, span_id, parent_span_id, name, trace_name, user_id, toString(source) AS source, \
             (experiment_id, experiment_name, arrayZip(experiment_metadata_names, experiment_metadata_values), \
              experiment_description, experiment_dataset_id, experiment_item_id, \
              ifNull(toString(experiment_item_version), ''), experiment_item_expected_output, \
              arrayZip(experiment_item_metadata_names, experiment_item_metadata_values), \
              experiment_item_root_span_id) AS experiment \
             FROM events_full FINAL ORDER BY project_id, span_id",
        )
        .fetch_all()
        .await
        .unwrap();
    let mut events = BTreeMap::new();
    for row in rows {
        let key = (row.project_id.clone(), row.span_id.clone());
        assert!(events.insert(key.clone(), row).is_none(), "{key:?} appears twice");
    }
    events
}

fn none() -> Experiment {
    Experiment::default()
}

/// What a span owned by run item `item` with root `root` carries.
fn of(item: &str, root: &str) -> Experiment {
    let pair = |k: &str, v: &str| vec![(k.to_owned(), v.to_owned())];
    let (id, name, metadata, description, dataset, item_id, version, expected, item_metadata) = match item {
        "i1" => (
            "R1",
            "run one",
            pair("m", "1"),
            "first",
            "ds1",
            "item1",
            "2026-11-01 00:00:00.123000",
            "\"a\"",
            pair("im", "iv"),
        ),
        "i3" => ("R3", "run three", vec![], "", "ds1", "item3", "", "\"c\"", vec![]),
        "i5" => ("R2", "run two", vec![], "", "ds1", "item1", "", "\"a\"", vec![]),
        "i6" => ("R1", "run one", pair("m", "1"), "first", "ds1", "item2", "", "", vec![]),
        "i8" => ("R4", "run four", vec![], "", "ds2", "item6", "", "", vec![]),
        "i10" => ("R1", "run one", pair("m", "1"), "first", "ds1", "item7", "", "", vec![]),
        other => panic!("no expectation for {other}"),
    };
    (
        id.into(),
        name.into(),
        metadata,
        description.into(),
        dataset.into(),
        item_id.into(),
        version.into(),
        expected.into(),
        item_metadata,
        root.into(),
    )
}

fn expect_migrated(events: &BTreeMap<(String, String), EventRow>) {
    // (project, span, parent, name, trace name, experiment)
    let expected: Vec<(&str, &str, &str, &str, &str, Experiment)> = vec![
        ("p1", "T1a", "t-T1", "t1a", "plain", none()),
        ("p1", "X1a", "t-X1", "x1a", "x1", of("i1", "t-X1")),
        ("p1", "X1b", "X1a", "x1b", "x1", of("i3", "X1b")),
        ("p1", "X1c", "X1b", "x1c", "x1", of("i3", "X1b")),
        ("p1", "X1d", "X1a", "x1d", "x1", of("i1", "t-X1")),
        ("p1", "X1e", "t-X1", "x1e", "x1", of("i1", "t-X1")),
        ("p1", "X1o", "gone", "x1o", "x1", none()),
        ("p1", "X2a", "t-X2", "x2a", "x2", of("i5", "t-X2")),
        ("p1", "X2b", "X2a", "x2b", "x2", of("i5", "t-X2")),
        ("p1", "X2c", "X2b", "x2c", "x2", of("i5", "t-X2")),
        ("p1", "X3a", "t-X3", "x3a", "x3", none()),
        ("p1", "X3b", "X3a", "x3b", "x3", of("i6", "X3b")),
        ("p1", "X3c", "X3b", "x3c", "x3", of("i6", "X3b")),
        ("p1", "XDa", "t-XD", "xda", "xd", none()),
        ("p1", "XW", "", "xw", "xw", of("i10", "t-XW")),
        ("p1", "XWc", "XW", "xwc", "xw", of("i10", "t-XW")),
        ("p1", "t-T1", "", "plain", "plain", none()),
        ("p1", "t-X1", "", "x1", "x1", of("i1", "t-X1")),
        ("p1", "t-X2", "", "x2", "x2", of("i5", "t-X2")),
        ("p1", "t-X3", "", "x3", "x3", none()),
        ("p1", "t-X4", "", "x4", "x4", of("i8", "t-X4")),
        ("p1", "t-XD", "", "xd", "xd", none()),
        ("p1", "t-XW", "", "xw", "xw", of("i10", "t-XW")),
        ("p2", "P2a", "t-X1", "p2a", "other-project", none()),
        ("p2", "t-X1", "", "other-project", "other-project", none()),
    ];
    let keys: Vec<(&str, &str)> = events.keys().map(|(p, s)| (p.as_str(), s.as_str())).collect();
    let wanted: Vec<(&str, &str)> = expected.iter().map(|e| (e.0, e.1)).collect();
    assert_eq!(keys, wanted, "the events");
    for (project, span, parent, name, trace_name, experiment) in expected {
        let event = &events[&(project.to_owned(), span.to_owned())];
        let what = format!("{project}/{span}");
        assert_eq!(
            (event.parent_span_id.as_str(), event.name.as_str(), event.trace_name.as_str()),
            (parent, name, trace_name),
            "{what}"
        );
        assert_eq!(event.experiment, experiment, "{what}");
        assert_eq!(event.source, "ingestion-api-backfill", "{what}");
    }
    assert_eq!(events[&("p1".into(), "X1a".into())].user_id, "u1", "the trace's user on an experiment span");
}

/// An order-independent fingerprint of every column M4 writes except the version (`event_ts`,
/// "now" on an experiment copy): equal fingerprints, equal rows.
async fn fingerprint(env: &Env) -> (u64, u64) {
    let columns = migration::columns::EVENT_COLUMNS.replace(" event_ts,", "");
    env.ch
        .client()
        .query(&format!(
            "SELECT count(), groupBitXor(cityHash64(toString(tuple({columns})))) FROM events_full FINAL"
        ))
        .fetch_one()
        .await
        .unwrap()
}

fn backfill(env: &Env, batch_traces: u64) -> Backfill {
    let mut settings = backfill_settings(100);
    settings.experiment_batch_traces = batch_traces;
    Backfill {
        clickhouse: env.ch.clone(),
        postgres: env.pool.clone(),
        settings,
        migration: migration(WriteMode::Dual),
        holder: "worker-a".into(),
        chunk_budget: None,
    }
}

async fn experiment_step(env: &Env) -> storage::background_migrations::BackgroundMigration {
    let steps = storage::background_migrations::list(&env.pool).await.unwrap();
    steps.into_iter().find(|s| s.name == Step::Experiments.name()).unwrap()
}

#[tokio::test]
async fn every_experiment_span_gets_its_nearest_run_item() {
    let env = env().await;
    seed(&env).await;
    backfill(&env, 1000).run_chain(&CancellationToken::new()).await.unwrap();
    let events = events(&env).await;
    expect_migrated(&events);
    let step = experiment_step(&env).await;
    // X1, X2, X3, X4, XW and the trace-less GHOST.
    assert_eq!((step.rows_done, step.rows_estimated), (6, Some(6)));
    // verify-migration counts the two items whose span does not exist (no trace GHOST, no span
    // "nowhere") and nothing else.
    let verified = migration::verify::verify(&env.ch, None).await.unwrap();
    let report = migration::verify::render(&verified);
    let mismatches: Vec<u64> = verified.checks.iter().map(|c| c.mismatches).collect();
    assert_eq!(mismatches, [0, 0, 0, 0, 2], "{report}");
    assert!(report.contains("p1/nowhere") && report.contains("p1/t-GHOST"), "{report}");
}

#[tokio::test]
async fn interrupted_and_repeating_chunks_it_ends_with_the_same_rows() {
    let env = env().await;
    seed(&env).await;
    let mut interrupted = backfill(&env, 1);
    interrupted.chunk_budget = Some(1);
    let mut saved = None;
    let mut repeated = 0;
    let mut passes = 0;
    loop {
        passes += 1;
        assert!(passes < 100, "the chain does not finish");
        let outcome = interrupted.run_chain(&CancellationToken::new()).await.unwrap();
        let step = experiment_step(&env).await;
        if step.status == StepStatus::Running {
            // A worker that died after a chunk's copy but before its cursor was saved: put the
            // cursor of the chunk before back, so the last chunk runs again. Every other pass,
            // through the planning's copies of `traces` (one month each) and the chunks.
            match saved.take() {
                Some((state, rows_done)) if repeated < 4 => {
                    repeated += 1;
                    sqlx::query(
                        "UPDATE background_migrations SET state = $1, rows_done = $2 WHERE name = $3",
                    )
                    .bind(&state)
                    .bind(rows_done)
                    .bind(step.name.as_str())
                    .execute(&env.pool)
                    .await
                    .unwrap();
                }
                _ => saved = Some((step.state.clone(), step.rows_done)),
            }
        }
        match outcome {
            ChainOutcome::Interrupted => continue,
            ChainOutcome::Dormant { .. } => break,
            other => panic!("unexpected {other:?}"),
        }
    }
    // Two copies of a month of traces (planning) and two chunks ran twice.
    assert_eq!(repeated, 4, "chunks were repeated");
    expect_migrated(&events(&env).await);
    let step = experiment_step(&env).await;
    assert_eq!((step.rows_done, step.rows_estimated), (6, Some(6)), "no trace counted twice or skipped");
    let interrupted_rows = fingerprint(&env).await;

    // The step again in one pass over the same data: its fresh copies replace the earlier ones
    // with exactly the same rows.
    sqlx::query(
        "UPDATE background_migrations SET status = 'pending', state = '{}', rows_done = 0 WHERE name = $1",
    )
    .bind(Step::Experiments.name())
    .execute(&env.pool)
    .await
    .unwrap();
    backfill(&env, 1000).run_chain(&CancellationToken::new()).await.unwrap();
    assert_eq!(experiment_step(&env).await.status, StepStatus::Succeeded);
    assert_eq!(fingerprint(&env).await, interrupted_rows, "the same rows as in one pass");
}
