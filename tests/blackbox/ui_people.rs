//! The settings pages' people routes through a running `web`: a project's people with the role that
//! counts there, inviting by email address (an address without an account gets one, claimed at
//! sign-up), clearing a project role; each checked per role and across organizations.

use serde_json::{Value, json};

use crate::apps::{App, Stack};
use crate::identity::web;
use crate::sessions::{Browser, signed_up};

const ORG: &str = "org-blackbox";
const PEOPLE: &str = "/api/ui/projects/project-blackbox/people";
const PROJECT_INVITE: &str = "/api/ui/projects/project-blackbox/invitations";
const ORG_INVITE: &str = "/api/ui/organizations/org-blackbox/invitations";

async fn started() -> (Stack, App, Browser) {
    let mut stack = Stack::new().await;
    stack.env.insert("LANGFUSE_INIT_USER_EMAIL".into(), "owner@example.com".into());
    stack.env.insert("LANGFUSE_INIT_USER_PASSWORD".into(), "owner password".into());
    let app = web(&stack.env).await;
    let mut owner = Browser::default();
    let credentials = json!({"email": "owner@example.com", "password": "owner password"});
    owner.expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;
    (stack, app, owner)
}

fn person<'a>(people: &'a Value, email: &str) -> &'a Value {
    people["members"].as_array().unwrap().iter().find(|m| m["email"] == email).unwrap_or(&Value::Null)
}

fn invite(email: &str, role: &str) -> Option<Value> {
    Some(json!({"email": email, "role": role}))
}

