//! People signing in to the UI's JSON API (`/api/ui/...`) of a running `web`: sign-up and sign-in,
//! the session cookie's attributes, rotation, revocation on sign-out and password change, CSRF on
//! every state change, rate-limited failures, `AUTH_DISABLE_SIGNUP`, the first user of
//! `LANGFUSE_INIT_USER_*`, and isolation between two people's organizations.

use std::collections::BTreeMap;

use reqwest::header::{COOKIE, SET_COOKIE};
use serde_json::{Value, json};

use crate::apps::{App, Stack};
use crate::identity::{admin, call, web};

/// A browser: the session cookie and the CSRF token it was given.
#[derive(Clone, Default)]
pub struct Browser {
    pub cookie: Option<String>,
    pub csrf: Option<String>,
}

pub struct Answer {
    pub status: u16,
    pub body: Value,
    pub set_cookie: Option<String>,
}

impl Browser {
    pub async fn send(
        &mut self,
        app: &App,
        method: &str,
        path: &str,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = crate::apps::http().request(method, format!("{}{path}", app.base_url));
        if let Some(cookie) = &self.cookie {
            request = request.header(COOKIE, format!("loupe_session={cookie}"));
        }
        if let Some(csrf) = &self.csrf {
            request = request.header("X-CSRF-Token", csrf);
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let set_cookie = response.headers().get(SET_COOKIE).map(|v| v.to_str().unwrap().to_owned());
        let text = response.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        if let Some(set) = &set_cookie {
            let value = set.split(';').next().unwrap().trim_start_matches("loupe_session=");
            self.cookie = (!value.is_empty()).then(|| value.to_owned());
        }
        if let Some(csrf) = body["csrfToken"].as_str() {
            self.csrf = Some(csrf.to_owned());
        }
        Answer { status, body, set_cookie }
    }

    pub async fn expect(
        &mut self,
        app: &App,
        status: u16,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> Value {
        let answer = self.send(app, method, path, body, &[]).await;
        assert_eq!(answer.status, status, "{method} {path}: {}\n{}", answer.body, app.log_tail());
        answer.body
    }
}

pub async fn signed_up(app: &App, email: &str) -> Browser {
    let mut browser = Browser::default();
    let body = json!({"email": email, "password": "correct horse", "name": "Someone"});
    browser.expect(app, 201, "POST", "/api/ui/auth/sign-up", Some(body)).await;
    browser
}

#[tokio::test]
async fn sign_up_sign_in_and_sessions() {
    let stack = Stack::new().await;
    let app = web(&stack.env).await;
    let mut ada = Browser::default();
    let short = json!({"email": "ada@example.com", "password": "short"});
    ada.expect(&app, 400, "POST", "/api/ui/auth/sign-up", Some(short)).await;
    let answer = ada
        .send(
            &app,
            "POST",
            "/api/ui/auth/sign-up",
            Some(json!({"email": "ada@example.com", "password": "correct horse"})),
            &[],
        )
        .await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    let cookie = answer.set_cookie.unwrap();
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=2592000"] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain HTTP: {cookie}");
    assert!(
        answer.body.get("token").is_none()
            && !answer.body.to_string().contains(ada.cookie.as_deref().unwrap())
    );
    // A cross-site form can post text/plain that parses as JSON: refused, so no login CSRF.
    let form = crate::apps::http()
        .post(format!("{}/api/ui/auth/sign-in", app.base_url))
        .header("Content-Type", "text/plain")
        .body(r#"{"email":"ada@example.com","password":"correct horse"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(form.status().as_u16(), 415);
    assert!(form.headers().get(SET_COOKIE).is_none());
    let taken = json!({"email": "ADA@example.com", "password": "correct horse"});
    Browser::default().expect(&app, 409, "POST", "/api/ui/auth/sign-up", Some(taken)).await;

    let me = ada.expect(&app, 200, "GET", "/api/ui/me", None).await;
    assert_eq!((me["user"]["email"].as_str(), &me["organizations"]), (Some("ada@example.com"), &json!([])));

    // A state change needs the CSRF token: without it, or with another, 403 and nothing happens.
    let mut forged = Browser { cookie: ada.cookie.clone(), csrf: None };
    forged.expect(&app, 403, "POST", "/api/ui/organizations", Some(json!({"name": "Evil"}))).await;
    forged.csrf = Some("wrong".into());
    forged.expect(&app, 403, "POST", "/api/ui/organizations", Some(json!({"name": "Evil"}))).await;
    forged.expect(&app, 403, "POST", "/api/ui/auth/sign-out", None).await;
    let org = ada.expect(&app, 201, "POST", "/api/ui/organizations", Some(json!({"name": "Ada's"}))).await;
    let org_id = org["id"].as_str().unwrap().to_owned();
    let project_path = format!("/api/ui/organizations/{org_id}/projects");
    let project =
        ada.expect(&app, 201, "POST", &project_path, Some(json!({"name": "web", "retention": 0}))).await;
    let project_id = project["id"].as_str().unwrap().to_owned();
    let keys_path = format!("/api/ui/projects/{project_id}/api-keys");
    let key = ada.expect(&app, 201, "POST", &keys_path, None).await;
    let listed = ada.expect(&app, 200, "GET", &keys_path, None).await;
    assert_eq!(listed["apiKeys"][0]["publicKey"], key["publicKey"]);
    let me = ada.expect(&app, 200, "GET", "/api/ui/me", None).await;
    assert_eq!(me["organizations"][0]["role"], "OWNER");
    assert_eq!(
        me["organizations"][0]["projects"],
        json!([{"id": project_id, "name": "web", "role": "OWNER"}])
    );

    // Signing in again rotates the session: the old cookie opens nothing.
    let old = ada.clone();
    let credentials = json!({"email": "ada@example.com", "password": "correct horse"});
    let answer = ada
        .send(
            &app,
            "POST",
            "/api/ui/auth/sign-in",
            Some(credentials.clone()),
            &[("X-Forwarded-Proto", "https")],
        )
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(answer.set_cookie.unwrap().contains("; Secure"), "over HTTPS the cookie is Secure");
    assert_ne!(ada.cookie, old.cookie);
    old.clone().expect(&app, 401, "GET", "/api/ui/me", None).await;

    // A password change ends every session (here: another device's) and gives this browser a new one.
    let mut phone = Browser::default();
    phone.expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials.clone())).await;
    let wrong = json!({"currentPassword": "not it", "newPassword": "battery staple"});
    ada.expect(&app, 403, "PUT", "/api/ui/me/password", Some(wrong)).await;
    let change = json!({"currentPassword": "correct horse", "newPassword": "battery staple"});
    ada.expect(&app, 200, "PUT", "/api/ui/me/password", Some(change)).await;
    phone.expect(&app, 401, "GET", "/api/ui/me", None).await;
    ada.expect(&app, 200, "GET", "/api/ui/me", None).await;
    Browser::default().expect(&app, 401, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;

    // The owner reads the audit log, with who did what.
    let log = ada.expect(&app, 200, "GET", &format!("/api/ui/organizations/{org_id}/audit-log"), None).await;
    let actions: Vec<(&str, &str)> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["action"].as_str().unwrap(), e["actorType"].as_str().unwrap()))
        .collect();
    assert_eq!(
        actions,
        [("apiKey.create", "USER"), ("project.create", "USER"), ("organization.create", "USER")]
    );
    assert_eq!(log["meta"]["totalItems"], 3);

    // Signing out ends the session and clears the cookie.
    let kept = ada.clone();
    let answer = ada.send(&app, "POST", "/api/ui/auth/sign-out", None, &[]).await;
    assert_eq!(answer.status, 200);
    assert!(answer.set_cookie.unwrap().contains("Max-Age=0"));
    kept.clone().expect(&app, 401, "GET", "/api/ui/me", None).await;
}

