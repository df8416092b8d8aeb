//! Exports (docs/exports.md) through running `web` and `worker` processes: the real Python SDK 5
//! manages a blob storage integration with an organization key, the worker's first run lands the
//! project's observations in the test stack's bucket within two minutes, and the routes keep to
//! roles and organizations.

use std::collections::BTreeSet;
use std::io::Read;
use std::time::Duration;

use futures::TryStreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use serde_json::{Value, json};

use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, run_client_with};
use crate::identity::{admin, basic, call, organization, web};
use crate::sessions::{Browser, signed_up};

const PROJECT: &str = "project-blackbox";
const ORG: &str = "org-blackbox";
const ROUTE: &str = "/api/public/integrations/blob-storage";

fn s3(name: &str) -> String {
    test_support::stack_var(&format!("LANGFUSE_S3_EVENT_UPLOAD_{name}"))
}

async fn stack() -> Stack {
    let mut stack = Stack::new().await;
    stack.env.insert("ENCRYPTION_KEY".into(), "cd".repeat(32));
    stack
}

/// Three OTLP spans that started an hour ago (inside the first window, past the lag).
async fn ingest(app: &App) {
    let start = chrono::Utc::now() - chrono::Duration::hours(1);
    let spans: Vec<Value> = (1..=3)
        .map(|i| {
            let at = start + chrono::Duration::seconds(i);
            json!({
                "traceId": "0af7651916cd43dd8448eb211c80319c",
                "spanId": format!("b7ad6b716920333{i}"),
                "name": format!("exported span {i}"),
                "kind": 1,
                "startTimeUnixNano": (at.timestamp_nanos_opt().unwrap()).to_string(),
                "endTimeUnixNano": (at.timestamp_nanos_opt().unwrap() + 1_000_000).to_string(),
            })
        })
        .collect();
    let body = json!({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]});
    let response = crate::apps::http()
        .post(format!("{}/api/public/otel/v1/traces", app.base_url))
        .header("Authorization", basic(PUBLIC_KEY, SECRET_KEY))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
}

fn bucket() -> impl ObjectStore {
    AmazonS3Builder::new()
        .with_bucket_name(s3("BUCKET"))
        .with_region(s3("REGION"))
        .with_endpoint(s3("ENDPOINT"))
        .with_allow_http(true)
        .with_access_key_id(s3("ACCESS_KEY_ID"))
        .with_secret_access_key(s3("SECRET_ACCESS_KEY"))
        .build()
        .unwrap()
}

