//! LLM connections through the running `web`: the real Python SDK over every route, secrets
//! encrypted at rest and never answered, a stored connection decrypted and called through the
//! `llm` client against the loopback stub; bad input, project isolation, roles (VIEWER and MEMBER
//! refused writes); no `ENCRYPTION_KEY` refuses writes; and web and worker refusing to start when
//! stored secrets cannot be read (no key, another key).

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use test_support::llm_stub::{LlmStub, StubReply};

use crate::api::Api;
use crate::apps::{run_client_with, run_to_exit};
use crate::sessions::{Browser, signed_up};

const PATH: &str = "/api/public/llm-connections";
const PROJECT: &str = "project-blackbox";
const KEY: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
const OTHER_KEY: &str = "1111111111111111111111111111111111111111111111111111111111111111";
const OWNER: &str = "owner@example.com";

async fn started(extra: &[(&str, &str)]) -> Api {
    let mut env = vec![
        ("ENCRYPTION_KEY", KEY),
        ("LANGFUSE_INIT_USER_EMAIL", OWNER),
        ("LANGFUSE_INIT_USER_NAME", "Olive Owner"),
        ("LANGFUSE_INIT_USER_PASSWORD", "owner password"),
    ];
    env.extend_from_slice(extra);
    Api::start(&env).await
}

