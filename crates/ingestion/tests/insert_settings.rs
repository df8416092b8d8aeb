//! The settings the events insert carries, seen in what the engine keeps.

#![allow(clippy::unwrap_used)]

mod harness;

use bytes::Bytes;
use prost::Message;

use harness::{harness, sender};

/// `optimize_on_insert = 0`: two versions of one span in one insert are both kept until a merge
/// (the engine's own collapse on insert is skipped, the costliest step of the insert), and a read
/// that collapses versions, as every read does, still sees each span once.
#[tokio::test]
async fn versions_sharing_a_key_in_one_insert_are_kept_for_the_reads_to_collapse() {
    let h = harness().await;
    let export = Bytes::from(test_support::otlp::export(9, 0, 2, 3).encode_to_vec());
    // Both payloads are queued before the first step, so one read takes both into one batch.
    for _ in 0..2 {
        h.acceptor.accept_otlp(&sender(), export.clone()).await.unwrap();
    }
    assert_eq!(h.step_until_flushed(2).await, 2);
    let parts = "SELECT count() FROM system.parts WHERE database = currentDatabase() \
        AND table = 'events_full' AND active AND ? != ''";
    assert_eq!(h.count(parts).await, 1, "one insert");
    assert_eq!(
        h.count("SELECT count() FROM events_full WHERE project_id = ?").await,
        12,
        "both versions kept"
    );
    let newest = format!(
        "SELECT count() FROM (SELECT span_id FROM events_full WHERE project_id = ?{})",
        storage::clickhouse::NEWEST_BY_SPAN_ID
    );
    assert_eq!(h.count(&newest).await, 6, "2 traces of 3 spans, once each");
}
