use std::collections::HashMap;
use std::time::Duration;

use serde_json::json;

use domain::config::{MigrationSettings, OtelBehaviour, WriteMode};
use storage::queue::{IngestionJob, PayloadKind};

use super::{drop_deleted, traces_written};
use crate::process::Prepared;
use crate::process::route::prepare;

fn job(kind: PayloadKind, received_at_micros: i64) -> IngestionJob {
    IngestionJob {
        kind,
        project_id: "p".into(),
        blob_key: "k".into(),
        part: None,
        public_key: "pk".into(),
        sdk_name: Some("python".into()),
        sdk_version: Some("4.7.0".into()),
        ingestion_version: None,
        scores_only: false,
        received_at_micros,
    }
}

fn dual() -> MigrationSettings {
    MigrationSettings {
        write_mode: WriteMode::Dual,
        otel_behaviour: OtelBehaviour::Direct,
        allow_preview_opt_in: true,
        enable_historic_backfill: false,
        drop_pid_tid_sorting_tables: false,
        propagation_stuck_threshold: Duration::from_secs(900),
    }
}

/// Two traces ("gone" and "kept"), each with a span and a score, as a legacy batch in dual mode.
fn batch(job: &IngestionJob) -> Prepared {
    let mut events = Vec::new();
    for trace in ["gone", "kept"] {
        let at = "2026-11-22T06:00:00.000Z";
        events.extend([
            json!({"id": format!("e-t-{trace}"), "type": "trace-create", "timestamp": at,
                   "body": {"id": trace, "name": trace, "timestamp": at}}),
            json!({"id": format!("e-s-{trace}"), "type": "span-create", "timestamp": at,
                   "body": {"id": format!("span-{trace}"), "traceId": trace, "startTime": at}}),
            json!({"id": format!("e-c-{trace}"), "type": "score-create", "timestamp": at,
                   "body": {"id": format!("score-{trace}"), "traceId": trace, "name": "q", "value": 1}}),
        ]);
    }
    let payload = serde_json::to_vec(&json!({"batch": events})).unwrap();
    prepare(job, &payload, &dual()).unwrap()
}

fn traces_of(prepared: &Prepared) -> Vec<String> {
    let mut all: Vec<String> = prepared.v3.traces.iter().map(|t| t.id.clone()).collect();
    all.extend(prepared.v3.observations.iter().filter_map(|o| o.trace_id.clone()));
    all.extend(prepared.v3.scores.iter().filter_map(|s| s.trace_id.clone()));
    all.sort();
    all.dedup();
    all
}

#[test]
fn rows_accepted_before_their_traces_deletion_are_dropped_and_the_others_kept() {
    let deleted = HashMap::from([(("p".to_owned(), "gone".to_owned()), 1_000)]);
    for (received_at, expected) in [(999, vec!["kept"]), (1_000, vec!["kept"]), (1_001, vec!["gone", "kept"])]
    {
        let job = job(PayloadKind::IngestionBatch, received_at);
        let mut prepared = batch(&job);
        let rows = prepared.v3.rows();
        assert_eq!(traces_of(&prepared), ["gone", "kept"]);
        let dropped = drop_deleted(&job, &mut prepared, &deleted);
        assert_eq!(traces_of(&prepared), expected, "accepted at {received_at}");
        assert_eq!(dropped, rows - prepared.v3.rows());
        assert_eq!(dropped, if expected.len() == 1 { 3 } else { 0 }, "a trace, a span and a score");
    }
}

#[test]
fn a_deletion_in_another_project_drops_nothing() {
    let job = job(PayloadKind::IngestionBatch, 5);
    let mut prepared = batch(&job);
    let deleted = HashMap::from([(("other".to_owned(), "gone".to_owned()), 1_000)]);
    assert_eq!(drop_deleted(&job, &mut prepared, &deleted), 0);
    assert_eq!(traces_of(&prepared), ["gone", "kept"]);
}

#[test]
fn every_trace_a_payload_writes_is_asked_about() {
    let job = job(PayloadKind::IngestionBatch, 5);
    let prepared = batch(&job);
    let asked = traces_written(std::iter::once(&prepared));
    let in_p: Vec<&str> = asked["p"].iter().copied().collect();
    assert_eq!((asked.len(), in_p), (1, vec!["gone", "kept"]));
}
