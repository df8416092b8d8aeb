//! The prompts pages' reads (`/api/ui/projects/{projectId}/prompts[/versions]`) through a running
//! web: folders from `/` in names, search, paging, a prompt's versions without their bodies; and the
//! public prompts routes as the signed-in person, where a VIEWER reads but every write is refused.

use serde_json::{Value, json};

use crate::apps::{App, Stack};
use crate::identity::web;
use crate::sessions::{Browser, signed_up};

const PROJECT: &str = "project-blackbox";
const ORG: &str = "org-blackbox";
const HEADER: [(&str, &str); 1] = [("X-Loupe-Project", PROJECT)];

async fn signed_in() -> (Stack, App, Browser) {
    let mut stack = Stack::new().await;
    stack.env.insert("LANGFUSE_INIT_USER_EMAIL".into(), "owner@example.com".into());
    stack.env.insert("LANGFUSE_INIT_USER_PASSWORD".into(), "owner password".into());
    let app = web(&stack.env).await;
    let mut owner = Browser::default();
    let credentials = json!({"email": "owner@example.com", "password": "owner password"});
    owner.expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;
    (stack, app, owner)
}

/// A public-API call as the signed-in person; returns the status and body.
async fn public(
    browser: &mut Browser,
    app: &App,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let answer = browser.send(app, method, &format!("/api/public/{path}"), body, &HEADER).await;
    (answer.status, answer.body)
}

fn names(page: &Value) -> Vec<(String, String)> {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["kind"].as_str().unwrap().to_owned(), e["name"].as_str().unwrap().to_owned()))
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected.iter().map(|(k, n)| ((*k).to_owned(), (*n).to_owned())).collect()
}

