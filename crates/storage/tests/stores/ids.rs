//! Long lists of ids against the real engine: 100,000 trace ids are about 4 MB, sixteen times
//! ClickHouse's `max_query_size`, and still one statement per table (server-side parameters in
//! chunks, `storage::clickhouse::StringList`).

use storage::clickhouse::{ClickHouse, StringList, delete_traces, migrate, v3};
use test_support::TestClickHouse;

const STORED: usize = 300;

fn stored_id(i: usize) -> String {
    format!("trace-{i:06}")
}

/// 100,000 ids: the first `real` stored traces, then made-up ids as long as UUIDs.
fn ids_with(real: usize) -> Vec<String> {
    (0..real).map(stored_id).chain((real..100_000).map(|i| format!("{i:036x}"))).collect()
}

async fn count(ch: &ClickHouse, sql: &str) -> u64 {
    ch.client().query(sql).fetch_one().await.unwrap()
}

#[tokio::test]
async fn a_hundred_thousand_trace_ids_are_read_and_deleted_in_one_request_each() {
    let db = TestClickHouse::create().await;
    let ch = ClickHouse::connect(&db.settings());
    migrate(&ch).await.unwrap();
    for (project, sql) in [
        (
            "p1",
            "INSERT INTO traces (id, timestamp, project_id, event_ts, is_deleted) SELECT \
             concat('trace-', leftPad(toString(number), 6, '0')), now64(3), 'p1', now64(3), 0 FROM numbers(300)",
        ),
        (
            "p1",
            "INSERT INTO observations (id, trace_id, project_id, type, start_time, event_ts, is_deleted) SELECT \
             concat('obs-', toString(number)), concat('trace-', leftPad(toString(number), 6, '0')), 'p1', 'SPAN', \
             now64(3), now64(3), 0 FROM numbers(300)",
        ),
        // The same trace ids in another project: never touched.
        (
            "p2",
            "INSERT INTO traces (id, timestamp, project_id, event_ts, is_deleted) SELECT \
             concat('trace-', leftPad(toString(number), 6, '0')), now64(3), 'p2', now64(3), 0 FROM numbers(300)",
        ),
    ] {
        ch.client().query(sql).execute().await.unwrap_or_else(|e| panic!("{project}: {e}"));
    }

    let all = ids_with(STORED);
    assert!(StringList::new("ids", &all).chunks() > 1, "the list must not fit one parameter");
    // What these lists used to be, ids written into the text, is refused by the engine: the test
    // would fail without the parameters.
    let inline =
        ch.client().query("SELECT count() FROM traces WHERE id IN ?").bind(&all).fetch_one::<u64>().await;
    assert!(inline.unwrap_err().to_string().contains("Max query size exceeded"));

    // Both tables' stored ids in one statement, then their newest rows in one more, each list in
    // its own parameters.
    let found = v3::existing(&ch, "p1", &all, &ids_with(0)).await.unwrap();
    assert_eq!((found.traces.len(), found.observations.len()), (STORED, 0));
    assert!(found.traces.iter().all(|t| t.project_id == "p1"));
    // An id is looked for in its own table only: a stored trace's id asked for as an observation's
    // is not found, nor the other way round.
    let found = v3::existing(&ch, "p1", &["obs-1".to_owned()], &[stored_id(1)]).await.unwrap();
    assert_eq!((found.traces.len(), found.observations.len()), (0, 0));
    let observations: Vec<String> = (0..STORED).map(|n| format!("obs-{n}")).chain(ids_with(20_000)).collect();
    let found = v3::existing(&ch, "p1", &[], &observations).await.unwrap();
    assert_eq!((found.traces.len(), found.observations.len()), (0, STORED));
    assert!(found.observations.iter().all(|o| o.project_id == "p1" && o.trace_id.starts_with("trace-")));

    // Delete the first 200 of the stored traces, named among 99,800 ids that exist nowhere.
    delete_traces(&ch, "p1", &ids_with(200)).await.unwrap();
    assert_eq!(count(&ch, "SELECT count() FROM traces WHERE project_id = 'p1'").await, 100);
    assert_eq!(count(&ch, "SELECT count() FROM observations WHERE project_id = 'p1'").await, 100);
    assert_eq!(count(&ch, "SELECT count() FROM traces WHERE project_id = 'p2'").await, STORED as u64);
    let left = v3::existing(&ch, "p1", &all, &[]).await.unwrap().traces;
    let mut left: Vec<String> = left.into_iter().map(|t| t.id).collect();
    left.sort();
    assert_eq!(left, (200..STORED).map(stored_id).collect::<Vec<_>>());

    // A trace whose newest version marks it deleted is stored, yet nothing to merge onto.
    ch.client()
        .query(
            "INSERT INTO traces (id, timestamp, project_id, event_ts, is_deleted) \
             VALUES ('trace-000250', now64(3), 'p1', now64(3) + 1, 1)",
        )
        .execute()
        .await
        .unwrap();
    let found = v3::existing(&ch, "p1", &[stored_id(250), stored_id(251)], &[]).await.unwrap();
    assert_eq!(found.traces.into_iter().map(|t| t.id).collect::<Vec<_>>(), [stored_id(251)]);
}
