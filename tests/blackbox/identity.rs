//! Organizations, projects and API keys (docs/identity.md) through running `web` processes: the
//! instance admin API, the organization-key routes (raw HTTP and the real Python SDK), key deletion
//! seen at once by a second web, and isolation between two organizations on every route.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::apps::{ADMIN_KEY, App, PUBLIC_KEY, SECRET_KEY, Stack, free_port, run_client_with};

pub fn basic(public_key: &str, secret_key: &str) -> String {
    format!("Basic {}", STANDARD.encode(format!("{public_key}:{secret_key}")))
}

pub fn admin() -> String {
    format!("Bearer {ADMIN_KEY}")
}

pub async fn call(app: &App, method: &str, path: &str, auth: &str, body: Option<Value>) -> (u16, Value) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut request =
        crate::apps::http().request(method, format!("{}{path}", app.base_url)).header("Authorization", auth);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

pub async fn web(env: &std::collections::BTreeMap<String, String>) -> App {
    let mut env = env.clone();
    // Each web of a test needs its own gRPC port.
    env.insert("LANGFUSE_OTEL_GRPC_PORT".into(), free_port().to_string());
    let mut app = App::spawn("web", &env, free_port());
    app.wait_healthy("/api/public/health", Duration::from_secs(60)).await;
    app
}

/// An organization made through the admin API, and an organization key for it.
pub struct Org {
    pub id: String,
    pub key: String,
    pub key_id: String,
}

pub async fn organization(app: &App, name: &str) -> Org {
    let (status, org) =
        call(app, "POST", "/api/admin/organizations", &admin(), Some(json!({"name": name}))).await;
    assert_eq!(status, 201, "{org}");
    assert_eq!(org["name"], name);
    assert_eq!(org["projects"], json!([]));
    let id = org["id"].as_str().unwrap().to_owned();
    let path = format!("/api/admin/organizations/{id}/apiKeys");
    let (status, key) = call(app, "POST", &path, &admin(), Some(json!({"note": "automation"}))).await;
    assert_eq!(status, 201, "{key}");
    assert!(key["displaySecretKey"].as_str().unwrap().starts_with("sk-lf-..."), "{key}");
    Org {
        id,
        key: basic(key["publicKey"].as_str().unwrap(), key["secretKey"].as_str().unwrap()),
        key_id: key["id"].as_str().unwrap().to_owned(),
    }
}

pub async fn project(app: &App, org: &Org, name: &str) -> String {
    let (status, project) =
        call(app, "POST", "/api/public/projects", &org.key, Some(json!({"name": name, "retention": 0})))
            .await;
    assert_eq!(status, 201, "{project}");
    assert_eq!(
        project["organization"]["id"],
        org.id.as_str(),
        "the SDK's Project type requires organization"
    );
    project["id"].as_str().unwrap().to_owned()
}

/// (authorization header, key id) of a new project key.
pub async fn project_key(app: &App, org: &Org, project_id: &str) -> (String, String) {
    let path = format!("/api/public/projects/{project_id}/apiKeys");
    let (status, key) = call(app, "POST", &path, &org.key, Some(json!({"name": "ci"}))).await;
    assert_eq!(status, 201, "{key}");
    (
        basic(key["publicKey"].as_str().unwrap(), key["secretKey"].as_str().unwrap()),
        key["id"].as_str().unwrap().to_owned(),
    )
}

#[tokio::test]
async fn admin_routes_do_not_exist_without_the_admin_key() {
    let mut stack = Stack::new().await;
    stack.env.remove("ADMIN_API_KEY");
    let app = web(&stack.env).await;
    for (method, path) in [
        ("GET", "/api/admin/organizations"),
        ("POST", "/api/admin/organizations"),
        ("GET", "/api/admin/organizations/org-blackbox"),
        ("DELETE", "/api/admin/organizations/org-blackbox/apiKeys/x"),
    ] {
        let (status, body) = call(&app, method, path, "Bearer anything", Some(json!({"name": "x"}))).await;
        assert_eq!(status, 404, "{method} {path}: {body}");
    }
}

