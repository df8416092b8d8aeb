//! Media through the running `web`: the content-addressed id, uploads straight to S3 through a
//! presigned URL, web's own token URLs when the blob store is a local directory, deduplication,
//! every documented 4xx, project isolation, and the real Python SDK's media flow.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use reqwest::Method;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::api::Api;
use crate::apps::{free_port, http, run_client};

/// A few bytes that stand for an image; the server only cares about length and hash.
const IMAGE: &[u8] = b"\x89PNG\r\n\x1a\n loupe test image";

fn sha256(bytes: &[u8]) -> String {
    STANDARD.encode(Sha256::digest(bytes))
}

fn announce(bytes: &[u8], trace: &str) -> Value {
    json!({"traceId": trace, "observationId": "o1", "contentType": "image/png",
           "contentLength": bytes.len(), "sha256Hash": sha256(bytes), "field": "input"})
}

/// PUTs `bytes` the way the SDKs do; returns the status.
async fn put(url: &str, bytes: &'static [u8]) -> u16 {
    let response = http()
        .put(url)
        .header("Content-Type", "image/png")
        .header("x-amz-checksum-sha256", sha256(bytes))
        .header("x-ms-blob-type", "BlockBlob")
        .body(bytes)
        .send()
        .await
        .unwrap();
    response.status().as_u16()
}

async fn download(url: &str) -> (u16, Vec<u8>) {
    let response = http().get(url).send().await.unwrap();
    (response.status().as_u16(), response.bytes().await.unwrap().to_vec())
}

