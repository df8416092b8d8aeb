//! Azure Blob targets against a loopback server standing in for the storage account (no real
//! account in the test stack): the requests a streamed upload makes — blocks, then the block list
//! that makes the blob visible — their paths under the container, and Shared Key authorization.

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use domain::outbound::OutboundPolicy;
use exports::model::TargetType;
use exports::target::{self, TargetSettings, Upload};

type Seen = Arc<Mutex<Vec<(Method, String, HeaderMap)>>>;

async fn account() -> (String, Seen) {
    let seen: Seen = Arc::default();
    let log = seen.clone();
    let app = Router::new().fallback(move |method: Method, uri: Uri, headers: HeaderMap| {
        let log = log.clone();
        async move {
            log.lock().unwrap().push((method, uri.to_string(), headers));
            (
                StatusCode::CREATED,
                [
                    ("etag", "\"0x8D\""),
                    ("last-modified", "Thu, 26 Nov 2026 08:00:00 GMT"),
                    ("x-ms-request-id", "r"),
                ],
            )
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{address}"), seen)
}

#[tokio::test]
async fn an_azure_upload_puts_blocks_then_the_block_list_with_shared_key() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let (endpoint, seen) = account().await;
    let settings = TargetSettings {
        kind: TargetType::AzureBlobStorage,
        bucket: "exports".into(),
        endpoint: Some(endpoint),
        region: "eastus".into(),
        access_key_id: Some("loupeaccount".into()),
        secret: Some("c2VjcmV0LWtleS1mb3ItdGVzdHM=".into()),
        force_path_style: false,
    };
    // The account's endpoint is on loopback: refused by the outbound policy unless allowed, by
    // address when connecting and by name (`localhost`) at the first request.
    let refused = target::connect(&settings, &OutboundPolicy::default()).err().unwrap();
    assert!(refused.to_string().contains("LANGFUSE_OUTBOUND_ALLOWED_HOSTS"), "{refused}");
    let by_name = TargetSettings {
        endpoint: settings.endpoint.as_ref().map(|e| e.replace("127.0.0.1", "localhost")),
        ..settings.clone()
    };
    let store = target::connect(&by_name, &OutboundPolicy::default()).unwrap();
    // Azure's upload starts without a request: the first block goes out at the finish.
    let mut refused = Upload::start(store.as_ref(), "pre/x.jsonl", "application/x-ndjson").await.unwrap();
    refused.write(b"{}\n").await.unwrap();
    let refused = refused.finish().await.unwrap_err();
    assert!(refused.to_string().contains("LANGFUSE_OUTBOUND_ALLOWED_HOSTS"), "{refused}");
    assert!(seen.lock().unwrap().is_empty(), "the account was never reached");

    let store = target::connect(&settings, &OutboundPolicy::parse("127.0.0.1").unwrap()).unwrap();
    let mut upload =
        Upload::start(store.as_ref(), "pre/p1/observations/a_b.jsonl", "application/x-ndjson").await.unwrap();
    upload.write(b"{\"id\":\"o1\"}\n").await.unwrap();
    upload.finish().await.unwrap();

    let seen = seen.lock().unwrap();
    let requests: Vec<String> = seen.iter().map(|(m, uri, _)| format!("{m} {uri}")).collect();
    assert_eq!(seen.len(), 2, "{requests:?}");
    let (block, list) = (&seen[0], &seen[1]);
    assert_eq!(block.0, Method::PUT);
    assert!(
        block.1.starts_with("/exports/pre/p1/observations/a_b.jsonl?") && block.1.contains("comp=block"),
        "{requests:?}"
    );
    assert!(list.1.contains("comp=blocklist"), "the block list commits the blob: {requests:?}");
    for (_, _, headers) in seen.iter() {
        let authorization = headers["authorization"].to_str().unwrap();
        assert!(authorization.starts_with("SharedKey loupeaccount:"), "{authorization}");
        assert!(headers.contains_key("x-ms-version"));
    }
    assert_eq!(list.2["x-ms-blob-content-type"], "application/x-ndjson", "{:?}", list.2);
}
