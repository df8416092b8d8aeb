//! Prompts v2 through the running `web`: versions and labels, references, folders, the list, label
//! updates, deletion rules, the errors, project isolation, and the real Python SDK.

use reqwest::Method;
use serde_json::{Value, json};

use crate::api::Api;
use crate::apps::run_client;

async fn create(api: &Api, body: Value) -> Value {
    api.expect(201, Method::POST, "/api/public/v2/prompts", Some(&body)).await
}

async fn get(api: &Api, path: &str) -> Value {
    api.expect(200, Method::GET, path, None).await
}

#[tokio::test]
async fn versions_labels_references_and_deletion() {
    let api = Api::start(&[]).await;

    // Versions count up; `latest` and a label follow the newest version that claims them.
    let v1 = create(
        &api,
        json!({"name": "greet", "prompt": "Hi {{name}}", "labels": ["production"], "tags": ["demo"], "config": {"temperature": 0.2}}),
    )
    .await;
    assert_eq!((v1["version"].clone(), v1["type"].clone()), (json!(1), json!("text")));
    assert_eq!(v1["labels"], json!(["production", "latest"]));
    for key in ["id", "createdAt", "updatedAt", "projectId", "commitMessage", "config", "tags"] {
        assert!(v1.get(key).is_some(), "{key} missing from {v1}");
    }
    let v2 = create(&api, json!({"name": "greet", "prompt": "Hello {{name}}", "labels": ["production", "staging"], "commitMessage": "warmer"})).await;
    assert_eq!(v2["version"], 2);
    assert_eq!(v2["tags"], json!(["demo"]), "a new version keeps the prompt's tags");
    assert_eq!(v2["commitMessage"], "warmer");
    assert_eq!(get(&api, "/api/public/v2/prompts/greet").await["version"], 2, "production by default");
    let old = get(&api, "/api/public/v2/prompts/greet?version=1").await;
    assert_eq!((old["labels"].clone(), old["prompt"].clone()), (json!([]), json!("Hi {{name}}")));
    assert_eq!(get(&api, "/api/public/v2/prompts/greet?label=latest").await["version"], 2);
    let missing = api.expect(404, Method::GET, "/api/public/v2/prompts/greet?label=canary", None).await;
    assert_eq!(missing["message"], "Prompt not found: 'greet' with label 'canary'");
    let missing = api.expect(404, Method::GET, "/api/public/v2/prompts/greet?version=9", None).await;
    assert_eq!(missing["message"], "Prompt not found: 'greet' with version 9");
    api.expect(400, Method::GET, "/api/public/v2/prompts/greet?version=1&label=production", None).await;

    // Moving a label with PATCH; `latest` stays the server's.
    let moved = api
        .expect(
            200,
            Method::PATCH,
            "/api/public/v2/prompts/greet/versions/1",
            Some(&json!({"newLabels": ["production"]})),
        )
        .await;
    assert_eq!(moved["labels"], json!(["production"]));
    assert_eq!(get(&api, "/api/public/v2/prompts/greet").await["version"], 1);
    assert_eq!(
        get(&api, "/api/public/v2/prompts/greet?version=2").await["labels"],
        json!(["staging", "latest"])
    );
    let reserved = api
        .expect(
            400,
            Method::PATCH,
            "/api/public/v2/prompts/greet/versions/1",
            Some(&json!({"newLabels": ["latest"]})),
        )
        .await;
    assert!(reserved["message"].as_str().unwrap().contains("reserved"), "{reserved}");
    api.expect(
        404,
        Method::PATCH,
        "/api/public/v2/prompts/greet/versions/7",
        Some(&json!({"newLabels": ["x"]})),
    )
    .await;

    // Chat prompts with placeholders, in a folder, referencing a text prompt.
    let chat = create(
        &api,
        json!({
            "name": "team/support", "type": "chat", "labels": ["production"],
            "prompt": [
                {"role": "system", "content": "@@@langfusePrompt:name=greet|label=production@@@ Be kind."},
                {"type": "placeholder", "name": "history"},
            ],
        }),
    )
    .await;
    assert_eq!(chat["prompt"][1], json!({"type": "placeholder", "name": "history"}));
    let resolved = get(&api, "/api/public/v2/prompts/team%2Fsupport").await;
    assert_eq!(resolved["name"], "team/support");
    assert_eq!(resolved["prompt"][0]["content"], "Hi {{name}} Be kind.");
    assert_eq!(resolved["resolutionGraph"]["dependencies"][chat["id"].as_str().unwrap()][0]["version"], 1);
    let raw = get(&api, "/api/public/v2/prompts/team%2Fsupport?resolve=false").await;
    assert!(raw["prompt"][0]["content"].as_str().unwrap().starts_with("@@@langfusePrompt:"), "{raw}");
    assert!(raw.get("resolutionGraph").is_none());

    // References must exist, point at text prompts, and never come back round.
    for (body, needle) in [
        (json!({"name": "x", "prompt": "@@@langfusePrompt:name=nope|version=1@@@"}), "not found"),
        (
            json!({"name": "x", "prompt": "@@@langfusePrompt:name=team/support|label=production@@@"}),
            "chat prompt",
        ),
        (json!({"name": "greet", "prompt": "@@@langfusePrompt:name=greet|version=1@@@"}), "Circular"),
    ] {
        let refused = api.expect(400, Method::POST, "/api/public/v2/prompts", Some(&body)).await;
        assert!(refused["message"].as_str().unwrap().contains(needle), "{body}: {refused}");
    }

    // Bodies that do not fit their type, and bad JSON, are 400s with a reason.
    for body in [
        json!({"prompt": "no name"}),
        json!({"name": "t", "prompt": ["not", "text"]}),
        json!({"name": "c", "type": "chat", "prompt": [{"role": "user"}]}),
        json!({"name": "l", "prompt": "x", "labels": ["Not Valid"]}),
        json!({"name": "a|b", "prompt": "x"}),
    ] {
        let refused = api.expect(400, Method::POST, "/api/public/v2/prompts", Some(&body)).await;
        assert!(refused["message"].is_string(), "{body}: {refused}");
    }

    // The list: one entry per name, filtered, paged.
    let listed = get(&api, "/api/public/v2/prompts").await;
    assert_eq!(listed["meta"], json!({"page": 1, "limit": 50, "totalItems": 2, "totalPages": 1}));
    let greet = listed["data"].as_array().unwrap().iter().find(|p| p["name"] == "greet").unwrap().clone();
    assert_eq!(greet["versions"], json!([1, 2]));
    assert_eq!(greet["labels"], json!(["latest", "production", "staging"]));
    assert_eq!(greet["lastConfig"], json!({}), "the newest version's config");
    assert_eq!(get(&api, "/api/public/v2/prompts?tag=demo").await["data"].as_array().unwrap().len(), 1);
    let staged = get(&api, "/api/public/v2/prompts?label=staging").await;
    assert_eq!(staged["data"][0]["versions"], json!([2]), "only the versions that match");
    let second = get(&api, "/api/public/v2/prompts?limit=1&page=2").await;
    assert_eq!(
        (second["data"][0]["name"].clone(), second["meta"]["totalPages"].clone()),
        (json!("team/support"), json!(2))
    );
    api.expect(400, Method::GET, "/api/public/v2/prompts?limit=101", None).await;

    // Deleting what another prompt references is refused; the rest goes, and `latest` moves.
    let refused =
        api.expect(409, Method::DELETE, "/api/public/v2/prompts/greet?label=production", None).await;
    assert!(refused["message"].as_str().unwrap().contains("team/support"), "{refused}");
    api.expect(204, Method::DELETE, "/api/public/v2/prompts/greet?version=2", None).await;
    assert_eq!(
        get(&api, "/api/public/v2/prompts/greet?version=1").await["labels"],
        json!(["production", "latest"])
    );
    api.expect(404, Method::DELETE, "/api/public/v2/prompts/greet?version=2", None).await;
    api.expect(204, Method::DELETE, "/api/public/v2/prompts/team%2Fsupport", None).await;
    api.expect(204, Method::DELETE, "/api/public/v2/prompts/greet", None).await;
    api.expect(404, Method::GET, "/api/public/v2/prompts/greet?version=1", None).await;
    assert_eq!(get(&api, "/api/public/v2/prompts").await["meta"]["totalItems"], 0);
}

