//! Export targets obey `LANGFUSE_OUTBOUND_ALLOWED_HOSTS` (docs/outbound.md) like every other
//! destination people configure: the test stack's bucket listens on loopback, so it is refused when
//! saved and at each run unless the setting allows it — by address and by a name resolving to it.

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

mod support;

use domain::config::WriteMode;
use domain::outbound::{ALLOWED_HOSTS, OutboundPolicy};
use exports::api::Deployment;
use exports::job::Turn;
use exports::model::{FileType, Source, SyncStatus};
use serde_json::json;
use support::{Env, request};

#[tokio::test]
async fn a_loopback_endpoint_is_refused_without_the_setting_and_allowed_with_it() {
    let env = Env::new().await;
    let prefix = env.prefix("outbound");
    let by_address = request(&env, &prefix, FileType::Jsonl, Source::LegacyTracesObservations);
    let endpoint = by_address["endpoint"].as_str().unwrap().to_owned();
    assert!(endpoint.contains("127.0.0.1"), "the stack's bucket is on loopback: {endpoint}");
    let mut by_name = by_address.clone();
    by_name["endpoint"] = json!(endpoint.replace("127.0.0.1", "localhost"));

    // Saved without the setting: refused by address before any request, and by name when the
    // connection check resolves it; nothing is written, not even the check's object.
    let public_only = OutboundPolicy::default();
    let deployment = Deployment { policy: &public_only, ..env.deployment(WriteMode::Legacy) };
    for body in [&by_address, &by_name] {
        let refused = env.save_with(&deployment, body.clone()).await.unwrap_err();
        assert!(
            matches!(&refused, exports::Error::BadRequest(m) if m.contains(ALLOWED_HOSTS)),
            "{}: {refused}",
            body["endpoint"]
        );
    }
    assert!(env.names(&prefix).await.is_empty(), "the bucket was never reached");

    // With the setting: saved (by name), and exported.
    env.save(WriteMode::Legacy, by_name).await.unwrap();
    assert_eq!(env.names(&prefix).await.len(), 1, "the connection check's object");

    // At each run: a worker without the setting fails the run, records why and writes nothing.
    let mut refusing = env.worker("refusing", None);
    refusing.policy = OutboundPolicy::default();
    let turn = refusing.run_once().await.unwrap();
    assert!(matches!(&turn, Turn::Failed(m) if m.contains(ALLOWED_HOSTS)), "{turn:?}");
    let status = env.status().await;
    assert_eq!(status.sync_status, SyncStatus::Error, "{status:?}");
    assert!(status.last_error.unwrap().contains(ALLOWED_HOSTS));
    assert!(env.files(&prefix).await.is_empty());

    env.due_now().await;
    let turn = env.worker("allowed", None).run_once().await.unwrap();
    assert!(matches!(turn, Turn::Exported { rows: 10, .. }), "{turn:?}");
    assert_eq!(env.files(&prefix).await.len(), 3);
}
