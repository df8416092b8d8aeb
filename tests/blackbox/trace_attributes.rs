//! Issue 17 through the real Python SDK 5 (`tests/e2e/trace_attributes.py`): the trace
//! attributes a child span states win over what its root implies whichever of the two is stored
//! first, tags add up across spans, and metadata values that are JSON come back parsed, in every
//! read of the write mode: the legacy reads over the v3 tables, and v2 observations in `dual`.

use serde_json::{Value, json};

use crate::api::Api;
use crate::apps::run_client;

async fn read_back(mode: &str) -> Value {
    let api = Api::start(&[
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", mode),
        ("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN", if mode == "dual" { "true" } else { "false" }),
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
    ])
    .await;
    let _worker = api.worker().await;
    run_client("trace_attributes.py", &api.web).await
}

/// What every read shows for one trace, whichever of its spans was stored first.
fn check_trace(seen: &Value, order: &str, mode: &str) {
    let trace = &seen[order];
    let (id, name) = (&trace["trace_id"], &trace["name"]);
    assert_eq!(
        trace["v1_trace"],
        json!({
            "name": name, "userId": "attr-user", "sessionId": seen["session"], "version": "attr-v2",
            "public": true, "tags": ["child-tag", "root-tag"],
            // The child's trace metadata, not the root's observation metadata of the same key;
            // the root's other keys fill the rest. Values read back as the JSON they are.
            "metadata": {"batchIndex": 0, "config": {"k": [1, 2]}, "label": "plain", "quoted": "123",
                         "route": "/chat"},
        }),
        "{mode} {order}: {trace}"
    );
    assert_eq!(trace["v1_listed_by_name"], json!([id]), "{mode} {order}");
    let child_metadata = json!({"nested": {"a": [1, 2]}, "flag": true, "label": "plain", "quoted": "123"});
    assert_eq!(trace["v1_child_metadata"], child_metadata, "{mode} {order}");
    if mode == "dual" {
        let v2 = &trace["v2"];
        for span in [format!("root-{order}"), format!("child-{order}")] {
            assert_eq!(v2[&span]["trace_name"], *name, "{mode} {span}: {v2}");
            assert_eq!(v2[&span]["tags"], json!(["child-tag", "root-tag"]), "{mode} {span}");
        }
        assert_eq!(v2[format!("child-{order}")]["metadata"], child_metadata, "{mode} {order}");
    } else {
        assert!(trace.get("v2").is_none(), "no v2 reads in {mode}: {trace}");
    }
}

#[tokio::test]
async fn python_sdk_trace_attributes_in_dual_mode() {
    let seen = read_back("dual").await;
    assert!(seen["session"].as_str().is_some_and(|s| s.starts_with("attr-session-")), "{seen}");
    for order in ["child-first", "root-first"] {
        check_trace(&seen, order, "dual");
    }
    let names = json!([seen["child-first"]["name"], seen["root-first"]["name"]]);
    assert_eq!(seen["session_trace_names"], names, "the session's traces carry the stated names");
}

#[tokio::test]
async fn python_sdk_trace_attributes_in_legacy_mode() {
    let seen = read_back("legacy").await;
    assert!(seen["session"].as_str().is_some_and(|s| s.starts_with("attr-session-")), "{seen}");
    for order in ["child-first", "root-first"] {
        check_trace(&seen, order, "legacy");
    }
}
