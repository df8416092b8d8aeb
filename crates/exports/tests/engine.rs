//! The export engine against the real stack (PostgreSQL, ClickHouse, the S3-compatible bucket):
//! every file type written and parsed back, a crash mid-window and after the upload resumed
//! without gap or duplicate, sources a write mode cannot serve refused, secrets stored encrypted.

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

mod support;

use std::collections::BTreeMap;

use domain::config::WriteMode;
use exports::api::{self, Deployment};
use exports::job::{CrashAt, Turn};
use exports::model::{FileType, Source, SyncStatus};
use serde_json::json;
use support::{Env, ids, parse, request};

#[tokio::test]
async fn every_file_type_is_written_and_reads_back_the_same() {
    let env = Env::new().await;
    let mut tables: BTreeMap<&str, Vec<BTreeMap<String, Option<String>>>> = BTreeMap::new();
    for (file_type, compressed) in
        [(FileType::Json, true), (FileType::Csv, false), (FileType::Jsonl, true), (FileType::Parquet, true)]
    {
        let prefix = env.prefix(file_type.as_str());
        api::delete(&env.pool, &env.scope(), &env.project).await.ok();
        let mut body = request(&env, &prefix, file_type, Source::LegacyTracesAndEnrichedObservations);
        body["compressed"] = json!(compressed);
        env.save(WriteMode::Dual, body).await.unwrap();
        let turn = env.worker("w1", None).run_once().await.unwrap();
        assert!(matches!(turn, Turn::Exported { rows: 15, .. }), "{turn:?}");
        let files = env.files(&prefix).await;
        let gz = if compressed && file_type != FileType::Parquet { ".gz" } else { "" };
        let kinds: Vec<String> =
            files.keys().map(|name| name.split('/').nth_back(1).unwrap().to_owned()).collect();
        assert_eq!(kinds, ["observations", "observations_v2", "scores", "traces"], "{files:?}");
        for (name, bytes) in &files {
            assert!(name.ends_with(&format!(".{}{gz}", file_type.as_str().to_lowercase())), "{name}");
            assert!(name.starts_with(&format!("{prefix}{}/", env.project)), "{name}");
            let rows = parse(file_type, name.ends_with(".gz"), bytes);
            let kind = name.split('/').nth_back(1).unwrap();
            let kind: &'static str = match kind {
                "observations" => "observations",
                "observations_v2" => "observations_v2",
                "scores" => "scores",
                _ => "traces",
            };
            match tables.get(kind) {
                None => {
                    tables.insert(kind, rows);
                }
                Some(first) => {
                    assert_eq!(first, &rows, "{kind} in {file_type:?} differs from the first type")
                }
            }
        }
    }
    assert_eq!(ids(&tables["traces"], "id"), ["t1", "t2", "t3"]);
    assert_eq!(ids(&tables["observations"], "id"), ["o1", "o2", "o3", "o4", "o5"]);
    assert_eq!(ids(&tables["observations_v2"], "id"), ["e1", "e2", "e3", "e4", "e5"]);
    assert_eq!(ids(&tables["scores"], "id"), ["s1", "s2"]);
    let t1 = &tables["traces"][0];
    assert_eq!(t1["name"].as_deref(), Some("name, with \"quotes\"\nand a line"));
    let e1 = &tables["observations_v2"][0];
    assert_eq!(e1["traceId"].as_deref(), Some("t1"));
    assert_eq!(e1["name"].as_deref(), Some("event 1"));
    // The row outside the window (3 days old) is not exported.
    assert!(!ids(&tables["observations"], "id").contains(&"o-old".to_owned()));
}

