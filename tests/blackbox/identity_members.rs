//! Memberships and SCIM through a running `web`: the real Python SDK's `organizations` and `scim`
//! clients, and isolation between two organizations on every membership and SCIM route.

use serde_json::{Value, json};

use crate::apps::{PUBLIC_KEY, SECRET_KEY, Stack, run_client_with};
use crate::identity::{admin, basic, call, organization, project, web};

#[tokio::test]
async fn python_sdk_manages_members_and_scim_users() {
    let stack = Stack::new().await;
    let app = web(&stack.env).await;
    let (status, key) =
        call(&app, "POST", "/api/admin/organizations/org-blackbox/apiKeys", &admin(), None).await;
    assert_eq!(status, 201, "{key}");
    let env = [
        ("LOUPE_ORG_PUBLIC_KEY", key["publicKey"].as_str().unwrap()),
        ("LOUPE_ORG_SECRET_KEY", key["secretKey"].as_str().unwrap()),
        ("LOUPE_PROJECT_ID", "project-blackbox"),
    ];
    let seen = run_client_with("identity_members.py", &app, &env).await;
    assert_eq!(seen["filterSupported"], true);
    assert_eq!(seen["resourceTypes"], json!(["User"]));
    assert_eq!(seen["schemas"], json!(["urn:ietf:params:scim:schemas:core:2.0:User"]));
    assert_eq!(
        seen["created"],
        json!({"userName": "ada@example.com", "name": "Ada Lovelace", "emails": ["ada@example.com"]})
    );
    assert_eq!(
        (&seen["found"], &seen["foundTotal"], &seen["noneFound"]),
        (&json!([true]), &json!(1), &json!(0))
    );
    assert_eq!(seen["fetched"], "ada@example.com");
    assert_eq!(
        seen["membersBeforeRole"],
        json!([]),
        "a provisioned user has role NONE, which the SDK cannot name"
    );
    assert_eq!(seen["member"], json!({"role": "MEMBER", "email": "ada@example.com", "name": "Ada Lovelace"}));
    assert_eq!(seen["members"], json!([["ada@example.com", "MEMBER"]]));
    assert_eq!(seen["projectMember"], "ADMIN");
    assert_eq!(seen["projectMembers"], json!([["ada@example.com", "ADMIN"]]));
    assert_eq!(seen["gone"], true, "a removed member is no SCIM user of the organization");
    assert_eq!(seen["againSameUser"], true, "provisioning the address again finds the same person");
    assert_eq!(seen["deleted"], true);

    let pool = stack.pg.pool().await;
    let actions: Vec<String> = sqlx::query_scalar(
        "SELECT action FROM audit_log WHERE org_id = 'org-blackbox' ORDER BY created_at, id",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        actions,
        [
            "apiKey.create",
            "scim.user.create",
            "membership.update",
            "projectMembership.update",
            "projectMembership.delete",
            "membership.delete",
            "scim.user.create",
            "scim.user.delete",
        ]
    );
}