#[tokio::test]
async fn one_projects_prompts_are_invisible_to_another() {
    let api = Api::start(&[]).await;
    let other = api.other_project().await;
    create(&api, json!({"name": "secret", "prompt": "mine", "labels": ["production"]})).await;
    let (status, _) = api.send_as(&other, Method::GET, "/api/public/v2/prompts/secret", None).await;
    assert_eq!(status, 404);
    let (status, list) = api.send_as(&other, Method::GET, "/api/public/v2/prompts", None).await;
    assert_eq!((status, list["data"].clone()), (200, json!([])));
    let patch = json!({"newLabels": ["x"]});
    let (status, _) =
        api.send_as(&other, Method::PATCH, "/api/public/v2/prompts/secret/versions/1", Some(&patch)).await;
    assert_eq!(status, 404);
    let (status, _) = api.send_as(&other, Method::DELETE, "/api/public/v2/prompts/secret", None).await;
    assert_eq!(status, 404);
    // The other project's own prompt of the same name starts at version 1 and does not reach ours.
    let (status, theirs) = api
        .send_as(
            &other,
            Method::POST,
            "/api/public/v2/prompts",
            Some(&json!({"name": "secret", "prompt": "theirs"})),
        )
        .await;
    assert_eq!((status, theirs["version"].clone()), (201, json!(1)));
    assert_eq!(get(&api, "/api/public/v2/prompts/secret").await["prompt"], "mine");
    let (status, _) = api.send(Method::GET, "/api/public/v2/prompts", None).await;
    assert_eq!(status, 200);
    let (status, _) = crate::apps::http()
        .get(format!("{}/api/public/v2/prompts", api.web.base_url))
        .send()
        .await
        .map(|r| (r.status().as_u16(), ()))
        .unwrap();
    assert_eq!(status, 401, "prompts need a key");
}

