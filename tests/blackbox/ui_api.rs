//! What the UI stands on, through a running `web`: a signed-in person reading and writing a project
//! through the public API (session cookie plus `X-Loupe-Project`, roles and CSRF checked, other
//! organizations' projects invisible), their preferences and the views they select, the instance
//! admin's people and background migrations pages, and saved Observations views.

use serde_json::{Value, json};

use crate::apps::{App, Stack};
use crate::identity::web;
use crate::sessions::{Browser, signed_up};

const PROJECT: &str = "project-blackbox";
const ORG: &str = "org-blackbox";

async fn started(extra: &[(&str, &str)]) -> (Stack, App, Browser) {
    let mut stack = Stack::new().await;
    stack.env.insert("LANGFUSE_INIT_USER_EMAIL".into(), "owner@example.com".into());
    stack.env.insert("LANGFUSE_INIT_USER_PASSWORD".into(), "owner password".into());
    for (name, value) in extra {
        stack.env.insert((*name).into(), (*value).into());
    }
    let app = web(&stack.env).await;
    let mut owner = Browser::default();
    let credentials = json!({"email": "owner@example.com", "password": "owner password"});
    owner.expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;
    (stack, app, owner)
}

/// `who` on `project` through a public route; the status and body.
async fn public(
    app: &App,
    who: &mut Browser,
    method: &str,
    path: &str,
    project: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let answer = who.send(app, method, path, body, &[("X-Loupe-Project", project)]).await;
    (answer.status, answer.body)
}

async fn user_id(app: &App, who: &mut Browser) -> String {
    who.expect(app, 200, "GET", "/api/ui/me", None).await["user"]["id"].as_str().unwrap().to_owned()
}

async fn add_member(app: &App, owner: &mut Browser, user: &str, role: &str) {
    let body = json!({"userId": user, "role": role});
    owner.expect(app, 200, "PUT", &format!("/api/ui/organizations/{ORG}/members"), Some(body)).await;
}

#[tokio::test]
async fn a_person_uses_the_public_api_with_their_role_on_the_project() {
    let (_stack, app, mut owner) = started(&[]).await;
    let owner_id = user_id(&app, &mut owner).await;

    let (status, projects) = public(&app, &mut owner, "GET", "/api/public/projects", PROJECT, None).await;
    assert_eq!((status, &projects["data"][0]["id"]), (200, &json!(PROJECT)), "{projects}");
    let (status, page) =
        public(&app, &mut owner, "GET", "/api/public/v2/observations?limit=5", PROJECT, None).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["data"], json!([]));

    // A write needs the CSRF token; with it, the person is the author whatever the body says.
    let comment =
        json!({"projectId": PROJECT, "objectType": "PROJECT_NONE", "objectId": "x", "content": "hi"});
    let mut forged = Browser { cookie: owner.cookie.clone(), csrf: None };
    let (status, body) =
        public(&app, &mut forged, "POST", "/api/public/comments", PROJECT, Some(comment)).await;
    assert_eq!(status, 403, "{body}");
    let prompt = json!({"name": "greeting", "type": "text", "prompt": "Hello {{name}}"});
    let (status, prompt) =
        public(&app, &mut owner, "POST", "/api/public/v2/prompts", PROJECT, Some(prompt)).await;
    assert_eq!(status, 201, "{prompt}");
    let prompt_id = prompt["id"].as_str().unwrap();
    let created = owner
        .send(
            &app,
            "POST",
            "/api/public/comments",
            Some(json!({
                "projectId": PROJECT, "objectType": "PROMPT", "objectId": prompt_id, "content": "looks good",
                "authorUserId": "somebody-else"
            })),
            &[("X-Loupe-Project", PROJECT)],
        )
        .await;
    assert_eq!(created.status, 200, "{}", created.body);
    let id = created.body["id"].as_str().unwrap();
    let (_, read) =
        public(&app, &mut owner, "GET", &format!("/api/public/comments/{id}"), PROJECT, None).await;
    assert_eq!(read["authorUserId"], owner_id.as_str(), "{read}");

    // A viewer reads and cannot write; a person of another organization learns nothing.
    let mut viewer = signed_up(&app, "viewer@example.com").await;
    let viewer_id = user_id(&app, &mut viewer).await;
    add_member(&app, &mut owner, &viewer_id, "VIEWER").await;
    let (status, _) = public(&app, &mut viewer, "GET", "/api/public/comments", PROJECT, None).await;
    assert_eq!(status, 200);
    let comment =
        json!({"projectId": PROJECT, "objectType": "PROMPT", "objectId": prompt_id, "content": "no"});
    let (status, body) =
        public(&app, &mut viewer, "POST", "/api/public/comments", PROJECT, Some(comment)).await;
    assert_eq!(status, 403, "{body}");

    let mut stranger = signed_up(&app, "stranger@example.com").await;
    for path in ["/api/public/projects", "/api/public/comments", "/api/public/v2/observations"] {
        let (status, body) = public(&app, &mut stranger, "GET", path, PROJECT, None).await;
        assert_eq!(status, 404, "{path}: {body}");
        let (status, _) = public(&app, &mut stranger, "GET", path, "no-such-project", None).await;
        assert_eq!(status, 404, "{path}: an unknown project answers the same");
    }

    // NONE on the project takes it away from an organization member.
    let path = format!("/api/ui/projects/{PROJECT}/members");
    owner.expect(&app, 200, "PUT", &path, Some(json!({"userId": viewer_id, "role": "NONE"}))).await;
    let (status, _) = public(&app, &mut viewer, "GET", "/api/public/comments", PROJECT, None).await;
    assert_eq!(status, 404);

    // Without a session the header opens nothing.
    let (status, _) =
        public(&app, &mut Browser::default(), "GET", "/api/public/projects", PROJECT, None).await;
    assert_eq!(status, 401);
    let (status, _) = public(&app, &mut owner, "GET", "/api/public/projects", "", None).await;
    assert_eq!(status, 400, "an empty project header is named as the problem");
}