#[tokio::test]
async fn the_python_sdk_manages_connections_and_a_stored_one_is_called() {
    let api = started(&[]).await;
    let stub = LlmStub::start().await;
    let seen = run_client_with("llm_connections.py", &api.web, &[("LOUPE_STUB_URL", &stub.base_url())]).await;
    let text = seen.to_string();
    for secret in
        ["sk-first-secret-0001", "sk-second-secret-0002", "sk-ant-third-secret-0003", "header-secret-value"]
    {
        assert!(!text.contains(secret), "a secret was answered: {text}");
    }
    let base = format!("{}/v1", stub.base_url());
    assert_eq!(seen["created"]["provider"], "my-gateway");
    assert_eq!(seen["created"]["adapter"], "openai");
    assert_eq!(seen["created"]["displaySecretKey"], "...0001");
    assert_eq!(seen["created"]["baseURL"], json!(base));
    assert_eq!(seen["created"]["customModels"], json!(["judge-small", "judge-large"]));
    assert_eq!(seen["created"]["withDefaultModels"], false);
    assert_eq!(seen["created"]["extraHeaderKeys"], json!(["X-Team"]));
    assert_eq!(seen["created"]["config"], json!({"useResponsesApi": false}));
    assert_eq!(seen["updated"]["id"], seen["created"]["id"], "upserted on provider");
    assert_eq!(seen["updated"]["displaySecretKey"], "...0002");
    assert_eq!(seen["updated"]["customModels"], json!(["judge-small"]));
    assert_eq!(seen["updated"]["withDefaultModels"], false, "left out: unchanged");
    assert_eq!(seen["updated"]["extraHeaderKeys"], json!(["X-Other", "X-Team"]));
    assert_eq!(seen["updated"]["config"], Value::Null, "left out: cleared");
    assert_eq!(seen["updated"]["created_before_updated"], true);
    assert_eq!(seen["anthropic"]["withDefaultModels"], true, "the default");
    assert_eq!(seen["anthropic"]["baseURL"], Value::Null);
    assert_eq!(seen["first_page"], json!(["anthropic"]), "newest first");
    assert_eq!(seen["first_page_meta"], json!([2, 2]));
    assert_eq!(seen["everything"], json!(["anthropic", "my-gateway"]));
    assert_eq!(seen["deleted"], "LLM connection successfully deleted");
    assert_eq!(seen["after_delete"], json!(["my-gateway"]));
    assert_eq!(seen["missing"], 404);

    // At rest: encrypted under ENCRYPTION_KEY, in Langfuse's iv:ciphertext:tag form.
    let pool = api.stack.pg.pool().await;
    let (secret, headers): (String, Option<String>) =
        sqlx::query_as("SELECT secret_key, extra_headers FROM llm_api_keys WHERE provider = 'my-gateway'")
            .fetch_one(&pool)
            .await
            .unwrap();
    let key = domain::secrets::EncryptionKey::parse(KEY).unwrap();
    assert_eq!(secret.split(':').count(), 3, "{secret}");
    assert_eq!(key.decrypt(&secret).unwrap(), "sk-second-secret-0002");
    let headers: Value = serde_json::from_str(&key.decrypt(&headers.unwrap()).unwrap()).unwrap();
    assert_eq!(headers, json!({"X-Team": "header-secret-value", "X-Other": "x"}));

    // Each change is in the audit log, by the project key, without a secret.
    let audit: Vec<(String, String, String, Value)> = sqlx::query_as(
        "SELECT action, actor_type, actor_id, details FROM audit_log WHERE target_type = 'llmApiKey' ORDER BY created_at, id",
    )
    .fetch_all(&pool)
    .await
    .unwrap()
    .into_iter()
    .map(|(action, actor_type, actor_id, details): (String, String, String, sqlx::types::Json<Value>)| {
        (action, actor_type, actor_id, details.0)
    })
    .collect();
    let actions: Vec<&str> = audit.iter().map(|(action, ..)| action.as_str()).collect();
    assert_eq!(actions, ["llmApiKey.create", "llmApiKey.update", "llmApiKey.create", "llmApiKey.delete"]);
    assert!(
        audit
            .iter()
            .all(|(_, actor_type, actor_id, _)| actor_type == "PROJECT_API_KEY"
                && actor_id == "pk-lf-blackbox")
    );
    assert!(!format!("{audit:?}").contains("secret-000"), "{audit:?}");

    // What the evaluators do: decrypt the stored connection and call the provider with it.
    let connection = resources::llm_connections::connection_for(&pool, &key, PROJECT, "my-gateway")
        .await
        .unwrap()
        .expect("stored");
    stub.push(StubReply::json(json!({"score": 1})));
    let request = llm::ChatRequest {
        model: "judge-small".into(),
        messages: vec![llm::ChatMessage::user("grade this")],
        params: llm::ModelParams::default(),
        output: Some(llm::StructuredOutput { name: "verdict".into(), schema: json!({"type": "object"}) }),
    };
    let reply = llm::LlmClient::new(domain::outbound::OutboundPolicy::allow_all(), Duration::from_secs(10))
        .chat(&connection, &request)
        .await
        .unwrap();
    assert_eq!(reply.structured, Some(json!({"score": 1})));
    let sent = stub.wait_for_requests(1, Duration::from_secs(10)).await;
    assert_eq!(sent[0].header("authorization"), Some("Bearer sk-second-secret-0002"));
    assert_eq!(sent[0].header("x-team"), Some("header-secret-value"));
    assert!(
        resources::llm_connections::connection_for(&pool, &key, PROJECT, "nope").await.unwrap().is_none()
    );
    assert!(
        resources::llm_connections::connection_for(&pool, &key, "other", "my-gateway")
            .await
            .unwrap()
            .is_none()
    );
}

/// `status` with a JSON `{message, error}` whose words contain `needle`.
async fn refused(api: &Api, status: u16, method: Method, path: &str, body: Value, needle: &str) {
    let answer = api.expect(status, method.clone(), path, Some(&body)).await;
    let words = format!("{} {}", answer["message"].as_str().unwrap_or_default(), answer["error"]);
    assert!(words.contains(needle), "{method} {path} {body}: expected `{needle}` in {answer}");
    assert!(answer["error"].is_string(), "{answer}");
}

fn connection(provider: &str) -> Value {
    json!({"provider": provider, "adapter": "openai", "secretKey": "sk-valid-key-123456"})
}