#[tokio::test]
async fn failed_sign_ins_are_limited_per_account() {
    let stack = Stack::new().await;
    let app = web(&stack.env).await;
    signed_up(&app, "bob@example.com").await;
    signed_up(&app, "eve@example.com").await;
    let wrong = json!({"email": "bob@example.com", "password": "wrong password"});
    for _ in 0..10 {
        Browser::default().expect(&app, 401, "POST", "/api/ui/auth/sign-in", Some(wrong.clone())).await;
    }
    let right = json!({"email": "bob@example.com", "password": "correct horse"});
    let answer = Browser::default().send(&app, "POST", "/api/ui/auth/sign-in", Some(right), &[]).await;
    assert_eq!(answer.status, 429, "{}", answer.body);
    assert!(answer.body["message"].is_string());
    let other = json!({"email": "eve@example.com", "password": "correct horse"});
    Browser::default().expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(other)).await;
    // An unknown address is refused with the very same answer as a wrong password.
    let unknown = json!({"email": "nobody@example.com", "password": "correct horse"});
    let eve_wrong = json!({"email": "eve@example.com", "password": "wrong password"});
    let a = Browser::default().expect(&app, 401, "POST", "/api/ui/auth/sign-in", Some(unknown)).await;
    let b = Browser::default().expect(&app, 401, "POST", "/api/ui/auth/sign-in", Some(eve_wrong)).await;
    assert_eq!(a, b);
}