#[tokio::test]
async fn a_crash_mid_window_resumes_without_gap_or_duplicate() {
    let env = Env::new().await;
    let prefix =
        env.integration("crash", FileType::Jsonl, Source::LegacyTracesObservations, WriteMode::Legacy).await;

    // Worker A dies after the first chunk of the first file: nothing is visible, the window is planned.
    let crashed = env.worker("a", Some(CrashAt::AfterChunks(1))).run_once().await;
    assert!(crashed.is_err(), "{crashed:?}");
    assert!(env.files(&prefix).await.is_empty(), "an upload never completed leaves no object");
    let status = env.status().await;
    assert_eq!(status.sync_status, SyncStatus::Running, "A's lease is still live");
    let planned: Option<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("SELECT pending_window_end FROM blob_storage_integrations")
            .fetch_one(&env.pool)
            .await
            .unwrap();
    assert!(planned.is_some());
    assert_eq!(env.worker("b", None).run_once().await.unwrap(), Turn::Idle, "nobody takes a held window");
    env.expire_lease().await;

    let turn = env.worker("b", None).run_once().await.unwrap();
    assert!(matches!(turn, Turn::Exported { rows: 10, .. }), "{turn:?}");
    let files = env.files(&prefix).await;
    assert_eq!(files.len(), 3, "{:?}", files.keys());
    let observations = files.iter().find(|(name, _)| name.contains("/observations/")).unwrap();
    assert!(
        observations.0.contains(&planned.unwrap().format("%Y-%m-%dT%H-%M-%SZ").to_string()),
        "the planned window"
    );
    assert_eq!(ids(&parse(FileType::Jsonl, false, observations.1), "id"), ["o1", "o2", "o3", "o4", "o5"]);

    // Worker C completes every upload and dies before recording the window: D writes the same
    // window again, under the same names, with the same rows.
    let second = env
        .integration("after-upload", FileType::Jsonl, Source::LegacyTracesObservations, WriteMode::Legacy)
        .await;
    assert!(env.worker("c", Some(CrashAt::BeforeCompletion)).run_once().await.is_err());
    let before = env.files(&second).await;
    assert_eq!(before.len(), 3);
    env.expire_lease().await;
    env.worker("d", None).run_once().await.unwrap();
    let after = env.files(&second).await;
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "same objects, none added"
    );
    for (name, bytes) in &after {
        let rows = parse(FileType::Jsonl, false, bytes);
        let mut unique = ids(&rows, "id");
        unique.dedup();
        assert_eq!(unique.len(), rows.len(), "no duplicate in {name}");
        assert_eq!(parse(FileType::Jsonl, false, &before[name]), rows);
    }
    let status = env.status().await;
    assert_eq!(status.sync_status, SyncStatus::UpToDate, "{status:?}");
    assert!(status.last_sync_at.is_some() && status.next_sync_at > status.last_sync_at);
    assert_eq!(env.worker("d", None).run_once().await.unwrap(), Turn::Idle, "the next window has not closed");
}

#[tokio::test]
async fn sources_the_write_mode_cannot_serve_are_refused_never_exported_empty() {
    let env = Env::new().await;
    let prefix = env.prefix("modes");
    let legacy = request(&env, &prefix, FileType::Csv, Source::LegacyTracesObservations);
    let refused = env.save(WriteMode::EventsOnly, legacy.clone()).await.unwrap_err();
    assert!(matches!(&refused, exports::Error::BadRequest(m) if m.contains("events_only")), "{refused}");
    let v2 = request(&env, &prefix, FileType::Csv, Source::ObservationsV2);
    let refused = env.save(WriteMode::Legacy, v2).await.unwrap_err();
    assert!(matches!(refused, exports::Error::BadRequest(_)), "{refused}");

    // Saved under dual, then the deployment moves to events_only: the worker records the error.
    env.save(WriteMode::Dual, legacy).await.unwrap();
    let mut worker = env.worker("w", None);
    worker.write_mode = WriteMode::EventsOnly;
    let turn = worker.run_once().await.unwrap();
    assert!(matches!(&turn, Turn::Failed(m) if m.contains("LEGACY_TRACES_OBSERVATIONS")), "{turn:?}");
    let status = env.status().await;
    assert_eq!(status.sync_status, SyncStatus::Error);
    assert!(status.last_error.unwrap().contains("events_only"));
    assert!(env.files(&prefix).await.is_empty(), "nothing exported");
}

#[tokio::test]
async fn secrets_are_stored_encrypted_and_need_the_key() {
    let env = Env::new().await;
    let prefix = env.prefix("secrets");
    let body = request(&env, &prefix, FileType::Csv, Source::LegacyTracesObservations);
    let without_key = Deployment { encryption_key: None, ..env.deployment(WriteMode::Legacy) };
    let refused = env.save_with(&without_key, body.clone()).await.unwrap_err();
    assert!(matches!(&refused, exports::Error::BadRequest(m) if m.contains("ENCRYPTION_KEY")), "{refused}");
    let saved = env.save(WriteMode::Legacy, body).await.unwrap();
    let answered = serde_json::to_string(&saved).unwrap();
    assert!(!answered.contains(&env.secret) && !answered.contains("secretAccessKey"), "{answered}");
    let stored: String = sqlx::query_scalar("SELECT secret_access_key FROM blob_storage_integrations")
        .fetch_one(&env.pool)
        .await
        .unwrap();
    assert_ne!(stored, env.secret);
    assert_eq!(env.key.decrypt(&stored).unwrap(), env.secret);

    // An update without the secret keeps it; a wrong one is refused by the bucket check.
    let mut update = request(&env, &prefix, FileType::Json, Source::LegacyTracesObservations);
    update.as_object_mut().unwrap().remove("secretAccessKey");
    env.save(WriteMode::Legacy, update).await.unwrap();
    let mut wrong = request(&env, &prefix, FileType::Json, Source::LegacyTracesObservations);
    wrong["secretAccessKey"] = json!("not-the-secret");
    let refused = env.save(WriteMode::Legacy, wrong).await.unwrap_err();
    assert!(
        matches!(refused, exports::Error::BadRequest(ref m) if m.contains("Could not write")),
        "{refused}"
    );
}