#[tokio::test]
async fn bad_input_is_refused_and_other_projects_see_nothing() {
    let api = started(&[]).await;
    let put = Method::PUT;
    for (body, needle) in [
        (json!({"provider": "x", "adapter": "mistral", "secretKey": "k"}), "adapter must be one of"),
        (
            json!({"provider": "x", "adapter": "bedrock", "secretKey": "k", "config": {"region": "us-east-1"}}),
            "not supported yet",
        ),
        (
            json!({"provider": "x", "adapter": "google-vertex-ai", "secretKey": "{}"}),
            "service-account key file",
        ),
        (
            json!({"provider": "x", "adapter": "google-vertex-ai", "secretKey": "not json at all"}),
            "service-account key file",
        ),
        (json!({"provider": "x", "adapter": "openai"}), "secretKey"),
        (json!({"provider": "", "adapter": "openai", "secretKey": "k"}), "provider"),
        (json!({"provider": "p".repeat(101), "adapter": "openai", "secretKey": "k"}), "provider"),
        (json!({"provider": "x", "adapter": "openai", "secretKey": "k", "baseURL": "not a url"}), "baseURL"),
        (json!({"provider": "x", "adapter": "azure", "secretKey": "k"}), "baseURL"),
        (
            json!({"provider": "x", "adapter": "openai", "secretKey": "k", "extraHeaders": {"a b": "v"}}),
            "header name",
        ),
        (
            json!({"provider": "x", "adapter": "openai", "secretKey": "k", "customModels": vec!["m"; 201]}),
            "customModels",
        ),
        (
            json!({"provider": "x", "adapter": "openai", "secretKey": "k", "config": {"region": "x"}}),
            "useResponsesApi",
        ),
        (json!({"provider": "x", "adapter": "anthropic", "secretKey": "k", "config": {}}), "config"),
        (
            json!({"provider": "x", "adapter": "openai", "secretKey": "k", "customModels": "m"}),
            "Invalid request data",
        ),
        (json!({"provider": "x", "adapter": "openai", "secretKey": 424242424242u64}), "line 1"),
    ] {
        refused(&api, 400, put.clone(), PATH, body, needle).await;
    }
    let leaked = api
        .expect(
            400,
            Method::PUT,
            PATH,
            Some(&json!({"provider": "x", "adapter": "openai", "secretKey": 987654321987u64})),
        )
        .await;
    assert!(!leaked.to_string().contains("987654321987"), "the parser quoted the key: {leaked}");
    api.expect(400, Method::GET, &format!("{PATH}?limit=0"), None).await;
    let (status, listed) = api.send(Method::GET, PATH, None).await;
    assert_eq!((status, listed["data"].as_array().map(Vec::len)), (200, Some(0)), "nothing stored: {listed}");

    // A Vertex AI connection: a service-account key file and its location.
    let account = json!({
        "type": "service_account", "project_id": "p", "client_email": "judge@p.iam.gserviceaccount.com",
        "private_key": include_str!("../../crates/llm/testdata/throwaway-test-rsa-key.pem"),
    });
    let vertex = json!({"provider": "vertex", "adapter": "google-vertex-ai", "secretKey": account.to_string(),
        "config": {"location": "europe-west4"}});
    let stored = api.expect(201, put.clone(), PATH, Some(&vertex)).await;
    assert_eq!(
        (&stored["adapter"], &stored["config"]),
        (&json!("google-vertex-ai"), &json!({"location": "europe-west4"}))
    );
    assert!(!stored.to_string().contains("PRIVATE KEY"), "{stored}");
    let bad_location = json!({"provider": "v2", "adapter": "google-vertex-ai", "secretKey": account.to_string(),
        "config": {"location": "evil.example.com/"}});
    refused(&api, 400, put.clone(), PATH, bad_location, "location").await;
    api.expect(200, Method::DELETE, &format!("{PATH}/{}", stored["id"].as_str().unwrap()), None).await;

    let mine = api.expect(201, put.clone(), PATH, Some(&connection("openai"))).await;
    let id = mine["id"].as_str().unwrap();
    let again = api.expect(200, put.clone(), PATH, Some(&connection("openai"))).await;
    assert_eq!(again["id"], mine["id"]);

    let other = api.other_project().await;
    let (status, theirs) = api.send_as(&other, Method::GET, PATH, None).await;
    assert_eq!((status, &theirs["data"]), (200, &json!([])), "{theirs}");
    let (status, body) = api.send_as(&other, Method::DELETE, &format!("{PATH}/{id}"), None).await;
    assert_eq!(status, 404, "{body}");
    // The same provider name is another connection in another project.
    let (status, body) = api.send_as(&other, put, PATH, Some(&connection("openai"))).await;
    assert_eq!(status, 201, "{body}");
    assert_ne!(body["id"], mine["id"]);
    let (_, listed) = api.send(Method::GET, PATH, None).await;
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
    assert_eq!(listed["data"][0]["id"], mine["id"]);
}