#[tokio::test]
async fn preferences_choose_the_views_and_instance_admins_run_the_migrations_page() {
    let (stack, app, mut owner) = started(&[
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual"),
        ("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN", "true"),
    ])
    .await;
    let config = Browser::default().expect(&app, 200, "GET", "/api/ui/auth/config", None).await;
    assert_eq!(config, json!({"signUpEnabled": true}));

    let me = owner.expect(&app, 200, "GET", "/api/ui/me", None).await;
    assert_eq!(me["instanceAdmin"], true, "the first user is an instance admin: {me}");
    assert_eq!(me["views"], "v3", "dual shows the v3 views until the person opts in");
    assert_eq!(me["instance"], json!({"writeMode": "dual", "previewToggle": true, "signUpEnabled": true}));
    assert_eq!(me["preferences"], json!({}));

    let path = "/api/ui/me/preferences";
    let changed = owner
        .expect(&app, 200, "PUT", path, Some(json!({"v4Preview": true, "lastProjectId": PROJECT})))
        .await;
    assert_eq!(changed, json!({"preferences": {"v4Preview": true, "lastProjectId": PROJECT}, "views": "v4"}));
    let changed = owner.expect(&app, 200, "PUT", path, Some(json!({"v4Preview": null}))).await;
    assert_eq!(
        changed,
        json!({"preferences": {"lastProjectId": PROJECT}, "views": "v3"}),
        "null clears one key"
    );
    owner.expect(&app, 404, "PUT", path, Some(json!({"lastProjectId": "not-mine"}))).await;
    owner.expect(&app, 400, "PUT", path, Some(json!({"theme": "dark"}))).await;
    owner.expect(&app, 400, "PUT", path, Some(json!({"v4Preview": "yes"}))).await;

    // Background migrations: instance admins only; a failed step can be retried, once.
    let mut member = signed_up(&app, "member@example.com").await;
    let member_id = user_id(&app, &mut member).await;
    member.expect(&app, 403, "GET", "/api/ui/background-migrations", None).await;
    let listed = owner.expect(&app, 200, "GET", "/api/ui/background-migrations", None).await;
    let steps = listed["data"].as_array().unwrap();
    assert_eq!(steps.len(), 5, "{listed}");
    let name = steps[0]["name"].as_str().unwrap().to_owned();
    let retry = format!("/api/ui/background-migrations/{name}/retry");
    owner.expect(&app, 409, "POST", &retry, None).await;
    sqlx::query(
        "UPDATE background_migrations SET status = 'failed', last_error = 'disk full' WHERE name = $1",
    )
    .bind(&name)
    .execute(&stack.pg.pool().await)
    .await
    .unwrap();
    member.expect(&app, 403, "POST", &retry, None).await;
    let after = owner.expect(&app, 200, "POST", &retry, None).await;
    assert_eq!(after["data"][0]["status"], "pending", "{after}");
    owner.expect(&app, 409, "POST", &retry, None).await;

    // An instance admin marks another; nobody unmarks themselves.
    let people = owner.expect(&app, 200, "GET", "/api/ui/admin/users", None).await;
    assert_eq!(people["meta"]["totalItems"], 2, "{people}");
    let mark = json!({"instanceAdmin": true});
    owner.expect(&app, 200, "PUT", &format!("/api/ui/admin/users/{member_id}"), Some(mark.clone())).await;
    member.expect(&app, 200, "GET", "/api/ui/background-migrations", None).await;
    owner.expect(&app, 404, "PUT", "/api/ui/admin/users/nobody", Some(mark)).await;
    let owner_id = user_id(&app, &mut owner).await;
    let unmark = json!({"instanceAdmin": false});
    owner.expect(&app, 400, "PUT", &format!("/api/ui/admin/users/{owner_id}"), Some(unmark)).await;
}