#[tokio::test]
async fn folders_search_paging_versions_and_roles() {
    let (_stack, app, mut owner) = signed_in().await;
    let prompts = [
        json!({"name": "greet", "prompt": "Hi", "tags": ["demo"]}),
        json!({"name": "team/summarise", "prompt": "Sum up", "labels": ["production"], "commitMessage": "first"}),
        json!({"name": "team/summarise", "type": "chat", "prompt": [{"role": "system", "content": "Sum up"}],
               "labels": ["staging"], "tags": ["core"], "commitMessage": "as a chat"}),
        json!({"name": "team/deep/x", "prompt": "X"}),
        json!({"name": "teamwork", "prompt": "Together"}),
    ];
    for prompt in prompts {
        let (status, body) = public(&mut owner, &app, "POST", "v2/prompts", Some(prompt)).await;
        assert_eq!(status, 201, "{body}");
    }
    let list = format!("/api/ui/projects/{PROJECT}/prompts");

    // The root: folders first, then prompts; a folder counts the prompts under it at any depth.
    let root = owner.expect(&app, 200, "GET", &list, None).await;
    assert_eq!(names(&root), pairs(&[("folder", "team"), ("prompt", "greet"), ("prompt", "teamwork")]));
    assert_eq!(
        (root["data"][0]["prompts"].clone(), root["data"][0]["versions"].clone()),
        (json!(2), json!(0))
    );
    assert_eq!(root["data"][1]["tags"], json!(["demo"]));
    assert_eq!(root["meta"]["totalItems"], 3);

    // A folder (a trailing `/` is the same folder): its subfolders and its prompts, by full name.
    for folder in ["team", "team/"] {
        let team = owner.expect(&app, 200, "GET", &format!("{list}?folder={folder}"), None).await;
        assert_eq!(names(&team), pairs(&[("folder", "team/deep"), ("prompt", "team/summarise")]));
        let summarise = &team["data"][1];
        assert_eq!(
            (&summarise["type"], &summarise["latestVersion"], &summarise["versions"]),
            (&json!("chat"), &json!(2), &json!(2))
        );
        assert_eq!(summarise["labels"], json!(["latest", "production", "staging"]));
        assert_eq!(summarise["tags"], json!(["core"]));
    }

    // A search flattens the folders, any case, under the folder asked for.
    let found = owner.expect(&app, 200, "GET", &format!("{list}?search=SUM"), None).await;
    assert_eq!(names(&found), pairs(&[("prompt", "team/summarise")]));
    let found = owner.expect(&app, 200, "GET", &format!("{list}?folder=team&search=x"), None).await;
    assert_eq!(names(&found), pairs(&[("prompt", "team/deep/x")]));
    let none = owner.expect(&app, 200, "GET", &format!("{list}?folder=nowhere"), None).await;
    assert_eq!(none["meta"]["totalItems"], 0);

    // Paging over the entries.
    let second = owner.expect(&app, 200, "GET", &format!("{list}?limit=2&page=2"), None).await;
    assert_eq!(names(&second), pairs(&[("prompt", "teamwork")]));
    assert_eq!(
        (second["meta"]["totalItems"].clone(), second["meta"]["totalPages"].clone()),
        (json!(3), json!(2))
    );

    // A prompt's versions, newest first, without their bodies.
    let versions = format!("{list}/versions?name=team%2Fsummarise");
    let body = owner.expect(&app, 200, "GET", &versions, None).await;
    let data = body["data"].as_array().unwrap();
    assert_eq!(data.iter().map(|v| v["version"].as_i64().unwrap()).collect::<Vec<_>>(), vec![2, 1]);
    assert_eq!((&data[0]["commitMessage"], &data[0]["type"]), (&json!("as a chat"), &json!("chat")));
    assert_eq!(data[1]["labels"], json!(["production"]));
    assert!(data[0].get("prompt").is_none() && data[0]["createdAt"].is_string(), "{body}");
    // Made through the UI: the person is the author (a key's versions say `API`, as upstream).
    let me = owner.expect(&app, 200, "GET", "/api/ui/me", None).await;
    assert_eq!(data[0]["createdBy"], me["user"]["id"], "{body}");
    let author = data[0]["author"].as_str().unwrap();
    assert!([me["user"]["name"].as_str(), me["user"]["email"].as_str()].contains(&Some(author)), "{author}");
    let one = owner.expect(&app, 200, "GET", &format!("{versions}&limit=1&page=2"), None).await;
    assert_eq!((one["data"][0]["version"].clone(), one["meta"]["totalPages"].clone()), (json!(1), json!(2)));

    // Bad input is a 400 with a message; an unknown prompt a 404.
    let long = "x".repeat(201);
    for bad in [
        format!("{list}?search={long}"),
        format!("{list}?limit=101"),
        format!("{list}/versions"),
        format!("{versions}&limit=1001"),
        format!("{versions}&page=0"),
    ] {
        let body = owner.expect(&app, 400, "GET", &bad, None).await;
        assert!(body["message"].is_string(), "{bad}: {body}");
    }
    owner.expect(&app, 404, "GET", &format!("{list}/versions?name=nope"), None).await;

    // A viewer reads everything the pages read, and every write of the pages is refused.
    let mut viewer = signed_up(&app, "viewer@example.com").await;
    let viewer_id = viewer.expect(&app, 200, "GET", "/api/ui/me", None).await["user"]["id"].clone();
    let membership = json!({"userId": viewer_id, "role": "VIEWER"});
    owner.expect(&app, 200, "PUT", &format!("/api/ui/organizations/{ORG}/members"), Some(membership)).await;
    viewer.expect(&app, 200, "GET", &list, None).await;
    viewer.expect(&app, 200, "GET", &versions, None).await;
    let (status, _) =
        public(&mut viewer, &app, "GET", "v2/prompts/team%2Fsummarise?version=1&resolve=false", None).await;
    assert_eq!(status, 200);
    let writes = [
        ("POST", "v2/prompts".to_owned(), Some(json!({"name": "greet", "prompt": "Sneaky"}))),
        ("POST", "v2/prompts".to_owned(), Some(json!({"name": "brand-new", "prompt": "Sneaky"}))),
        ("PATCH", "v2/prompts/greet/versions/1".to_owned(), Some(json!({"newLabels": ["production"]}))),
        ("DELETE", "v2/prompts/greet".to_owned(), None),
    ];
    for (method, path, body) in writes {
        let (status, answer) = public(&mut viewer, &app, method, &path, body).await;
        assert_eq!(status, 403, "{method} {path}: {answer}");
        assert!(answer["message"].is_string(), "{answer}");
    }
    let after = owner.expect(&app, 200, "GET", &format!("{list}/versions?name=greet"), None).await;
    assert_eq!(
        (after["meta"]["totalItems"].clone(), after["data"][0]["labels"].clone()),
        (json!(1), json!(["latest"]))
    );

    // Another organization's person, or nobody, reads nothing.
    let mut stranger = signed_up(&app, "stranger@example.com").await;
    for path in [list.clone(), versions.clone()] {
        stranger.expect(&app, 404, "GET", &path, None).await;
        Browser::default().expect(&app, 401, "GET", &path, None).await;
    }
}