#[tokio::test]
async fn admin_api_manages_organizations() {
    let stack = Stack::new().await;
    let app = web(&stack.env).await;
    let (status, body) = call(&app, "GET", "/api/admin/organizations", "Bearer wrong", None).await;
    assert_eq!(status, 401, "{body}");

    let org = organization(&app, "Acme").await;
    let (status, list) = call(&app, "GET", "/api/admin/organizations", &admin(), None).await;
    assert_eq!(status, 200, "{list}");
    let names: Vec<&str> =
        list["organizations"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"Acme"), "{list}");

    let path = format!("/api/admin/organizations/{}", org.id);
    let (status, renamed) =
        call(&app, "PUT", &path, &admin(), Some(json!({"name": "Acme Inc", "metadata": {"tier": "gold"}})))
            .await;
    assert_eq!(status, 200, "{renamed}");
    assert_eq!(
        (renamed["name"].as_str(), &renamed["metadata"]),
        (Some("Acme Inc"), &json!({"tier": "gold"}))
    );
    let (status, bad) = call(&app, "PUT", &path, &admin(), Some(json!({"name": "  "}))).await;
    assert_eq!(status, 400, "{bad}");
    let (status, missing) = call(&app, "GET", "/api/admin/organizations/nope", &admin(), None).await;
    assert_eq!(status, 404, "{missing}");

    // An organization with a project cannot be deleted; once the project is gone it can.
    let project_id = project(&app, &org, "first").await;
    let (status, body) = call(&app, "DELETE", &path, &admin(), None).await;
    assert_eq!(status, 409, "{body}");
    let (status, fetched) = call(&app, "GET", &path, &admin(), None).await;
    assert_eq!(
        (status, fetched["projects"][0]["id"].as_str()),
        (200, Some(project_id.as_str())),
        "{fetched}"
    );

    let keys_path = format!("{path}/apiKeys");
    let (status, keys) = call(&app, "GET", &keys_path, &admin(), None).await;
    assert_eq!(status, 200, "{keys}");
    assert_eq!(keys["apiKeys"][0]["id"], org.key_id.as_str());
    assert!(keys["apiKeys"][0].get("secretKey").is_none(), "a listed key never shows its secret: {keys}");

    let (status, _) =
        call(&app, "DELETE", &format!("/api/public/projects/{project_id}"), &org.key, None).await;
    assert_eq!(status, 202);
    let (status, body) = call(&app, "DELETE", &format!("{keys_path}/{}", org.key_id), &admin(), None).await;
    assert_eq!((status, &body), (200, &json!({"success": true})));
    let (status, body) = call(&app, "GET", "/api/public/organizations/projects", &org.key, None).await;
    assert_eq!(status, 401, "a deleted organization key opens nothing: {body}");
    let (status, body) = call(&app, "DELETE", &path, &admin(), None).await;
    assert_eq!((status, &body), (200, &json!({"success": true})));
    let (status, _) = call(&app, "GET", &path, &admin(), None).await;
    assert_eq!(status, 404);

    // Every change is in the audit log, with who made it.
    let pool = stack.pg.pool().await;
    let actions: Vec<(String, String)> =
        sqlx::query_as("SELECT action, actor_type FROM audit_log WHERE org_id = $1 ORDER BY created_at, id")
            .bind(&org.id)
            .fetch_all(&pool)
            .await
            .unwrap();
    let actions: Vec<(&str, &str)> = actions.iter().map(|(a, t)| (a.as_str(), t.as_str())).collect();
    assert_eq!(
        actions,
        [
            ("organization.create", "ADMIN_API_KEY"),
            ("apiKey.create", "ADMIN_API_KEY"),
            ("organization.update", "ADMIN_API_KEY"),
            ("project.create", "ORGANIZATION_API_KEY"),
            ("project.delete", "ORGANIZATION_API_KEY"),
            ("apiKey.delete", "ADMIN_API_KEY"),
            ("organization.delete", "ADMIN_API_KEY"),
        ]
    );
}

/// A key deleted through one web is refused by another on the very next request, though that web
/// had just cached it: the deletion is announced, not waited out.
#[tokio::test]
async fn a_deleted_key_is_refused_at_once_by_every_web() {
    let stack = Stack::new().await;
    let (a, b) = (web(&stack.env).await, web(&stack.env).await);
    let org = organization(&a, "Replicas").await;
    let project_id = project(&a, &org, "replicated").await;
    let (key, key_id) = project_key(&a, &org, &project_id).await;
    let (other_key, _) = project_key(&a, &org, &project_id).await;
    for app in [&a, &b] {
        // Twice, so the second answer comes from the cache.
        for _ in 0..2 {
            let (status, body) = call(app, "GET", "/api/public/projects", &key, None).await;
            assert_eq!((status, body["data"][0]["id"].as_str()), (200, Some(project_id.as_str())), "{body}");
        }
    }
    let path = format!("/api/public/projects/{project_id}/apiKeys/{key_id}");
    let (status, body) = call(&a, "DELETE", &path, &org.key, None).await;
    assert_eq!((status, &body), (200, &json!({"success": true})));
    for app in [&b, &a] {
        let (status, body) = call(app, "GET", "/api/public/projects", &key, None).await;
        assert_eq!(status, 401, "{body}");
    }
    let (status, _) = call(&b, "GET", "/api/public/projects", &other_key, None).await;
    assert_eq!(status, 200, "the project's other key still works");

    // Deleting the project revokes all of its keys at once, everywhere.
    let (status, body) =
        call(&a, "DELETE", &format!("/api/public/projects/{project_id}"), &org.key, None).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["success"], true);
    let (status, body) = call(&b, "GET", "/api/public/projects", &other_key, None).await;
    assert_eq!(status, 401, "{body}");
    let pool = stack.pg.pool().await;
    let pending: String = sqlx::query_scalar("SELECT status FROM project_deletions WHERE project_id = $1")
        .bind(&project_id)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(["pending", "running", "succeeded"].contains(&pending.as_str()), "{pending}");
}

