//! The real Python SDK 2.60.10 from PyPI, the last generation with the legacy v1 read resources:
//! in `legacy` mode it ingests through the batch API and reads everything back with its strict
//! models (`tests/e2e/py2/legacy_read_back.py`).

use serde_json::json;

use crate::api::Api;
use crate::apps::run_client;

#[tokio::test]
async fn python_sdk_2_reads_back_through_the_legacy_resources() {
    let api = Api::start(&[
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy"),
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
    ])
    .await;
    let _worker = api.worker().await;

    let read = run_client("py2/legacy_read_back.py", &api.web).await;
    let trace_id = read["trace_id"].clone();
    assert_eq!(
        read["trace"],
        json!({
            "name": "legacy-trace", "user_id": "legacy-user", "session_id": "legacy-session",
            "tags": ["legacy", "py2"], "input": {"question": "capital of France?"}, "output": "Paris",
            "metadata": {"team": "search"}, "observations": ["answer", "retrieve"],
            "score": ["legacy-quality", 0.5],
        })
    );
    assert_eq!(read["listed_traces"], json!([trace_id]));
    assert_eq!(read["listed_total"], 1);
    assert_eq!(read["observations"], json!([["answer", "GENERATION"], ["retrieve", "SPAN"]]));
    assert_eq!(read["generation"], json!({"model": "gpt-4o-mini", "usage": [10, 5, 15], "output": "Paris"}));
    assert_eq!(read["sessions"], json!(["legacy-session"]));
    assert_eq!(read["session_traces"], json!([trace_id]));
    assert_eq!(read["scores"], json!([["legacy-quality", 0.5, trace_id]]));
    assert_eq!(read["daily"], json!([[1, 2]]));
}
