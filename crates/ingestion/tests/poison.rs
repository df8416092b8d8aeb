//! Payloads a store refuses are isolated and dead-lettered while everything else lands, and an
//! operator can replay them; a payload handed out too often is dead-lettered unprocessed; a
//! project with a backlog cannot hold back another's payloads. All on the real stack, the poison
//! being a real ClickHouse refusal (a table constraint the test adds).

#![allow(clippy::unwrap_used)]

mod harness;

use std::time::Duration;

use bytes::Bytes;
use prost::Message;
use tokio_util::sync::CancellationToken;

use harness::{Harness, harness, harness_with, sender_of};
use ingestion::dead_letters::{ReplayRequest, list, replay};
use ingestion::process::Turn;

const A: &str = "project-a";
const B: &str = "project-b";

async fn events_of(h: &Harness, project: &str) -> u64 {
    h.ch.client()
        .query("SELECT count() FROM events_full WHERE project_id = ?")
        .bind(project)
        .fetch_one()
        .await
        .unwrap()
}

/// An export of one trace whose spans are all named `name`.
fn export_named(run: u64, spans: u64, name: &str) -> Bytes {
    let mut export = test_support::otlp::export(run, 0, 1, spans);
    for span in export.resource_spans.iter_mut().flat_map(|r| &mut r.scope_spans).flat_map(|s| &mut s.spans) {
        span.name = name.to_owned();
    }
    Bytes::from(export.encode_to_vec())
}

async fn refuse_poison(h: &Harness) {
    h.ch.client()
        .query("ALTER TABLE events_full ADD CONSTRAINT no_poison CHECK name != 'poison'")
        .execute()
        .await
        .unwrap();
}

#[tokio::test]
async fn a_refused_payload_is_dead_lettered_everything_else_lands_and_a_replay_stores_it() {
    let h = harness().await;
    refuse_poison(&h).await;
    for (project, run, name) in [(A, 1, "fine"), (A, 2, "poison"), (A, 3, "fine"), (B, 4, "canary")] {
        h.acceptor.accept_otlp(&sender_of(project), export_named(run, 3, name)).await.unwrap();
    }
    let done = h.step_until_drained().await;
    assert_eq!((done.flushed, done.dead_lettered), (3, 1), "{done:?}");
    assert_eq!(events_of(&h, A).await, 6, "both good payloads of A landed");
    assert_eq!(events_of(&h, B).await, 3, "B's canary landed");

    let letters = list(&h.postgres, Some(A.into()), false, 1, 50).await.unwrap();
    assert_eq!(letters.meta.total_items, 1);
    let letter = &letters.data[0];
    assert_eq!(letter.reason_class, "rejected");
    assert!(letter.reason.contains("no_poison"), "the reason quotes the store: {}", letter.reason);
    assert!(letter.blob_key.as_deref().is_some_and(|k| k.starts_with("otel/project-a/")), "{letter:?}");
    assert_eq!(list(&h.postgres, Some(B.into()), false, 1, 50).await.unwrap().meta.total_items, 0);

    // The operator fixes the cause and replays: the payload is queued again and lands.
    h.ch.client().query("ALTER TABLE events_full DROP CONSTRAINT no_poison").execute().await.unwrap();
    let replayed =
        replay(&h.postgres, &h.queue, ReplayRequest { project_id: Some(A.into()), ..Default::default() })
            .await
            .unwrap();
    assert_eq!(replayed.replayed, vec![letter.id.clone()]);
    let done = h.step_until_drained().await;
    assert_eq!((done.flushed, done.dead_lettered), (1, 0), "{done:?}");
    assert_eq!(events_of(&h, A).await, 9);
    assert_eq!(list(&h.postgres, None, false, 1, 50).await.unwrap().meta.total_items, 0, "nothing left open");
    let all = list(&h.postgres, None, true, 1, 50).await.unwrap();
    assert!(all.data[0].replayed_at.is_some(), "the letter is kept, marked replayed");
    let again = replay(&h.postgres, &h.queue, ReplayRequest::default()).await.unwrap();
    assert!(again.replayed.is_empty(), "a replayed letter is not replayed twice");
}