#[tokio::test]
async fn invitations_and_project_people_follow_roles() {
    let (stack, app, mut owner) = started().await;

    // An address without an account joins the organization; a second invitation is a conflict.
    let ada = owner.expect(&app, 201, "POST", ORG_INVITE, invite(" ada@example.com ", "VIEWER")).await;
    assert_eq!(
        (&ada["email"], &ada["role"], &ada["newAccount"]),
        (&json!("ada@example.com"), &json!("VIEWER"), &json!(true))
    );
    owner.expect(&app, 409, "POST", ORG_INVITE, invite("ADA@example.com", "MEMBER")).await;
    for bad in [
        invite("not an address", "MEMBER"),
        invite("ada2@example.com", "KING"),
        Some(json!({"email": "x@y"})),
    ] {
        let body = owner.expect(&app, 400, "POST", ORG_INVITE, bad).await;
        assert!(body["message"].is_string() && body["error"].is_string(), "{body}");
    }
    let long = format!("{}@example.com", "a".repeat(320));
    owner.expect(&app, 400, "POST", ORG_INVITE, invite(&long, "MEMBER")).await;

    // Someone new to the organization invited to the project only: NONE there, MEMBER here.
    let bob = owner.expect(&app, 201, "POST", PROJECT_INVITE, invite("bob@example.com", "MEMBER")).await;
    assert_eq!((&bob["role"], &bob["newAccount"]), (&json!("MEMBER"), &json!(true)));
    let people = owner.expect(&app, 200, "GET", PEOPLE, None).await;
    assert_eq!(
        person(&people, "bob@example.com"),
        &json!({"userId": bob["userId"], "email": "bob@example.com", "name": "", "organizationRole": "NONE",
                "projectRole": "MEMBER", "effectiveRole": "MEMBER", "pending": true})
    );
    assert_eq!(person(&people, "ada@example.com")["effectiveRole"], "VIEWER");
    assert_eq!(person(&people, "owner@example.com")["pending"], false);

    // Signing up with the address claims the invited account: same id, the role applies at once.
    let mut ada_browser = signed_up(&app, "Ada@example.com").await;
    let me = ada_browser.expect(&app, 200, "GET", "/api/ui/me", None).await;
    assert_eq!(me["user"]["id"], ada["userId"]);
    assert_eq!(me["organizations"][0]["projects"][0]["role"], "VIEWER", "{me}");
    let taken = json!({"email": "ada@example.com", "password": "another password"});
    Browser::default().expect(&app, 409, "POST", "/api/ui/auth/sign-up", Some(taken)).await;
    let people = owner.expect(&app, 200, "GET", PEOPLE, None).await;
    assert_eq!(person(&people, "ada@example.com")["pending"], false);

    // A VIEWER neither lists people nor invites nor clears roles.
    let bob_id = bob["userId"].as_str().unwrap().to_owned();
    let clear = format!("{PEOPLE}/{bob_id}");
    ada_browser.expect(&app, 403, "GET", PEOPLE, None).await;
    ada_browser.expect(&app, 403, "POST", PROJECT_INVITE, invite("eve@example.com", "MEMBER")).await;
    ada_browser.expect(&app, 403, "POST", ORG_INVITE, invite("eve@example.com", "MEMBER")).await;
    ada_browser.expect(&app, 403, "DELETE", &clear, None).await;

    // A MEMBER lists the people but does not invite.
    let ada_id = ada["userId"].as_str().unwrap();
    let role = |r: &str| Some(json!({"userId": ada_id, "role": r}));
    owner.expect(&app, 200, "PUT", &format!("/api/ui/organizations/{ORG}/members"), role("MEMBER")).await;
    ada_browser.expect(&app, 200, "GET", PEOPLE, None).await;
    ada_browser.expect(&app, 403, "POST", PROJECT_INVITE, invite("eve@example.com", "MEMBER")).await;
    ada_browser.expect(&app, 403, "POST", ORG_INVITE, invite("eve@example.com", "MEMBER")).await;

    // An ADMIN invites, below OWNER.
    owner.expect(&app, 200, "PUT", &format!("/api/ui/organizations/{ORG}/members"), role("ADMIN")).await;
    ada_browser.expect(&app, 201, "POST", PROJECT_INVITE, invite("eve@example.com", "VIEWER")).await;
    ada_browser.expect(&app, 403, "POST", ORG_INVITE, invite("kim@example.com", "OWNER")).await;
    let kim = ada_browser.expect(&app, 201, "POST", ORG_INVITE, invite("kim@example.com", "MEMBER")).await;
    assert_eq!(kim["role"], "MEMBER");

    // Clearing bob's project role leaves his organization role, NONE: no access.
    let cleared = owner.expect(&app, 200, "DELETE", &clear, None).await;
    assert_eq!(cleared["userId"], json!(bob_id));
    owner.expect(&app, 404, "DELETE", &clear, None).await;
    let people = owner.expect(&app, 200, "GET", PEOPLE, None).await;
    assert_eq!(person(&people, "bob@example.com")["projectRole"], Value::Null);
    assert_eq!(person(&people, "bob@example.com")["effectiveRole"], "NONE");

    // Another organization's person sees none of it: 404 as if it did not exist.
    let mut mallory = signed_up(&app, "mallory@example.com").await;
    mallory.expect(&app, 201, "POST", "/api/ui/organizations", Some(json!({"name": "Mallory's"}))).await;
    mallory.expect(&app, 404, "GET", PEOPLE, None).await;
    mallory.expect(&app, 404, "POST", PROJECT_INVITE, invite("x@example.com", "OWNER")).await;
    mallory.expect(&app, 404, "POST", ORG_INVITE, invite("x@example.com", "OWNER")).await;
    mallory.expect(&app, 404, "DELETE", &clear, None).await;
    let unknown = "/api/ui/projects/no-such-project/people";
    owner.expect(&app, 404, "GET", unknown, None).await;

    let pool = stack.pg.pool().await;
    let actions: Vec<String> = sqlx::query_scalar(
        "SELECT action FROM audit_log WHERE org_id = $1 AND action LIKE '%invite' ORDER BY created_at, id",
    )
    .bind(ORG)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        actions,
        ["membership.invite", "projectMembership.invite", "projectMembership.invite", "membership.invite"]
    );
}