/// A key of one organization neither reads, changes nor learns of another organization's projects
/// and keys: every organization-key route answers as if they did not exist.
#[tokio::test]
async fn organizations_are_isolated() {
    let stack = Stack::new().await;
    let app = web(&stack.env).await;
    let (one, two) = (organization(&app, "One").await, organization(&app, "Two").await);
    let project_one = project(&app, &one, "shared-name").await;
    // The same name in another organization is no conflict.
    let project_two = project(&app, &two, "shared-name").await;
    let (_, key_one) = project_key(&app, &one, &project_one).await;

    let foreign = [
        ("GET", format!("/api/public/projects/{project_one}/apiKeys"), None),
        ("POST", format!("/api/public/projects/{project_one}/apiKeys"), Some(json!({}))),
        ("DELETE", format!("/api/public/projects/{project_one}/apiKeys/{key_one}"), None),
        // A key of organization one, reached through organization two's own project.
        ("DELETE", format!("/api/public/projects/{project_two}/apiKeys/{key_one}"), None),
        ("PUT", format!("/api/public/projects/{project_one}"), Some(json!({"name": "taken over"}))),
        ("DELETE", format!("/api/public/projects/{project_one}"), None),
    ];
    for (method, path, body) in foreign {
        let (status, answer) = call(&app, method, &path, &two.key, body.clone()).await;
        assert_eq!(status, 404, "{method} {path}: {answer}");
        // The very same answer as for a project that exists nowhere.
        let nowhere = path.replace(&project_one, "no-such-project");
        if nowhere != path {
            let (_, missing) = call(&app, method, &nowhere, &two.key, body).await;
            assert_eq!(answer, missing, "{method} {path}");
        }
    }
    let (_, listed) = call(&app, "GET", "/api/public/organizations/projects", &two.key, None).await;
    let ids: Vec<&str> =
        listed["projects"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [project_two.as_str()], "{listed}");
    let (_, keys) = call(&app, "GET", "/api/public/organizations/apiKeys", &two.key, None).await;
    assert_eq!(keys["apiKeys"].as_array().unwrap().len(), 1, "only its own organization key: {keys}");
    // Organization one's project and key are untouched.
    let (status, keys) =
        call(&app, "GET", &format!("/api/public/projects/{project_one}/apiKeys"), &one.key, None).await;
    assert_eq!((status, keys["apiKeys"][0]["id"].as_str()), (200, Some(key_one.as_str())), "{keys}");

    // A project key on an organization route: 403 with Langfuse's words.
    let project_auth = basic(PUBLIC_KEY, SECRET_KEY);
    for (method, path) in [
        ("POST", "/api/public/projects".to_owned()),
        ("GET", "/api/public/organizations/projects".to_owned()),
        ("GET", format!("/api/public/projects/{project_one}/apiKeys")),
    ] {
        let (status, body) =
            call(&app, method, &path, &project_auth, Some(json!({"name": "x", "retention": 0}))).await;
        assert_eq!(status, 403, "{method} {path}: {body}");
        assert_eq!(
            body["message"],
            "Invalid API key. Organization-scoped API key required for this operation."
        );
    }
    let (status, _) =
        call(&app, "GET", "/api/public/organizations/projects", &basic("pk-lf-x", "sk-lf-y"), None).await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn project_and_key_requests_are_checked() {
    let stack = Stack::new().await;
    let app = web(&stack.env).await;
    let org = organization(&app, "Checks").await;
    let project_id = project(&app, &org, "checked").await;
    let bad_projects = [
        json!({"name": "", "retention": 0}),
        json!({"name": "x", "retention": 1}),
        json!({"name": "x"}),
        json!({"name": "x", "retention": 0, "metadata": [1]}),
    ];
    for body in bad_projects {
        let (status, answer) = call(&app, "POST", "/api/public/projects", &org.key, Some(body.clone())).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(answer["message"].is_string(), "{answer}");
    }
    let (status, answer) = call(
        &app,
        "POST",
        "/api/public/projects",
        &org.key,
        Some(json!({"name": "checked", "retention": 0})),
    )
    .await;
    assert_eq!(status, 409, "a taken name: {answer}");
    let path = format!("/api/public/projects/{project_id}/apiKeys");
    let bad_keys = [
        json!({"name": "a", "note": "b"}),
        json!({"publicKey": "pk-lf-only"}),
        json!({"publicKey": "pk-x", "secretKey": "sk-lf-0123456789abcdef"}),
        json!({"expiresAt": "2001-01-01T00:00:00Z"}),
    ];
    for body in bad_keys {
        let (status, answer) = call(&app, "POST", &path, &org.key, Some(body.clone())).await;
        assert_eq!(status, 400, "{body}: {answer}");
    }
    let mine = json!({"publicKey": "pk-lf-mine", "secretKey": "sk-lf-0123456789abcdef", "note": "imported"});
    let (status, key) = call(&app, "POST", &path, &org.key, Some(mine.clone())).await;
    assert_eq!(status, 201, "{key}");
    assert_eq!((key["name"].as_str(), key["note"].as_str()), (Some("imported"), Some("imported")));
    let (status, answer) = call(&app, "POST", &path, &org.key, Some(mine)).await;
    assert_eq!(status, 409, "a public key is unique: {answer}");
    let (status, body) =
        call(&app, "GET", "/api/public/projects", &basic("pk-lf-mine", "sk-lf-0123456789abcdef"), None).await;
    assert_eq!((status, body["data"][0]["id"].as_str()), (200, Some(project_id.as_str())), "{body}");
    let pool = stack.pg.pool().await;
    let stored: String =
        sqlx::query_scalar("SELECT hashed_secret_key FROM api_keys WHERE public_key = 'pk-lf-mine'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert!(!stored.contains("0123456789abcdef"), "only a hash of the secret is stored");
}

/// The real Python SDK's generated client, unchanged, against the organization-key routes.
#[tokio::test]
async fn python_sdk_manages_projects_and_keys() {
    let stack = Stack::new().await;
    let app = web(&stack.env).await;
    let path = "/api/admin/organizations/org-blackbox/apiKeys";
    let (status, key) = call(&app, "POST", path, &admin(), None).await;
    assert_eq!(status, 201, "{key}");
    let (public_key, secret_key) = (key["publicKey"].as_str().unwrap(), key["secretKey"].as_str().unwrap());
    let seen = run_client_with(
        "identity.py",
        &app,
        &[("LOUPE_ORG_PUBLIC_KEY", public_key), ("LOUPE_ORG_SECRET_KEY", secret_key)],
    )
    .await;
    assert_eq!(seen["created"]["name"], "sdk-project");
    assert_eq!(seen["created"]["organization"], "org-blackbox");
    assert_eq!(seen["created"]["metadata"], json!({"team": "sdk"}));
    assert_eq!(seen["created"]["retentionDays"], Value::Null);
    assert_eq!(
        seen["updated"],
        json!({"name": "sdk-renamed", "retentionDays": 7, "metadata": {"team": "sdk"}})
    );
    assert_eq!(seen["key"]["name"], "ci");
    assert_eq!(seen["key"]["note"], "ci");
    let secret = seen["key"]["secretKey"].as_str().unwrap();
    assert_eq!(seen["key"]["display"], format!("sk-lf-...{}", &secret[secret.len() - 4..]));
    assert_eq!(seen["keys"].as_array().unwrap().len(), 1, "{seen}");
    assert_eq!(seen["keys"][0]["publicKey"], seen["key"]["publicKey"]);
    let projects = seen["organizationProjects"].as_array().unwrap();
    assert!(projects.contains(&json!("sdk-renamed")) && projects.contains(&json!("Blackbox")), "{seen}");
    assert_eq!(seen["organizationKeys"], json!([public_key]));
    assert_eq!(seen["seenProject"], seen["created"]["id"]);
    assert_eq!(
        seen["projectKeyOnOrgRoute"]["message"],
        "Invalid API key. Organization-scoped API key required for this operation."
    );
    assert_eq!(seen["deletedKey"], true);
    assert_eq!(seen["deletedKeyRefused"], true);
    assert!(seen["missingProject"]["message"].as_str().unwrap().contains("not found"), "{seen}");
    assert_eq!(seen["deletedProject"]["success"], true);
}