#[tokio::test]
async fn saved_views_are_shared_by_the_project_and_checked() {
    let (_stack, app, mut owner) = started(&[("AUTH_DISABLE_SIGNUP", "false")]).await;
    let path = format!("/api/ui/projects/{PROJECT}/saved-views");
    let state =
        json!({"filters": [{"column": "level", "operator": "=", "value": "ERROR"}], "columns": ["name"]});
    let view = owner.expect(&app, 201, "POST", &path, Some(json!({"name": "Errors", "state": state}))).await;
    assert_eq!(view["state"], state);
    let id = view["id"].as_str().unwrap();
    owner.expect(&app, 409, "POST", &path, Some(json!({"name": "errors", "state": {}}))).await;
    owner.expect(&app, 400, "POST", &path, Some(json!({"name": " ", "state": {}}))).await;
    owner.expect(&app, 400, "POST", &path, Some(json!({"name": "list", "state": []}))).await;
    let huge = json!({"search": "x".repeat(70_000)});
    owner.expect(&app, 400, "POST", &path, Some(json!({"name": "huge", "state": huge}))).await;

    let other = owner.expect(&app, 201, "POST", &path, Some(json!({"name": "Slow", "state": {}}))).await;
    let renamed = owner
        .expect(
            &app,
            409,
            "PUT",
            &format!("{path}/{}", other["id"].as_str().unwrap()),
            Some(json!({"name": "ERRORS"})),
        )
        .await;
    assert!(renamed["message"].as_str().unwrap().contains("ERRORS"), "{renamed}");
    let renamed =
        owner.expect(&app, 200, "PUT", &format!("{path}/{id}"), Some(json!({"name": "Only errors"}))).await;
    assert_eq!((&renamed["name"], &renamed["state"]), (&json!("Only errors"), &state), "state kept");

    let mut viewer = signed_up(&app, "viewer@example.com").await;
    let viewer_id = user_id(&app, &mut viewer).await;
    add_member(&app, &mut owner, &viewer_id, "VIEWER").await;
    let listed = viewer.expect(&app, 200, "GET", &path, None).await;
    let names: Vec<&str> =
        listed["data"].as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Only errors", "Slow"]);
    viewer.expect(&app, 403, "POST", &path, Some(json!({"name": "Mine", "state": {}}))).await;
    viewer.expect(&app, 403, "DELETE", &format!("{path}/{id}"), None).await;

    let mut stranger = signed_up(&app, "stranger@example.com").await;
    stranger.expect(&app, 404, "GET", &path, None).await;
    stranger.expect(&app, 404, "DELETE", &format!("{path}/{id}"), None).await;

    owner.expect(&app, 204, "DELETE", &format!("{path}/{id}"), None).await;
    owner.expect(&app, 404, "DELETE", &format!("{path}/{id}"), None).await;
}
