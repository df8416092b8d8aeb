//! Public links through a running `web`: the toggle by role (a VIEWER reads the state but cannot
//! turn it on or off, MEMBER can), the public reads without a cookie (a trace's tree, its
//! observations and values; a session and its traces), nothing beyond the link (another trace,
//! an observation of another trace, a trace of another session: 404 like an unknown token), no
//! project ids in the answers, revocation at once, and another project's link never reaching this
//! project's data.

use serde_json::{Value, json};

use crate::apps::{App, Stack};
use crate::identity::web;
use crate::sessions::{Browser, signed_up};

const PROJECT: &str = "project-blackbox";
const ORG: &str = "org-blackbox";

async fn insert(stack: &Stack, sql: &str) {
    stack.ch.client().query(sql).execute().await.unwrap();
}

/// v4 spans of trace `trace` in session `session`: `(span, parent, type)`.
async fn seed(stack: &Stack, project: &str, trace: &str, session: &str, spans: &[(&str, &str, &str)]) {
    let rows: Vec<String> = spans
        .iter()
        .enumerate()
        .map(|(i, (span, parent, kind))| {
            format!(
                "('{project}', '{trace}', '{span}', '{parent}', now64(6) - INTERVAL 1 HOUR + toIntervalMillisecond({i}), \
                 now64(6) - INTERVAL 1 HOUR + toIntervalMillisecond({i} + 5), 'step {span}', '{kind}', 'DEFAULT', \
                 '\"in {span}\"', '\"out {span}\"', '{session}', now64(6), 0)"
            )
        })
        .collect();
    insert(
        stack,
        &format!(
            "INSERT INTO events_full (project_id, trace_id, span_id, parent_span_id, start_time, end_time, name, type, \
             level, input, output, session_id, event_ts, is_deleted) VALUES {}",
            rows.join(", ")
        ),
    )
    .await;
}

async fn user_id(app: &App, who: &mut Browser) -> String {
    who.expect(app, 200, "GET", "/api/ui/me", None).await["user"]["id"].as_str().unwrap().to_owned()
}

async fn member(app: &App, owner: &mut Browser, email: &str, role: &str) -> Browser {
    let mut person = signed_up(app, email).await;
    let id = user_id(app, &mut person).await;
    let body = json!({"userId": id, "role": role});
    owner.expect(app, 200, "PUT", &format!("/api/ui/organizations/{ORG}/members"), Some(body)).await;
    person
}

/// The body's text has no project id in it, anywhere.
fn names_no_project(body: &Value, project: &str) {
    let text = body.to_string();
    assert!(!text.contains(project), "a public answer names the project: {text}");
}