/// Organization two cannot see, provision into, change or remove organization one's members.
#[tokio::test]
async fn memberships_and_scim_are_isolated() {
    let stack = Stack::new().await;
    let app = web(&stack.env).await;
    let (one, two) = (organization(&app, "One").await, organization(&app, "Two").await);
    let project_one = project(&app, &one, "p1").await;
    let project_two = project(&app, &two, "p2").await;
    let (status, ada) = call(
        &app,
        "POST",
        "/api/public/scim/Users",
        &one.key,
        Some(json!({"userName": "ada@one.test", "name": {"formatted": "Ada"}})),
    )
    .await;
    assert_eq!(status, 201, "{ada}");
    let ada_id = ada["id"].as_str().unwrap();
    let body = json!({"userId": ada_id, "role": "ADMIN"});
    let (status, answer) =
        call(&app, "PUT", "/api/public/organizations/memberships", &one.key, Some(body.clone())).await;
    assert_eq!(status, 200, "{answer}");
    let (status, answer) = call(
        &app,
        "PUT",
        &format!("/api/public/projects/{project_one}/memberships"),
        &one.key,
        Some(body.clone()),
    )
    .await;
    assert_eq!(status, 200, "{answer}");

    // Two sees none of it.
    let (_, members) = call(&app, "GET", "/api/public/organizations/memberships", &two.key, None).await;
    assert_eq!(members, json!({"memberships": []}));
    let (_, users) = call(&app, "GET", "/api/public/scim/Users", &two.key, None).await;
    assert_eq!(users["totalResults"], 0, "{users}");
    let (_, users) = call(
        &app,
        "GET",
        "/api/public/scim/Users?filter=userName%20eq%20%22ada%40one.test%22",
        &two.key,
        None,
    )
    .await;
    assert_eq!(users["totalResults"], 0, "{users}");
    let (status, answer) =
        call(&app, "GET", &format!("/api/public/scim/Users/{ada_id}"), &two.key, None).await;
    assert_eq!(status, 404, "{answer}");
    assert_eq!(answer["schemas"], json!(["urn:ietf:params:scim:api:messages:2.0:Error"]));
    let (status, answer) =
        call(&app, "DELETE", &format!("/api/public/scim/Users/{ada_id}"), &two.key, None).await;
    assert_eq!(status, 404, "{answer}");
    let delete = json!({"userId": ada_id});
    let (status, answer) =
        call(&app, "DELETE", "/api/public/organizations/memberships", &two.key, Some(delete.clone())).await;
    assert_eq!(status, 404, "{answer}");
    for method in ["GET", "PUT", "DELETE"] {
        let path = format!("/api/public/projects/{project_one}/memberships");
        let body = if method == "DELETE" { delete.clone() } else { body.clone() };
        let (status, answer) = call(&app, method, &path, &two.key, Some(body.clone())).await;
        assert_eq!(status, 404, "{method} {path}: {answer}");
        let (_, nowhere) =
            call(&app, method, &path.replace(&project_one, "no-such-project"), &two.key, Some(body)).await;
        assert_eq!(answer, nowhere, "the same answer as for a project that does not exist");
    }
    // A project role needs membership of the project's organization.
    let (status, answer) = call(
        &app,
        "PUT",
        &format!("/api/public/projects/{project_two}/memberships"),
        &two.key,
        Some(body.clone()),
    )
    .await;
    assert_eq!(status, 404, "{answer}");

    // One's data is untouched.
    let (_, members) = call(&app, "GET", "/api/public/organizations/memberships", &one.key, None).await;
    assert_eq!(members["memberships"][0]["role"], "ADMIN", "{members}");
    let (_, members) =
        call(&app, "GET", &format!("/api/public/projects/{project_one}/memberships"), &one.key, None).await;
    assert_eq!(members["memberships"][0]["userId"], ada_id, "{members}");

    // A project key on these routes: 403 with Langfuse's words.
    for path in [
        "/api/public/organizations/memberships",
        "/api/public/scim/Users",
        "/api/public/scim/ServiceProviderConfig",
    ] {
        let (status, body) = call(&app, "GET", path, &basic(PUBLIC_KEY, SECRET_KEY), None).await;
        assert_eq!(status, 403, "{path}: {body}");
    }
}

#[tokio::test]
async fn membership_requests_are_checked() {
    let stack = Stack::new().await;
    let app = web(&stack.env).await;
    let org = organization(&app, "Checks").await;
    let (_, user) =
        call(&app, "POST", "/api/public/scim/Users", &org.key, Some(json!({"userName": "bob@x.test"}))).await;
    let user_id = user["id"].as_str().unwrap();
    let path = "/api/public/organizations/memberships";
    let bad: [(Value, u16); 4] = [
        (json!({"userId": user_id, "role": "NONE"}), 400),
        (json!({"userId": user_id, "role": "KING"}), 400),
        (json!({"userId": "no-such-user", "role": "MEMBER"}), 404),
        (json!({"role": "MEMBER"}), 400),
    ];
    for (body, status) in bad {
        let (got, answer) = call(&app, "PUT", path, &org.key, Some(body.clone())).await;
        assert_eq!(got, status, "{body}: {answer}");
    }
    let (status, answer) =
        call(&app, "POST", "/api/public/scim/Users", &org.key, Some(json!({"userName": "bob@x.test"}))).await;
    assert_eq!(status, 409, "already provisioned: {answer}");
    let (status, answer) =
        call(&app, "POST", "/api/public/scim/Users", &org.key, Some(json!({"userName": "not-an-email"})))
            .await;
    assert_eq!(status, 400, "{answer}");
    let (status, answer) =
        call(&app, "GET", "/api/public/scim/Users?filter=emails%20co%20x", &org.key, None).await;
    assert_eq!(status, 400, "{answer}");

    // The last owner stays.
    let owner = json!({"userId": user_id, "role": "OWNER"});
    assert_eq!(call(&app, "PUT", path, &org.key, Some(owner)).await.0, 200);
    let (status, answer) =
        call(&app, "PUT", path, &org.key, Some(json!({"userId": user_id, "role": "VIEWER"}))).await;
    assert_eq!(status, 400, "{answer}");
    let (status, answer) = call(&app, "DELETE", path, &org.key, Some(json!({"userId": user_id}))).await;
    assert_eq!(status, 400, "{answer}");
}
