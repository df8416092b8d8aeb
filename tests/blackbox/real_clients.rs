//! Real client libraries from PyPI (the Langfuse Python SDK and the plain OpenTelemetry exporter,
//! installed into the stack's venv by `just test`) send to a running Loupe; the rows are read back.

use std::time::{Duration, Instant};

use crate::apps::{App, Stack, free_port, run_client};

#[tokio::test]
async fn python_sdk_and_plain_otel_exporter_land_in_events_full() {
    let mut stack = Stack::new().await;
    stack.env.insert("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS".into(), "100".into());
    let mut web = App::spawn("web", &stack.env, free_port());
    web.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    let mut worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;

    let ids = run_client("real_clients.py", &web).await;
    let (sdk_trace, otel_trace) =
        (ids["sdk_trace_id"].as_str().unwrap(), ids["otel_trace_id"].as_str().unwrap());

    let deadline = Instant::now() + Duration::from_secs(60);
    let rows: Vec<(String, String, String, String)> = loop {
        let rows = stack
            .ch
            .client()
            .query(
                "SELECT trace_id, name, type, user_id FROM events_full FINAL WHERE trace_id IN (?, ?) \
                 ORDER BY trace_id, name",
            )
            .bind(sdk_trace)
            .bind(otel_trace)
            .fetch_all()
            .await
            .unwrap();
        if rows.len() >= 3 || Instant::now() > deadline {
            break rows;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let find = |name: &str| {
        rows.iter().find(|r| r.1 == name).unwrap_or_else(|| panic!("{name} missing from {rows:?}"))
    };
    let generation = find("e2e-generation");
    assert_eq!(
        (generation.0.as_str(), generation.2.as_str(), generation.3.as_str()),
        (sdk_trace, "GENERATION", "e2e-user")
    );
    assert_eq!(find("e2e-root").3, "e2e-user");
    let otel = find("e2e-otel-chat");
    assert_eq!(
        (otel.0.as_str(), otel.2.as_str(), otel.3.as_str()),
        (otel_trace, "GENERATION", "e2e-otel-user")
    );

    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let scores: u64 = stack
            .ch
            .client()
            .query("SELECT count() FROM scores FINAL WHERE trace_id = ? AND name = 'e2e-quality'")
            .bind(sdk_trace)
            .fetch_one()
            .await
            .unwrap();
        if scores == 1 {
            break;
        }
        assert!(Instant::now() < deadline, "the SDK's score was not stored\n{}", worker.log_tail());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
