//! Startup, health and shutdown of both binaries together, as a deployment runs them.

use std::time::Duration;

use serde_json::Value;

use crate::apps::{App, Stack, free_port};

async fn json(url: String) -> (u16, Value) {
    let response = reqwest::get(url).await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

/// Sends SIGTERM and waits for a clean exit.
pub(crate) async fn terminate(app: &mut App) {
    let pid = app.child.id().expect("still running");
    let status = std::process::Command::new("kill").args(["-TERM", &pid.to_string()]).status().unwrap();
    assert!(status.success());
    let exit = tokio::time::timeout(Duration::from_secs(15), app.child.wait())
        .await
        .expect("exits within 15 s of SIGTERM")
        .unwrap();
    assert!(exit.success(), "exit status {exit}");
}

#[tokio::test]
async fn web_and_worker_start_together_migrate_once_and_stop_on_sigterm() {
    let stack = Stack::new().await;
    // Started at the same moment on fresh databases: one migrates, the other waits on the lock.
    let mut web = App::spawn("web", &stack.env, free_port());
    let mut worker = App::spawn("worker", &stack.env, free_port());
    web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;

    let (status, body) =
        json(format!("{}/api/health?failIfEventPropagationStuck=true", worker.base_url)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["dependencies"]["postgres"], "ok", "{body}");
    assert_eq!(body["dependencies"]["clickhouse"], "ok", "{body}");
    assert_eq!(body["dependencies"]["redis"], "ok", "{body}");
    assert_eq!(body["dependencies"]["blob_storage"], "ok", "{body}");

    let (status, body) =
        json(format!("{}/api/public/health?failIfDatabaseUnavailable=true", web.base_url)).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("OK")), "{body}");

    let records: u64 =
        stack.ch.client().query("SELECT count() FROM loupe_schema_migrations").fetch_one().await.unwrap();
    assert_eq!(records as usize, storage_migrations_count());

    terminate(&mut web).await;
    terminate(&mut worker).await;
}

#[tokio::test]
async fn restart_is_harmless() {
    let stack = Stack::new().await;
    for _ in 0..2 {
        let mut web = App::spawn("web", &stack.env, free_port());
        web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
        terminate(&mut web).await;
    }
    let keys: i64 =
        sqlx::query_scalar("SELECT count(*) FROM api_keys").fetch_one(&stack.pg.pool().await).await.unwrap();
    assert_eq!(keys, 1, "bootstrap must not duplicate the key");
}

#[tokio::test]
async fn worker_health_reports_an_unreachable_store() {
    let mut stack = Stack::new().await;
    let mut worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
    terminate(&mut worker).await;
    // Same databases (already migrated), but Redis now points where nothing listens.
    stack.env.insert("REDIS_CONNECTION_STRING".into(), "redis://127.0.0.1:1".into());
    let port = free_port();
    let worker = App::spawn("worker", &stack.env, port);
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let (status, body) = loop {
        if let Ok(response) = crate::apps::http().get(format!("{}/api/health", worker.base_url)).send().await
        {
            break (response.status().as_u16(), response.json::<Value>().await.unwrap());
        }
        assert!(std::time::Instant::now() < deadline, "worker never answered");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(status, 503, "{body}");
    assert!(body["dependencies"]["redis"].as_str().unwrap().starts_with("unavailable"), "{body}");
    assert_eq!(body["dependencies"]["postgres"], "ok", "{body}");
    // Not ready, but alive: the job loop keeps turning while Redis is away, so liveness passes
    // and no orchestrator restarts a worker that a restart would not help.
    let (status, body) = json(format!("{}/api/live", worker.base_url)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["lastHeartbeatSecondsAgo"].as_u64().unwrap() < 60, "{body}");
}

fn storage_migrations_count() -> usize {
    std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../migrations/clickhouse"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "sql"))
        .count()
}