#[tokio::test]
async fn public_links_open_only_their_trace_or_session_until_revoked() {
    let mut stack = Stack::new().await;
    for (name, value) in [
        ("LANGFUSE_INIT_USER_EMAIL", "owner@example.com"),
        ("LANGFUSE_INIT_USER_PASSWORD", "owner password"),
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "events_only"),
        ("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN", "true"),
    ] {
        stack.env.insert(name.into(), value.into());
    }
    let app = web(&stack.env).await;
    let mut owner = Browser::default();
    let credentials = json!({"email": "owner@example.com", "password": "owner password"});
    owner.expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;
    seed(&stack, PROJECT, "shared", "chat-1", &[("root", "", "AGENT"), ("tool", "root", "TOOL")]).await;
    seed(&stack, PROJECT, "sibling", "chat-1", &[("s-root", "", "AGENT")]).await;
    seed(&stack, PROJECT, "private", "chat-2", &[("p-root", "", "AGENT"), ("p-gen", "p-root", "GENERATION")])
        .await;

    let mut viewer = member(&app, &mut owner, "viewer@example.com", "VIEWER").await;
    let mut writer = member(&app, &mut owner, "member@example.com", "MEMBER").await;
    let link = format!("/api/ui/projects/{PROJECT}/public-links/trace/shared");

    // Off at first; a VIEWER reads that but may not change it; a MEMBER turns it on.
    assert_eq!(viewer.expect(&app, 200, "GET", &link, None).await, json!({"public": false}));
    viewer.expect(&app, 403, "PUT", &link, None).await;
    viewer.expect(&app, 403, "DELETE", &link, None).await;
    let on = writer.expect(&app, 200, "PUT", &link, None).await;
    assert_eq!(on["public"], json!(true), "{on}");
    let token = on["token"].as_str().unwrap().to_owned();
    assert_eq!(token.len(), 43, "32 random bytes, URL-safe base64");
    // Turning it on again keeps the same link; everyone with access sees it.
    assert_eq!(owner.expect(&app, 200, "PUT", &link, None).await["token"], json!(token));
    assert_eq!(viewer.expect(&app, 200, "GET", &link, None).await["token"], json!(token));
    // Without the CSRF header a signed-in change is refused.
    let mut no_csrf = Browser { cookie: writer.cookie.clone(), csrf: None };
    no_csrf.expect(&app, 403, "DELETE", &link, None).await;
    // Bad input is a 400 with a message.
    let bad = writer
        .expect(&app, 400, "PUT", &format!("/api/ui/projects/{PROJECT}/public-links/project/x"), None)
        .await;
    assert!(bad["message"].as_str().unwrap().contains("trace or session"), "{bad}");
    let long = "x".repeat(1001);
    writer
        .expect(&app, 400, "PUT", &format!("/api/ui/projects/{PROJECT}/public-links/trace/{long}"), None)
        .await;

    // Anyone, with no cookie at all, reads the trace, its observations and values.
    let mut anyone = Browser::default();
    let public = format!("/api/ui/public/{token}");
    assert_eq!(
        anyone.expect(&app, 200, "GET", &public, None).await,
        json!({"kind": "trace", "id": "shared"})
    );
    let tree = anyone.expect(&app, 200, "GET", &format!("{public}/traces/shared/tree"), None).await;
    assert_eq!(tree["ids"], json!(["root", "tool"]), "{tree}");
    names_no_project(&tree, PROJECT);
    let detail =
        anyone.expect(&app, 200, "GET", &format!("{public}/traces/shared/observations/tool"), None).await;
    assert_eq!(detail["input"]["preview"], json!("\"in tool\""), "{detail}");
    assert_eq!(detail["scores"], json!([]));
    names_no_project(&detail, PROJECT);
    let value = crate::apps::http()
        .get(format!("{}{public}/traces/shared/observations/tool/value?field=output", app.base_url))
        .send()
        .await
        .unwrap();
    assert_eq!(value.status().as_u16(), 200);
    assert_eq!(value.text().await.unwrap(), "\"out tool\"");
    let chars = format!("{public}/traces/shared/observations/tool?previewChars=0");
    anyone.expect(&app, 400, "GET", &chars, None).await;

    // Nothing else: another trace, another trace's observation (even named under the shared
    // trace), the session route of a trace link, and a made-up token are all 404 JSON.
    for path in [
        format!("{public}/traces/private/tree"),
        format!("{public}/traces/private/observations/p-gen"),
        format!("{public}/traces/shared/observations/p-gen"),
        format!("{public}/traces/private/observations/p-gen/value?field=input"),
        format!("{public}/session"),
        format!("/api/ui/public/{}", "A".repeat(43)),
        "/api/ui/public/short".to_owned(),
    ] {
        let answer = anyone.expect(&app, 404, "GET", &path, None).await;
        assert!(answer["message"].is_string(), "{path}: {answer}");
    }
    // The signed-in routes still need a session.
    anyone.expect(&app, 401, "GET", &link, None).await;

    // A session link opens the session and its traces, not a trace of another session.
    let session_link = format!("/api/ui/projects/{PROJECT}/public-links/session/chat-1");
    let session_token =
        writer.expect(&app, 200, "PUT", &session_link, None).await["token"].as_str().unwrap().to_owned();
    let shared_session = format!("/api/ui/public/{session_token}");
    let session = anyone.expect(&app, 200, "GET", &format!("{shared_session}/session?limit=10"), None).await;
    assert_eq!(session["session"]["traces"], json!(2), "{session}");
    names_no_project(&session, PROJECT);
    anyone.expect(&app, 200, "GET", &format!("{shared_session}/traces/sibling/tree"), None).await;
    anyone.expect(&app, 200, "GET", &format!("{shared_session}/traces/shared/observations/tool"), None).await;
    anyone.expect(&app, 404, "GET", &format!("{shared_session}/traces/private/tree"), None).await;
    anyone
        .expect(&app, 404, "GET", &format!("{shared_session}/traces/private/observations/p-gen"), None)
        .await;
    anyone.expect(&app, 400, "GET", &format!("{shared_session}/session?limit=101"), None).await;

    // Revoked: 404 at once, for the link and everything under it; on again is a new token.
    assert_eq!(writer.expect(&app, 200, "DELETE", &link, None).await, json!({"public": false}));
    anyone.expect(&app, 404, "GET", &public, None).await;
    anyone.expect(&app, 404, "GET", &format!("{public}/traces/shared/tree"), None).await;
    let again = writer.expect(&app, 200, "PUT", &link, None).await;
    assert_ne!(again["token"], json!(token));
    anyone.expect(&app, 404, "GET", &public, None).await;

    // Another organization's person can neither see nor change this project's links, and a link
    // of their own project to a trace id that exists here opens nothing of this project.
    let mut stranger = signed_up(&app, "stranger@example.com").await;
    stranger.expect(&app, 404, "GET", &link, None).await;
    stranger.expect(&app, 404, "PUT", &link, None).await;
    let org =
        stranger.expect(&app, 201, "POST", "/api/ui/organizations", Some(json!({"name": "Other"}))).await;
    let org_id = org["id"].as_str().unwrap();
    let project = stranger
        .expect(
            &app,
            201,
            "POST",
            &format!("/api/ui/organizations/{org_id}/projects"),
            Some(json!({"name": "o", "retention": 0})),
        )
        .await;
    let other = project["id"].as_str().unwrap();
    let theirs = format!("/api/ui/projects/{other}/public-links/trace/shared");
    let their_token =
        stranger.expect(&app, 200, "PUT", &theirs, None).await["token"].as_str().unwrap().to_owned();
    anyone.expect(&app, 404, "GET", &format!("/api/ui/public/{their_token}/traces/shared/tree"), None).await;
    let their_session = format!("/api/ui/projects/{other}/public-links/session/chat-1");
    let their_session =
        stranger.expect(&app, 200, "PUT", &their_session, None).await["token"].as_str().unwrap().to_owned();
    anyone.expect(&app, 404, "GET", &format!("/api/ui/public/{their_session}/session"), None).await;
    anyone
        .expect(&app, 404, "GET", &format!("/api/ui/public/{their_session}/traces/shared/tree"), None)
        .await;

    // Each link made or revoked is in its organization's audit log, with who did it; none of the
    // other organization's.
    let log = owner
        .expect(&app, 200, "GET", &format!("/api/ui/organizations/{ORG}/audit-log?limit=100"), None)
        .await;
    let links: Vec<(&str, &str)> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"].as_str().unwrap().starts_with("publicLink."))
        .map(|e| (e["action"].as_str().unwrap(), e["targetType"].as_str().unwrap()))
        .collect();
    assert!(links.contains(&("publicLink.create", "trace")), "{log}");
    assert!(links.contains(&("publicLink.revoke", "trace")), "{log}");
    assert!(links.contains(&("publicLink.create", "session")), "{log}");
    assert!(
        log["data"].as_array().unwrap().iter().all(|e| e["targetId"] != "shared" || e["projectId"] != other),
        "another organization's entries: {log}"
    );
}