async fn person(app: &crate::apps::App, email: &str) -> (Browser, String) {
    let mut who = signed_up(app, email).await;
    let id = who.expect(app, 200, "GET", "/api/ui/me", None).await["user"]["id"].as_str().unwrap().to_owned();
    (who, id)
}

#[tokio::test]
async fn viewers_and_members_read_and_only_admins_and_owners_write() {
    let api = started(&[]).await;
    let app = &api.web;
    let stored = api.expect(201, Method::PUT, PATH, Some(&connection("openai"))).await;
    let item = format!("{PATH}/{}", stored["id"].as_str().unwrap());
    let mut owner = Browser::default();
    owner
        .expect(
            app,
            200,
            "POST",
            "/api/ui/auth/sign-in",
            Some(json!({"email": OWNER, "password": "owner password"})),
        )
        .await;
    let mut people = Vec::new();
    for role in ["VIEWER", "MEMBER", "ADMIN"] {
        let (who, id) = person(app, &format!("{}@example.com", role.to_lowercase())).await;
        let body = json!({"userId": id, "role": role});
        owner.expect(app, 200, "PUT", "/api/ui/organizations/org-blackbox/members", Some(body)).await;
        people.push((role, who));
    }
    let project = [("X-Loupe-Project", PROJECT)];
    for (role, who) in &mut people {
        let listed = who.send(app, "GET", PATH, None, &project).await;
        assert_eq!(listed.status, 200, "{role}: {}", listed.body);
        assert_eq!(listed.body["data"][0]["provider"], "openai");
        let write = who.send(app, "PUT", PATH, Some(connection(&format!("by-{role}"))), &project).await;
        let delete = who.send(app, "DELETE", &format!("{PATH}/not-there"), None, &project).await;
        if *role == "ADMIN" {
            assert_eq!(write.status, 201, "{}", write.body);
            assert_eq!(delete.status, 404, "{}", delete.body);
        } else {
            assert_eq!(write.status, 403, "{role}: {}", write.body);
            assert_eq!(delete.status, 403, "{role}: {}", delete.body);
            let answer = who.send(app, "DELETE", &item, None, &project).await;
            assert_eq!(answer.status, 403, "{role}: {}", answer.body);
        }
    }
    let deleted = owner.send(app, "DELETE", &item, None, &project).await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    let pool = api.stack.pg.pool().await;
    let (actor_type,): (String,) =
        sqlx::query_as("SELECT actor_type FROM audit_log WHERE action = 'llmApiKey.delete'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(actor_type, "USER");
}

#[tokio::test]
async fn without_encryption_key_writes_are_refused_naming_it() {
    let api = Api::start(&[]).await;
    refused(&api, 400, Method::PUT, PATH, connection("openai"), "ENCRYPTION_KEY").await;
    api.expect(200, Method::GET, PATH, None).await;
}

#[tokio::test]
async fn web_and_worker_refuse_to_start_when_stored_secrets_cannot_be_read() {
    let mut api = started(&[]).await;
    api.expect(201, Method::PUT, PATH, Some(&connection("openai"))).await;
    let mut env = api.stack.env.clone();
    // The databases live as long as `api`; only the web stops.
    api.web.child.kill().await.unwrap();

    env.remove("ENCRYPTION_KEY");
    for binary in ["web", "worker"] {
        let (code, stderr) = run_to_exit(binary, &env).await;
        assert_ne!(code, Some(0), "{binary}: {stderr}");
        assert!(
            stderr.contains("ENCRYPTION_KEY is not set") && stderr.contains("llm_api_keys"),
            "{binary}: {stderr}"
        );
    }
    env.insert("ENCRYPTION_KEY".into(), OTHER_KEY.into());
    let (code, stderr) = run_to_exit("web", &env).await;
    assert_ne!(code, Some(0), "{stderr}");
    assert!(stderr.contains("does not decrypt under the configured ENCRYPTION_KEY"), "{stderr}");
}