/// Many refused payloads among many good ones: bisection finds each, and no good one is lost.
#[tokio::test]
async fn bisection_isolates_every_refused_payload_of_a_batch() {
    let h = harness().await;
    refuse_poison(&h).await;
    let poisoned = [3, 4, 17, 40];
    for run in 0..48 {
        let name = if poisoned.contains(&run) { "poison" } else { "fine" };
        h.acceptor.accept_otlp(&sender_of(A), export_named(run + 10, 2, name)).await.unwrap();
    }
    let done = h.step_until_drained().await;
    assert_eq!((done.flushed, done.dead_lettered), (44, 4), "{done:?}");
    assert_eq!(events_of(&h, A).await, 88);
    assert_eq!(list(&h.postgres, Some(A.into()), false, 1, 50).await.unwrap().meta.total_items, 4);
}

/// A payload that keeps coming back (its worker crashed while processing it, every time) is
/// dead-lettered once handed out more than `LANGFUSE_INGESTION_MAX_ATTEMPTS` times, without being
/// processed again.
#[tokio::test]
async fn a_payload_handed_out_too_often_is_dead_lettered_unprocessed() {
    let h = harness_with(&[
        ("LANGFUSE_INGESTION_MAX_ATTEMPTS", "2"),
        ("LANGFUSE_INGESTION_CLAIM_IDLE_SECONDS", "1"),
    ])
    .await;
    h.acceptor.accept_otlp(&sender_of(A), export_named(5, 2, "crashy")).await.unwrap();
    // Two workers read it and "crash" (never acknowledge).
    for crashed in ["crashed-1", "crashed-2"] {
        let read = if crashed == "crashed-1" {
            h.queue.read(crashed, 10, Duration::from_millis(100)).await.unwrap()
        } else {
            wait_until_idle().await;
            h.queue.claim_stale(crashed, Duration::from_secs(1), 10).await.unwrap()
        };
        assert_eq!(read.len(), 1, "{crashed} got the entry");
        let entries: Vec<_> = read.iter().map(|d| &d.entry).collect();
        h.queue.count_delivery(&entries).await.unwrap();
    }
    wait_until_idle().await;
    let done = h.step_until_drained().await;
    assert_eq!((done.flushed, done.dead_lettered), (0, 1), "{done:?}");
    assert_eq!(events_of(&h, A).await, 0, "not processed a third time");
    let letter = &list(&h.postgres, Some(A.into()), false, 1, 50).await.unwrap().data[0];
    assert_eq!((letter.reason_class.as_str(), letter.attempts), ("retry_budget", 3));
}

/// A claim takes entries idle for at least the claim time (1 s here): waiting it out is the
/// condition itself, not a guess at how long something takes.
async fn wait_until_idle() {
    tokio::time::sleep(Duration::from_millis(1_100)).await;
}

/// Fairness: with project A's flood queued ahead, B's one payload is stored by the first insert,
/// while most of A's flood still waits (a single first-in-first-out queue would store it last).
#[tokio::test]
async fn a_flooding_project_does_not_hold_back_another() {
    let h = harness_with(&[("LANGFUSE_INGESTION_BATCH_MAX_ROWS", "20")]).await;
    for run in 0..300 {
        h.acceptor.accept_otlp(&sender_of(A), export_named(run + 100, 1, "flood")).await.unwrap();
    }
    h.acceptor.accept_otlp(&sender_of(B), export_named(7, 1, "canary")).await.unwrap();
    let (shutdown, mut turn) = (CancellationToken::new(), Turn::new(h.claim_idle));
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while h.processor.step(&mut turn, &shutdown).await.flushed == 0 {
        assert!(std::time::Instant::now() < deadline, "nothing flushed in 30 s");
    }
    assert_eq!(events_of(&h, B).await, 1, "B's canary went in with the first insert");
    // The first read takes 32 of A with B's one (a fair share of 64 each). When the first insert
    // is collected, the next read's batch (at most 64 more of A) may already be in flight
    // (`process::inflight`): at most 96 of A are stored, where a first-in-first-out queue would
    // have stored all 300 before B's.
    let backlog = h.queue.backlog().await.unwrap();
    assert!(backlog.by_project.get(A).copied().unwrap_or(0) >= 204, "A's flood is still queued: {backlog:?}");
}