#[tokio::test]
async fn sign_up_can_be_turned_off_and_the_first_user_is_made_at_startup() {
    let mut stack = Stack::new().await;
    for (name, value) in [
        ("AUTH_DISABLE_SIGNUP", "true"),
        ("LANGFUSE_INIT_USER_EMAIL", "owner@example.com"),
        ("LANGFUSE_INIT_USER_NAME", "Owner"),
        ("LANGFUSE_INIT_USER_PASSWORD", "first password"),
    ] {
        stack.env.insert(name.into(), value.into());
    }
    let app = web(&stack.env).await;
    let body = json!({"email": "new@example.com", "password": "correct horse"});
    Browser::default().expect(&app, 403, "POST", "/api/ui/auth/sign-up", Some(body)).await;
    let mut owner = Browser::default();
    let credentials = json!({"email": "owner@example.com", "password": "first password"});
    owner.expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials.clone())).await;
    let me = owner.expect(&app, 200, "GET", "/api/ui/me", None).await;
    assert_eq!(me["user"]["name"], "Owner");
    assert_eq!(me["organizations"][0]["id"], "org-blackbox");
    assert_eq!(me["organizations"][0]["role"], "OWNER");
    assert_eq!(me["organizations"][0]["projects"][0]["id"], "project-blackbox");

    // A second start with the same settings changes nothing: the session lives on.
    let again = web(&stack.env).await;
    owner.expect(&again, 200, "GET", "/api/ui/me", None).await;
    // A new password in the environment replaces the old one and ends its sessions.
    let mut env: BTreeMap<String, String> = stack.env.clone();
    env.insert("LANGFUSE_INIT_USER_PASSWORD".into(), "second password".into());
    let third = web(&env).await;
    owner.expect(&third, 401, "GET", "/api/ui/me", None).await;
    Browser::default().expect(&third, 401, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;
    let new = json!({"email": "owner@example.com", "password": "second password"});
    Browser::default().expect(&third, 200, "POST", "/api/ui/auth/sign-in", Some(new)).await;
}