#[tokio::test]
async fn s3_uploads_go_to_the_bucket_through_presigned_urls() {
    let api = Api::start(&[]).await;
    let created = api.expect(201, Method::POST, "/api/public/media", Some(&announce(IMAGE, "t1"))).await;
    let id = created["mediaId"].as_str().unwrap().to_owned();
    assert_eq!(id, sha256(IMAGE).replace('+', "-").replace('/', "_")[..22]);
    let upload_url = created["uploadUrl"].as_str().unwrap();
    let endpoint = &api.stack.env["LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT"];
    assert!(upload_url.starts_with(endpoint.as_str()), "straight to the bucket: {upload_url}");
    assert!(upload_url.contains("X-Amz-Signature="), "{upload_url}");

    let not_yet = api.expect(404, Method::GET, &format!("/api/public/media/{id}"), None).await;
    assert_eq!(not_yet["message"], "Media not yet uploaded");
    // The signature covers the checksum header: other bytes under this URL are refused by S3.
    assert_ne!(put(upload_url, b"\x89PNG\r\n\x1a\n other bytes!!!!!").await, 200);
    assert_eq!(put(upload_url, IMAGE).await, 200);
    let outcome = json!({"uploadedAt": "2026-01-01T00:00:00Z", "uploadHttpStatus": 200, "uploadHttpError": null, "uploadTimeMs": 12});
    let patched = api.expect(200, Method::PATCH, &format!("/api/public/media/{id}"), Some(&outcome)).await;
    assert_eq!(patched["message"], "OK");

    let media = api.expect(200, Method::GET, &format!("/api/public/media/{id}"), None).await;
    assert_eq!(media["contentType"], "image/png");
    assert_eq!(media["contentLength"], IMAGE.len());
    assert_eq!(media["uploadedAt"], "2026-01-01T00:00:00.000Z");
    assert!(media["urlExpiry"].is_string());
    assert_eq!(download(media["url"].as_str().unwrap()).await, (200, IMAGE.to_vec()));

    // Identical content is not uploaded twice, even from another trace.
    let again = api.expect(201, Method::POST, "/api/public/media", Some(&announce(IMAGE, "t2"))).await;
    assert_eq!((again["mediaId"].as_str(), again["uploadUrl"].clone()), (Some(id.as_str()), Value::Null));

    let mut wrong = announce(IMAGE, "t1");
    for (key, value, needle) in [
        ("contentType", json!("image/x-unknown"), "content type"),
        ("contentLength", json!(2_000_000_000u64), "contentLength"),
        ("contentLength", json!(0), "contentLength"),
        ("sha256Hash", json!("not-a-hash"), "sha256Hash"),
        ("traceId", Value::Null, "traceId"),
    ] {
        let saved = wrong[key].clone();
        wrong[key] = value;
        let refused = api.expect(400, Method::POST, "/api/public/media", Some(&wrong)).await;
        assert!(refused.to_string().contains(needle), "{key}: {refused}");
        wrong[key] = saved;
    }
    let failed = announce(b"failed upload", "t1");
    let failed_id = api.expect(201, Method::POST, "/api/public/media", Some(&failed)).await["mediaId"]
        .as_str()
        .unwrap()
        .to_owned();
    let outcome =
        json!({"uploadedAt": "2026-01-01T00:00:00Z", "uploadHttpStatus": 403, "uploadHttpError": "denied"});
    api.expect(200, Method::PATCH, &format!("/api/public/media/{failed_id}"), Some(&outcome)).await;
    let refused = api.expect(404, Method::GET, &format!("/api/public/media/{failed_id}"), None).await;
    assert_eq!(refused["message"], "Media upload failed with status 403");
    let missing = api.expect(404, Method::GET, "/api/public/media/AAAAAAAAAAAAAAAAAAAAAA", None).await;
    assert_eq!(missing["message"], "Media asset not found");
    api.expect(404, Method::PATCH, "/api/public/media/AAAAAAAAAAAAAAAAAAAAAA", Some(&outcome)).await;
    api.expect(
        400,
        Method::PATCH,
        &format!("/api/public/media/{id}"),
        Some(&json!({"uploadHttpStatus": "x"})),
    )
    .await;

    // A dataset item that references the media lists it, with a URL that downloads the bytes.
    api.expect(200, Method::POST, "/api/public/v2/datasets", Some(&json!({"name": "with-media"}))).await;
    let reference = format!("@@@langfuseMedia:type=image/png|id={id}|source=bytes@@@");
    let item = json!({"datasetName": "with-media", "id": "item-1", "input": {"picture": reference, "text": "hi"},
                      "expectedOutput": "@@@langfuseMedia:type=image/png|id=AAAAAAAAAAAAAAAAAAAAAA|source=bytes@@@"});
    api.expect(200, Method::POST, "/api/public/dataset-items", Some(&item)).await;
    let fetched = api.expect(200, Method::GET, "/api/public/dataset-items/item-1", None).await;
    let references = fetched["mediaReferences"].as_array().unwrap();
    assert_eq!(references.len(), 1, "unknown media is left out: {fetched}");
    assert_eq!(
        (references[0]["field"].clone(), references[0]["jsonPath"].clone()),
        (json!("input"), json!("$['picture']"))
    );
    assert_eq!(references[0]["referenceString"], reference);
    assert_eq!(references[0]["media"]["contentLength"], IMAGE.len());
    assert_eq!(download(references[0]["media"]["url"].as_str().unwrap()).await, (200, IMAGE.to_vec()));
    let listed = api.expect(200, Method::GET, "/api/public/dataset-items?datasetName=with-media", None).await;
    let listed_ids: Vec<Value> = listed["data"][0]["mediaReferences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["media"]["mediaId"].clone())
        .collect();
    assert_eq!(listed_ids, vec![json!(id)], "the list shows them too");

    let other = api.other_project().await;
    let (status, _) = api.send_as(&other, Method::GET, &format!("/api/public/media/{id}"), None).await;
    assert_eq!(status, 404, "another project's media is not found");
    let (status, theirs) =
        api.send_as(&other, Method::POST, "/api/public/media", Some(&announce(IMAGE, "t9"))).await;
    assert_eq!(status, 201);
    assert!(theirs["uploadUrl"].is_string(), "the other project uploads its own copy: {theirs}");
}

#[tokio::test]
async fn a_local_blob_directory_uploads_and_downloads_through_web() {
    let dir = std::env::temp_dir().join(format!("loupe-media-{}", free_port()));
    let api = Api::start_with(
        &[("LANGFUSE_EVENT_UPLOAD_LOCAL_DIR", dir.to_str().unwrap())],
        &test_support::S3_SETTINGS,
    )
    .await;
    let created = api.expect(201, Method::POST, "/api/public/media", Some(&announce(IMAGE, "t1"))).await;
    let id = created["mediaId"].as_str().unwrap();
    let upload_url = created["uploadUrl"].as_str().unwrap();
    assert!(
        upload_url.starts_with(&format!("{}/api/public/media/{id}/content?", api.web.base_url)),
        "{upload_url}"
    );

    assert_eq!(put(&upload_url.replace("token=", "token=x"), IMAGE).await, 403, "a tampered token");
    assert_eq!(
        put(upload_url, b"\x89PNG\r\n\x1a\n other bytes!!!!!").await,
        400,
        "bytes that are not the announced ones"
    );
    assert_eq!(put(upload_url, IMAGE).await, 200);
    // web recorded the upload itself; the SDK's PATCH afterwards changes nothing that matters.
    let media = api.expect(200, Method::GET, &format!("/api/public/media/{id}"), None).await;
    let url = media["url"].as_str().unwrap();
    assert_eq!(download(url).await, (200, IMAGE.to_vec()));
    // Uploaded content is always a download, never rendered (or sniffed into HTML) in web's origin.
    let response = crate::apps::http().get(url).send().await.unwrap();
    let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    assert_eq!(header("content-disposition").as_deref(), Some("attachment"));
    assert_eq!(header("x-content-type-options").as_deref(), Some("nosniff"));
    assert_eq!(header("content-security-policy").as_deref(), Some("sandbox"));
    assert_eq!(download(&url.replace("project=project-blackbox", "project=other")).await.0, 403);
    assert!(
        std::fs::read_dir(dir.join("media/project-blackbox")).unwrap().count() == 1,
        "stored under media/<project>/"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The real Python SDK uploads an image found in an observation's input, and the reference it
/// leaves there downloads the same bytes again.
#[tokio::test]
async fn python_sdk_uploads_media_and_reads_it_back() {
    let api = Api::start(&[("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100")]).await;
    let _worker = api.worker().await;
    let seen = run_client("media.py", &api.web).await;
    assert_eq!(seen["same_bytes"], true, "{seen}");
    assert_eq!(seen["content_type"], "image/png");
    // The v2 observations read lists the reference it found in the input, with a working URL.
    // Its input is the JSON text as the span carried it, so the reference is in the string at `$`.
    assert_eq!(
        seen["listed"],
        json!([{"field": "input", "json_path": "$", "media_id": seen["media_id"],
                "is_the_reference": true, "same_bytes": true}]),
        "{seen}"
    );
}

/// The legacy trace read lists the media its trace and its observations reference, and the v1
/// dataset read the media of its items.
#[tokio::test]
async fn legacy_traces_and_v1_datasets_list_their_media_references() {
    let api = Api::start(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy")]).await;
    let created = api.expect(201, Method::POST, "/api/public/media", Some(&announce(IMAGE, "trace-m"))).await;
    let id = created["mediaId"].as_str().unwrap().to_owned();
    assert_eq!(put(created["uploadUrl"].as_str().unwrap(), IMAGE).await, 200);
    let outcome = json!({"uploadedAt": "2026-01-01T00:00:00Z", "uploadHttpStatus": 200});
    api.expect(200, Method::PATCH, &format!("/api/public/media/{id}"), Some(&outcome)).await;
    let reference = format!("@@@langfuseMedia:type=image/png|id={id}|source=bytes@@@");

    let ch = api.stack.ch.client();
    ch.query(
        "INSERT INTO traces (id, timestamp, name, project_id, public, bookmarked, tags, output, event_ts, is_deleted) \
         VALUES ('trace-m', now64(3), 't', 'project-blackbox', false, false, [], ?, now64(3), 0)",
    )
    .bind(json!({"answer": reference}).to_string())
    .execute()
    .await
    .unwrap();
    ch.query(
        "INSERT INTO observations (id, trace_id, project_id, type, start_time, name, level, input, event_ts, is_deleted) \
         VALUES ('obs-m', 'trace-m', 'project-blackbox', 'SPAN', now64(3), 'look', 'DEFAULT', ?, now64(3), 0)",
    )
    .bind(json!([{"content": reference}]).to_string())
    .execute()
    .await
    .unwrap();

    let trace = api.expect(200, Method::GET, "/api/public/traces/trace-m", None).await;
    let paths = |object: &Value| -> Vec<(Value, Value, Value)> {
        object["mediaReferences"]
            .as_array()
            .unwrap_or_else(|| panic!("no mediaReferences in {object}"))
            .iter()
            .map(|r| (r["field"].clone(), r["jsonPath"].clone(), r["media"]["mediaId"].clone()))
            .collect()
    };
    assert_eq!(paths(&trace), [(json!("output"), json!("$['answer']"), json!(id))]);
    assert_eq!(paths(&trace["observations"][0]), [(json!("input"), json!("$[0]['content']"), json!(id))]);
    let url = trace["observations"][0]["mediaReferences"][0]["media"]["url"].as_str().unwrap();
    assert_eq!(download(url).await, (200, IMAGE.to_vec()));
    let observation = api.expect(200, Method::GET, "/api/public/observations/obs-m", None).await;
    assert_eq!(paths(&observation), paths(&trace["observations"][0]));

    api.expect(200, Method::POST, "/api/public/datasets", Some(&json!({"name": "v1-media"}))).await;
    let item = json!({"datasetName": "v1-media", "id": "item-m", "input": reference});
    api.expect(200, Method::POST, "/api/public/dataset-items", Some(&item)).await;
    let dataset = api.expect(200, Method::GET, "/api/public/datasets/v1-media", None).await;
    assert_eq!(paths(&dataset["items"][0]), [(json!("input"), json!("$"), json!(id))]);
}
