//! The UI's settings routes: renaming and deleting an organization, renaming a project, and the
//! organization's own keys, by role (OWNER, MEMBER) and for an outsider.

use serde_json::json;

use crate::apps::Stack;
use crate::identity::{basic, call, web};
use crate::sessions::signed_up;

#[tokio::test]
async fn settings_by_role_and_for_outsiders() {
    let stack = Stack::new().await;
    let app = web(&stack.env).await;
    let (mut ada, mut bob, mut carol) = (
        signed_up(&app, "ada@example.com").await,
        signed_up(&app, "bob@example.com").await,
        signed_up(&app, "carol@example.com").await,
    );
    let org = ada.expect(&app, 201, "POST", "/api/ui/organizations", Some(json!({"name": "Ada's"}))).await;
    let org_path = format!("/api/ui/organizations/{}", org["id"].as_str().unwrap());
    let project = ada
        .expect(
            &app,
            201,
            "POST",
            &format!("{org_path}/projects"),
            Some(json!({"name": "p", "retention": 0})),
        )
        .await;
    let project_path = format!("/api/ui/projects/{}", project["id"].as_str().unwrap());
    let bob_id =
        bob.expect(&app, 200, "GET", "/api/ui/me", None).await["user"]["id"].as_str().unwrap().to_owned();
    ada.expect(
        &app,
        200,
        "PUT",
        &format!("{org_path}/members"),
        Some(json!({"userId": bob_id, "role": "MEMBER"})),
    )
    .await;

    let renamed = ada.expect(&app, 200, "PUT", &org_path, Some(json!({"name": "Ada Inc"}))).await;
    assert_eq!(renamed["name"], "Ada Inc");
    let renamed =
        ada.expect(&app, 200, "PUT", &project_path, Some(json!({"name": "q", "retention": 7}))).await;
    assert_eq!((renamed["name"].as_str(), renamed["retentionDays"].as_i64()), (Some("q"), Some(7)));
    let key =
        ada.expect(&app, 201, "POST", &format!("{org_path}/api-keys"), Some(json!({"note": "ci"}))).await;
    let org_auth = basic(key["publicKey"].as_str().unwrap(), key["secretKey"].as_str().unwrap());
    assert_eq!(call(&app, "GET", "/api/public/organizations/projects", &org_auth, None).await.0, 200);
    let listed = ada.expect(&app, 200, "GET", &format!("{org_path}/api-keys"), None).await;
    assert_eq!(listed["apiKeys"][0]["note"], "ci");

    // A MEMBER changes none of it; an outsider does not find it.
    let attempts = [
        ("PUT", org_path.clone(), Some(json!({"name": "Bob's"}))),
        ("DELETE", org_path.clone(), None),
        ("PUT", project_path.clone(), Some(json!({"name": "mine"}))),
        ("GET", format!("{org_path}/api-keys"), None),
        ("POST", format!("{org_path}/api-keys"), None),
        ("DELETE", format!("{org_path}/api-keys/{}", key["id"].as_str().unwrap()), None),
    ];
    for (method, path, body) in &attempts {
        bob.expect(&app, 403, method, path, body.clone()).await;
        carol.expect(&app, 404, method, path, body.clone()).await;
    }

    ada.expect(&app, 200, "DELETE", &format!("{org_path}/api-keys/{}", key["id"].as_str().unwrap()), None)
        .await;
    assert_eq!(call(&app, "GET", "/api/public/organizations/projects", &org_auth, None).await.0, 401);
    ada.expect(&app, 409, "DELETE", &org_path, None).await;
    ada.expect(&app, 202, "DELETE", &project_path, None).await;
    ada.expect(&app, 200, "DELETE", &org_path, None).await;
    assert_eq!(ada.expect(&app, 200, "GET", "/api/ui/me", None).await["organizations"], json!([]));
}