/// One person's session neither reads nor changes another's organization: every UI route answers
/// as if it did not exist, and roles below OWNER or NONE on a project take access away.
#[tokio::test]
async fn a_session_reaches_only_its_own_organizations() {
    let stack = Stack::new().await;
    let app = web(&stack.env).await;
    let mut ada = signed_up(&app, "ada@example.com").await;
    let mut bob = signed_up(&app, "bob@example.com").await;
    let org = ada.expect(&app, 201, "POST", "/api/ui/organizations", Some(json!({"name": "Ada's"}))).await;
    let org_id = org["id"].as_str().unwrap().to_owned();
    let project = ada
        .expect(
            &app,
            201,
            "POST",
            &format!("/api/ui/organizations/{org_id}/projects"),
            Some(json!({"name": "p", "retention": 0})),
        )
        .await;
    let project_id = project["id"].as_str().unwrap().to_owned();
    let key = ada.expect(&app, 201, "POST", &format!("/api/ui/projects/{project_id}/api-keys"), None).await;
    let key_id = key["id"].as_str().unwrap().to_owned();

    let routes = [
        ("GET", format!("/api/ui/organizations/{org_id}/audit-log"), None),
        (
            "POST",
            format!("/api/ui/organizations/{org_id}/projects"),
            Some(json!({"name": "x", "retention": 0})),
        ),
        ("GET", format!("/api/ui/projects/{project_id}/api-keys"), None),
        ("POST", format!("/api/ui/projects/{project_id}/api-keys"), None),
        ("DELETE", format!("/api/ui/projects/{project_id}/api-keys/{key_id}"), None),
        ("DELETE", format!("/api/ui/projects/{project_id}"), None),
    ];
    for (method, path, body) in &routes {
        bob.expect(&app, 404, method, path, body.clone()).await;
    }
    assert_eq!(bob.expect(&app, 200, "GET", "/api/ui/me", None).await["organizations"], json!([]));

    // Bob joins as VIEWER (through an organization key): he sees the project, manages nothing.
    let bob_id =
        bob.expect(&app, 200, "GET", "/api/ui/me", None).await["user"]["id"].as_str().unwrap().to_owned();
    let (_, org_key) =
        call(&app, "POST", &format!("/api/admin/organizations/{org_id}/apiKeys"), &admin(), None).await;
    let org_auth = crate::identity::basic(
        org_key["publicKey"].as_str().unwrap(),
        org_key["secretKey"].as_str().unwrap(),
    );
    let (status, _) = call(
        &app,
        "PUT",
        "/api/public/organizations/memberships",
        &org_auth,
        Some(json!({"userId": bob_id, "role": "VIEWER"})),
    )
    .await;
    assert_eq!(status, 200);
    let me = bob.expect(&app, 200, "GET", "/api/ui/me", None).await;
    assert_eq!(me["organizations"][0]["projects"][0]["role"], "VIEWER", "{me}");
    bob.expect(&app, 403, "GET", &routes[0].1, None).await;
    bob.expect(&app, 403, "GET", &routes[2].1, None).await;
    bob.expect(&app, 403, "DELETE", &routes[4].1, None).await;
    // A project role overrides the organization's: ADMIN there lets him manage its keys.
    let project_role = format!("/api/public/projects/{project_id}/memberships");
    call(&app, "PUT", &project_role, &org_auth, Some(json!({"userId": bob_id, "role": "ADMIN"}))).await;
    bob.expect(&app, 200, "GET", &routes[2].1, None).await;
    // NONE on the project takes it away altogether, as if it did not exist.
    let pool = stack.pg.pool().await;
    sqlx::query("UPDATE project_memberships SET role = 'NONE' WHERE user_id = $1")
        .bind(&bob_id)
        .execute(&pool)
        .await
        .unwrap();
    bob.expect(&app, 404, "GET", &routes[2].1, None).await;
    let me = bob.expect(&app, 200, "GET", "/api/ui/me", None).await;
    assert_eq!(me["organizations"][0]["projects"], json!([]), "{me}");
    // Ada is still the only one who reads the audit log, and the key Bob could not delete is there.
    let log = ada.expect(&app, 200, "GET", &routes[0].1, None).await;
    assert!(log["data"].as_array().unwrap().iter().all(|e| e["action"] != "apiKey.delete"), "{log}");
}