/// The real Python SDK from PyPI creates, fetches, compiles and relabels prompts.
#[tokio::test]
async fn python_sdk_fetches_and_compiles_prompts() {
    let api = Api::start(&[]).await;
    let seen = run_client("prompts.py", &api.web).await;
    assert_eq!(seen["text"], "Summarise in 3 words: Rust is fast");
    assert_eq!(seen["text_config"], json!({"model": "gpt-4o-mini"}));
    assert_eq!(
        seen["chat"],
        json!([
            {"role": "system", "content": "You are a helpful pirate."},
            {"role": "user", "content": "hi"},
            {"role": "user", "content": "Ahoy Ada"},
        ])
    );
    assert_eq!(seen["production_version"], 1);
    assert_eq!(seen["relabelled_version"], 2);
}

/// References are resolved a level at a time and each version once, so a wide and repeated graph
/// costs a few queries; what would grow without bound is refused with the limit it broke.
#[tokio::test]
async fn reference_graphs_are_bounded_in_size_and_work() {
    let api = Api::start(&[]).await;
    let tag = |name: &str| format!("@@@langfusePrompt:name={name}|label=production@@@");
    create(&api, json!({"name": "leaf", "prompt": "x".repeat(100), "labels": ["production"]})).await;
    // 500 references to one version, each of which holds 500 more: 25,000,000 bytes once resolved.
    let wide = tag("leaf").repeat(500);
    create(&api, json!({"name": "mid", "prompt": wide, "labels": ["production"]})).await;
    let refused = api
        .expect(
            400,
            Method::POST,
            "/api/public/v2/prompts",
            Some(&json!({"name": "top", "prompt": tag("mid").repeat(500)})),
        )
        .await;
    let message = refused.to_string();
    assert!(message.contains("1048576 bytes"), "names the size limit: {message}");

    // 500 references to one version resolve to 50,000 bytes, fetched and resolved once.
    let fine =
        create(&api, json!({"name": "top", "prompt": tag("leaf").repeat(500), "labels": ["production"]}))
            .await;
    assert_eq!(fine["version"], 1);
    let resolved = get(&api, "/api/public/v2/prompts/top").await;
    assert_eq!(resolved["prompt"].as_str().unwrap().len(), 50_000);
    assert_eq!(
        resolved["resolutionGraph"]["dependencies"].as_object().unwrap().len(),
        1,
        "{}",
        resolved["resolutionGraph"]
    );

    // A chain deeper than eight levels is refused, naming the limit.
    create(&api, json!({"name": "c0", "prompt": "end", "labels": ["production"]})).await;
    for level in 1..=9 {
        let body = json!({"name": format!("c{level}"), "prompt": tag(&format!("c{}", level - 1)), "labels": ["production"]});
        if level <= 8 {
            create(&api, body).await;
        } else {
            let refused = api.expect(400, Method::POST, "/api/public/v2/prompts", Some(&body)).await;
            assert!(refused.to_string().contains("deeper than 8 levels"), "{refused}");
        }
    }
}