/// The rows of every JSONL.gz file under `prefix`, by object name.
async fn exported(prefix: &str) -> Vec<(String, Vec<Value>)> {
    let bucket = bucket();
    let listed: Vec<_> =
        bucket.list(Some(&Path::from(prefix.trim_end_matches('/')))).try_collect().await.unwrap();
    let mut files = Vec::new();
    for meta in listed {
        let name = meta.location.to_string();
        if name.ends_with("loupe-connection-check.txt") {
            continue;
        }
        let bytes = bucket.get(&meta.location).await.unwrap().bytes().await.unwrap();
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..]).read_to_string(&mut text).unwrap();
        files.push((name, text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

#[tokio::test]
async fn python_sdk_manages_an_export_and_the_worker_writes_it() {
    let stack = stack().await;
    let app = web(&stack.env).await;
    let mut worker = App::spawn("worker", &stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
    ingest(&app).await;
    worker.drained().await;

    let (status, key) =
        call(&app, "POST", &format!("/api/admin/organizations/{ORG}/apiKeys"), &admin(), None).await;
    assert_eq!(status, 201, "{key}");
    let prefix = format!("blackbox-exports/{}/", uuid_like());
    let start = (chrono::Utc::now() - chrono::Duration::hours(3)).to_rfc3339();
    let (bucket_name, endpoint, region) = (s3("BUCKET"), s3("ENDPOINT"), s3("REGION"));
    let (key_id, secret) = (s3("ACCESS_KEY_ID"), s3("SECRET_ACCESS_KEY"));
    let seen = run_client_with(
        "blob_storage.py",
        &app,
        &[
            ("LOUPE_ORG_PUBLIC_KEY", key["publicKey"].as_str().unwrap()),
            ("LOUPE_ORG_SECRET_KEY", key["secretKey"].as_str().unwrap()),
            ("LOUPE_PROJECT_ID", PROJECT),
            ("LOUPE_S3_BUCKET", &bucket_name),
            ("LOUPE_S3_ENDPOINT", &endpoint),
            ("LOUPE_S3_REGION", &region),
            ("LOUPE_S3_ACCESS_KEY_ID", &key_id),
            ("LOUPE_S3_SECRET_ACCESS_KEY", &secret),
            ("LOUPE_EXPORT_PREFIX", &prefix),
            ("LOUPE_EXPORT_START", &start),
        ],
    )
    .await;
    let created = &seen["created"];
    assert_eq!(created["id"], PROJECT);
    assert_eq!(created["projectId"], PROJECT);
    assert_eq!(created["exportSource"], "OBSERVATIONS_V2", "the default in events_only: {created}");
    assert_eq!(created["compressed"], true);
    assert_eq!(created["exportFieldGroups"].as_array().unwrap().len(), 11, "{created}");
    assert!(created.get("secretAccessKey").is_none(), "the secret is never answered: {created}");
    assert_eq!(seen["listed"], json!([PROJECT]));
    assert_eq!(seen["firstStatus"], "queued", "due at once: {seen}");
    let status = &seen["status"];
    assert!(status["lastSyncAt"].is_string(), "no run within two minutes: {seen}\n{}", worker.log_tail());
    assert!(seen["waitedSeconds"].as_f64().unwrap() < 120.0, "{seen}");
    assert_eq!(status["syncStatus"], "up_to_date", "{status}");
    assert!(status["nextSyncAt"].is_string() && status["lastError"].is_null(), "{status}");
    for refusal in ["badPrefix", "badCustomDate", "legacySource", "groupsWithoutCore", "gcs"] {
        assert_eq!(seen[refusal]["status"], 400, "{refusal}: {seen}");
        assert!(seen[refusal]["body"]["message"].is_string(), "{refusal}: {seen}");
    }
    assert!(seen["legacySource"]["body"]["message"].as_str().unwrap().contains("events_only"), "{seen}");
    assert_eq!(seen["projectKey"]["status"], 403, "{seen}");
    assert_eq!(seen["deleted"], "Blob storage integration deleted successfully");
    assert_eq!(seen["statusAfterDelete"]["status"], 404);

    // The files: the enriched observations and the scores of the window, named by it.
    let files = exported(&prefix).await;
    let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let window_end = status["lastSyncAt"].as_str().unwrap();
    let end =
        chrono::DateTime::parse_from_rfc3339(window_end).unwrap().format("%Y-%m-%dT%H-%M-%SZ").to_string();
    assert!(names[0].starts_with(&format!("{prefix}{PROJECT}/observations_v2/")), "{names:?}");
    assert!(names[0].ends_with(&format!("_{end}.jsonl.gz")), "{names:?} {end}");
    assert!(names[1].starts_with(&format!("{prefix}{PROJECT}/scores/")), "{names:?}");
    let spans: BTreeSet<&str> = files[0].1.iter().map(|row| row["name"].as_str().unwrap()).collect();
    assert_eq!(spans, BTreeSet::from(["exported span 1", "exported span 2", "exported span 3"]));
    assert_eq!(files[0].1[0]["traceId"], "0af7651916cd43dd8448eb211c80319c");

    // A one-off export of a filtered view: queued, written by the worker, downloaded by its link.
    let key = basic(PUBLIC_KEY, SECRET_KEY);
    let filter = json!([{"type": "string", "column": "name", "operator": "=", "value": "exported span 2"}]);
    let body = json!({"fileType": "JSONL", "compressed": false, "filter": filter});
    let (status, created) = call(&app, "POST", "/api/public/batch-exports", &key, Some(body)).await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["status"], "QUEUED");
    let path = format!("/api/public/batch-exports/{}", created["id"].as_str().unwrap());
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let done = loop {
        let (status, export) = call(&app, "GET", &path, &key, None).await;
        assert_eq!(status, 200, "{export}");
        if export["status"] == "COMPLETED" {
            break export;
        }
        assert!(std::time::Instant::now() < deadline, "{export}\n{}", worker.log_tail());
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(done["rowsExported"], 1, "{done}");
    let file = crate::apps::http().get(done["url"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(file.status(), 200);
    let row: Value = serde_json::from_str(file.text().await.unwrap().trim()).unwrap();
    assert_eq!(row["name"], "exported span 2");
    let bad = json!({"fileType": "XLSX"});
    let (status, answer) = call(&app, "POST", "/api/public/batch-exports", &key, Some(bad)).await;
    assert_eq!(status, 400, "{answer}");
}

fn uuid_like() -> String {
    format!("{:x}", chrono::Utc::now().timestamp_nanos_opt().unwrap())
}

#[tokio::test]
async fn integrations_need_owner_or_admin_and_stay_in_their_organization() {
    let mut stack = stack().await;
    stack.env.insert("LANGFUSE_INIT_USER_EMAIL".into(), "owner@example.com".into());
    stack.env.insert("LANGFUSE_INIT_USER_PASSWORD".into(), "owner password".into());
    let app = web(&stack.env).await;
    let mut owner = Browser::default();
    let credentials = json!({"email": "owner@example.com", "password": "owner password"});
    owner.expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;
    let header = [("X-Loupe-Project", PROJECT)];
    let answer = owner.send(&app, "GET", ROUTE, None, &header).await;
    assert_eq!((answer.status, &answer.body), (200, &json!({"data": []})));

    let body = json!({
        "projectId": PROJECT, "type": "S3_COMPATIBLE", "bucketName": s3("BUCKET"), "endpoint": s3("ENDPOINT"),
        "region": s3("REGION"), "accessKeyId": s3("ACCESS_KEY_ID"), "secretAccessKey": s3("SECRET_ACCESS_KEY"),
        "prefix": "blackbox-roles/", "exportFrequency": "daily", "enabled": false, "forcePathStyle": true,
        "fileType": "CSV", "exportMode": "FROM_TODAY"
    });
    for role in ["MEMBER", "VIEWER"] {
        let mut person = signed_up(&app, &format!("{}@example.com", role.to_lowercase())).await;
        let me = person.expect(&app, 200, "GET", "/api/ui/me", None).await;
        let change = json!({"userId": me["user"]["id"], "role": role});
        owner.expect(&app, 200, "PUT", &format!("/api/ui/organizations/{ORG}/members"), Some(change)).await;
        for (method, path, body) in [
            ("GET", ROUTE.to_owned(), None),
            ("PUT", ROUTE.to_owned(), Some(body.clone())),
            ("DELETE", format!("{ROUTE}/{PROJECT}"), None),
        ] {
            let answer = person.send(&app, method, &path, body, &header).await;
            assert_eq!(answer.status, 403, "a {role} may not {method} {path}: {}", answer.body);
        }
    }
    let answer = owner.send(&app, "PUT", ROUTE, Some(body.clone()), &header).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["enabled"], false);
    let answer = owner.send(&app, "GET", &format!("{ROUTE}/{PROJECT}"), None, &header).await;
    assert_eq!(answer.body["syncStatus"], "disabled", "{}", answer.body);

    // Another organization's key sees nothing of it and cannot write it.
    let other = organization(&app, "Other").await;
    let (status, listed) = call(&app, "GET", ROUTE, &other.key, None).await;
    assert_eq!((status, listed), (200, json!({"data": []})));
    for (method, path, body) in [
        ("GET", format!("{ROUTE}/{PROJECT}"), None),
        ("DELETE", format!("{ROUTE}/{PROJECT}"), None),
        ("PUT", ROUTE.to_owned(), Some(body.clone())),
    ] {
        let (status, answer) = call(&app, method, &path, &other.key, body).await;
        assert_eq!(status, 404, "{method} {path}: {answer}");
    }
    // Bad input: a body that is not the SDK's shape.
    let (status, key) =
        call(&app, "POST", &format!("/api/admin/organizations/{ORG}/apiKeys"), &admin(), None).await;
    assert_eq!(status, 201);
    let org_key = basic(key["publicKey"].as_str().unwrap(), key["secretKey"].as_str().unwrap());
    let (status, answer) =
        call(&app, "PUT", ROUTE, &org_key, Some(json!({"projectId": PROJECT, "type": "FTP"}))).await;
    assert_eq!(status, 400, "{answer}");
    assert!(answer["message"].is_string(), "{answer}");
}