/// Owners manage members through the UI, NONE included; members below ADMIN cannot.
#[tokio::test]
async fn owners_manage_members_in_the_ui() {
    let stack = Stack::new().await;
    let app = web(&stack.env).await;
    let mut ada = signed_up(&app, "ada@example.com").await;
    let mut bob = signed_up(&app, "bob@example.com").await;
    let org = ada.expect(&app, 201, "POST", "/api/ui/organizations", Some(json!({"name": "Ada's"}))).await;
    let org_id = org["id"].as_str().unwrap().to_owned();
    let members_path = format!("/api/ui/organizations/{org_id}/members");
    bob.expect(&app, 404, "GET", &members_path, None).await;
    bob.expect(&app, 404, "PUT", &members_path, Some(json!({"userId": "x", "role": "OWNER"}))).await;
    bob.expect(&app, 404, "DELETE", &format!("{members_path}/x"), None).await;
    let project = ada
        .expect(
            &app,
            201,
            "POST",
            &format!("/api/ui/organizations/{org_id}/projects"),
            Some(json!({"name": "p", "retention": 0})),
        )
        .await;
    let project_id = project["id"].as_str().unwrap().to_owned();
    let ada_id =
        ada.expect(&app, 200, "GET", "/api/ui/me", None).await["user"]["id"].as_str().unwrap().to_owned();
    let bob_id =
        bob.expect(&app, 200, "GET", "/api/ui/me", None).await["user"]["id"].as_str().unwrap().to_owned();

    ada.expect(&app, 200, "PUT", &members_path, Some(json!({"userId": bob_id, "role": "MEMBER"}))).await;
    let members = ada.expect(&app, 200, "GET", &members_path, None).await;
    let roles: Vec<(&str, &str)> = members["memberships"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["email"].as_str().unwrap(), m["role"].as_str().unwrap()))
        .collect();
    assert_eq!(roles, [("ada@example.com", "OWNER"), ("bob@example.com", "MEMBER")]);
    // A MEMBER reads the members but changes nothing.
    bob.expect(&app, 200, "GET", &members_path, None).await;
    bob.expect(&app, 403, "PUT", &members_path, Some(json!({"userId": bob_id, "role": "OWNER"}))).await;
    bob.expect(&app, 403, "DELETE", &format!("{members_path}/{ada_id}"), None).await;
    // The last owner keeps the role; an unknown role is refused.
    ada.expect(&app, 400, "PUT", &members_path, Some(json!({"userId": ada_id, "role": "VIEWER"}))).await;
    ada.expect(&app, 400, "PUT", &members_path, Some(json!({"userId": bob_id, "role": "KING"}))).await;

    // NONE on the project: Bob no longer sees it.
    let project_members = format!("/api/ui/projects/{project_id}/members");
    assert_eq!(
        bob.expect(&app, 200, "GET", "/api/ui/me", None).await["organizations"][0]["projects"][0]["id"],
        project_id.as_str()
    );
    ada.expect(&app, 200, "PUT", &project_members, Some(json!({"userId": bob_id, "role": "NONE"}))).await;
    let me = bob.expect(&app, 200, "GET", "/api/ui/me", None).await;
    assert_eq!(me["organizations"][0]["projects"], json!([]), "{me}");
    bob.expect(&app, 404, "GET", &format!("/api/ui/projects/{project_id}/api-keys"), None).await;

    // Removed, Bob sees nothing of the organization.
    ada.expect(&app, 200, "DELETE", &format!("{members_path}/{bob_id}"), None).await;
    bob.expect(&app, 404, "GET", &members_path, None).await;
    assert_eq!(bob.expect(&app, 200, "GET", "/api/ui/me", None).await["organizations"], json!([]));
}
