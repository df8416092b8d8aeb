//! Annotation queues through the running `web`: the real Python SDK over every public route; bad
//! input, bounds and project isolation with raw HTTP; and people by role through the session
//! (a VIEWER reads and is refused writes, MEMBERs work a queue, each taking a different item,
//! progress counted per annotator).

use reqwest::Method;
use serde_json::{Value, json};

use crate::api::Api;
use crate::apps::run_client_with;
use crate::sessions::{Browser, signed_up};

const QUEUES: &str = "/api/public/annotation-queues";
const PROJECT: &str = "project-blackbox";
const OWNER: &str = "owner@example.com";

/// Traces `t-1` (in session `s-1`) and `t-2`, observations `o-1`, `o-2` and `o-3` of trace `t-1`,
/// as v3 rows of `project`.
async fn seed_objects(api: &Api, project: &str) {
    let ch = api.stack.ch.client();
    ch.query(
        "INSERT INTO traces (id, timestamp, name, project_id, public, bookmarked, tags, session_id, event_ts, is_deleted) \
         VALUES ('t-1', now64(3), 'a', ?, false, false, [], 's-1', now64(3), 0), \
                ('t-2', now64(3), 'b', ?, false, false, [], NULL, now64(3), 0)",
    )
    .bind(project)
    .bind(project)
    .execute()
    .await
    .unwrap();
    for id in ["o-1", "o-2", "o-3"] {
        ch.query(
            "INSERT INTO observations (id, trace_id, project_id, type, start_time, name, level, event_ts, is_deleted) \
             VALUES (?, 't-1', ?, 'SPAN', now64(3), 'task', 'DEFAULT', now64(3), 0)",
        )
        .bind(id)
        .bind(project)
        .execute()
        .await
        .unwrap();
    }
}

async fn started() -> Api {
    let api = Api::start(&[
        ("LANGFUSE_INIT_USER_EMAIL", OWNER),
        ("LANGFUSE_INIT_USER_NAME", "Olive Owner"),
        ("LANGFUSE_INIT_USER_PASSWORD", "owner password"),
    ])
    .await;
    seed_objects(&api, PROJECT).await;
    api
}

async fn user_id(api: &Api, email: &str) -> String {
    let pool = api.stack.pg.pool().await;
    let (id,): (String,) =
        sqlx::query_as("SELECT id FROM users WHERE email = $1").bind(email).fetch_one(&pool).await.unwrap();
    id
}

async fn config(api: &Api) -> String {
    let body = json!({"name": "quality", "dataType": "NUMERIC", "minValue": 0, "maxValue": 5});
    api.expect(200, Method::POST, "/api/public/score-configs", Some(&body)).await["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn the_python_sdk_manages_queues_items_and_assignments() {
    let api = started().await;
    let owner = user_id(&api, OWNER).await;
    let seen = run_client_with("annotation_queues.py", &api.web, &[("LOUPE_USER_ID", &owner)]).await;
    let config_id = seen["queue"]["config_id"].clone();
    assert_eq!(
        seen["queue"],
        json!({"name": "triage", "description": "First look", "score_config_ids": [config_id], "config_id": config_id})
    );
    assert_eq!((&seen["listed"], &seen["listed_total"]), (&json!(["triage"]), &json!(1)));
    assert_eq!(
        seen["items"],
        json!([
            ["TRACE", "t-1", "PENDING", true],
            ["OBSERVATION", "o-1", "PENDING", true],
            ["SESSION", "s-1", "COMPLETED", true]
        ])
    );
    assert_eq!(seen["session_completed_at"], true, "an item created COMPLETED has its time");
    assert_eq!(seen["same_item_again"], true, "adding an object twice answers the item it has");
    assert_eq!(seen["completed"], json!(["COMPLETED", true]));
    assert_eq!(seen["pending"], json!(["t-1"]));
    assert_eq!(seen["done"], json!({"ids": ["o-1"], "total": 2, "pages": 2}));
    assert_eq!(seen["one"], json!([true, "PENDING"]));
    assert_eq!(seen["deleted"][0], true);
    assert_eq!(seen["after_delete"], json!(["t-1", "o-1"]));
    assert_eq!(seen["assigned"], json!([true, true, PROJECT]));
    assert_eq!(seen["unassigned"], true);
    assert_eq!(seen["missing_queue_status"], 404);
}

/// Each refusal is `status` with a JSON `{message, error}` whose words contain `needle` (a body that
/// is not the JSON asked for names the field in `error`, as upstream's validation errors do).
async fn refused(api: &Api, status: u16, method: Method, path: &str, body: Option<Value>, needle: &str) {
    let answer = api.expect(status, method.clone(), path, body.as_ref()).await;
    let words = format!("{} {}", answer["message"].as_str().unwrap_or_default(), answer["error"]);
    assert!(words.contains(needle), "{method} {path} {body:?}: expected `{needle}` in {answer}");
    assert!(answer["error"].is_string(), "{answer}");
}

#[tokio::test]
async fn bad_input_is_refused_and_other_projects_see_nothing() {
    let api = started().await;
    let config = config(&api).await;
    let post = Method::POST;
    refused(
        &api,
        400,
        post.clone(),
        QUEUES,
        Some(json!({"name": "q", "scoreConfigIds": []})),
        "1 to 20 score configs",
    )
    .await;
    let many: Vec<String> = (0..21).map(|i| format!("c{i}")).collect();
    refused(&api, 400, post.clone(), QUEUES, Some(json!({"name": "q", "scoreConfigIds": many})), "got 21")
        .await;
    refused(
        &api,
        400,
        post.clone(),
        QUEUES,
        Some(json!({"name": " ", "scoreConfigIds": [config]})),
        "`name` must not be empty",
    )
    .await;
    let long = "x".repeat(256);
    refused(
        &api,
        400,
        post.clone(),
        QUEUES,
        Some(json!({"name": long, "scoreConfigIds": [config]})),
        "at most 255",
    )
    .await;
    refused(
        &api,
        400,
        post.clone(),
        QUEUES,
        Some(json!({"name": "q", "scoreConfigIds": ["nope"]})),
        "No score config with id `nope`",
    )
    .await;
    refused(
        &api,
        400,
        post.clone(),
        QUEUES,
        Some(json!({"scoreConfigIds": [config]})),
        "missing field `name`",
    )
    .await;
    let queue =
        api.expect(200, post.clone(), QUEUES, Some(&json!({"name": "q", "scoreConfigIds": [config]}))).await;
    refused(
        &api,
        409,
        post.clone(),
        QUEUES,
        Some(json!({"name": "q", "scoreConfigIds": [config]})),
        "already exists",
    )
    .await;
    let id = queue["id"].as_str().unwrap();
    let items = format!("{QUEUES}/{id}/items");
    refused(
        &api,
        400,
        post.clone(),
        &items,
        Some(json!({"objectType": "PROMPT", "objectId": "p"})),
        "`objectType` must be one of",
    )
    .await;
    refused(
        &api,
        400,
        post.clone(),
        &items,
        Some(json!({"objectType": "TRACE", "objectId": ""})),
        "`objectId` must not be empty",
    )
    .await;
    refused(
        &api,
        400,
        post.clone(),
        &items,
        Some(json!({"objectType": "TRACE", "objectId": "t-1", "status": "DONE"})),
        "`status` must be one of",
    )
    .await;
    refused(
        &api,
        404,
        post.clone(),
        &items,
        Some(json!({"objectType": "OBSERVATION", "objectId": "o-404"})),
        "No OBSERVATION with id `o-404`",
    )
    .await;
    refused(&api, 400, Method::GET, &format!("{items}?status=DONE"), None, "`status` must be one of").await;
    refused(&api, 400, Method::GET, &format!("{QUEUES}?limit=1000"), None, "limit").await;
    let item = api
        .expect(200, post.clone(), &items, Some(&json!({"objectType": "OBSERVATION", "objectId": "o-1"})))
        .await;
    let item_path = format!("{items}/{}", item["id"].as_str().unwrap());
    refused(&api, 400, Method::PATCH, &item_path, Some(json!({"status": "done"})), "`status` must be one of")
        .await;
    let assignments = format!("{QUEUES}/{id}/assignments");
    refused(
        &api,
        404,
        post.clone(),
        &assignments,
        Some(json!({"userId": "nobody"})),
        "No user with id `nobody`",
    )
    .await;
    refused(&api, 400, post.clone(), &assignments, Some(json!({"userId": ""})), "`userId`").await;

    // Another project's key reaches none of it, as if it did not exist.
    let other = api.other_project().await;
    for (method, path, body) in [
        (Method::GET, format!("{QUEUES}/{id}"), None),
        (Method::GET, items.clone(), None),
        (Method::POST, items.clone(), Some(json!({"objectType": "TRACE", "objectId": "t-1"}))),
        (Method::GET, item_path.clone(), None),
        (Method::PATCH, item_path.clone(), Some(json!({"status": "COMPLETED"}))),
        (Method::DELETE, item_path.clone(), None),
        (Method::POST, assignments.clone(), Some(json!({"userId": "x"}))),
    ] {
        let (status, body) = api.send_as(&other, method.clone(), &path, body.as_ref()).await;
        assert_eq!(status, 404, "{method} {path}: {body}");
    }
    let (status, list) = api.send_as(&other, Method::GET, QUEUES, None).await;
    assert_eq!((status, &list["data"]), (200, &json!([])));
    let theirs = json!({"name": "q", "scoreConfigIds": [config]});
    let (status, body) = api.send_as(&other, Method::POST, QUEUES, Some(&theirs)).await;
    assert_eq!(status, 400, "another project's score config is not theirs: {body}");
    let (_, still) = api.send(Method::GET, &item_path, None).await;
    assert_eq!(still["status"], "PENDING", "the other project's PATCH changed nothing");
}

async fn public(
    app: &crate::apps::App,
    who: &mut Browser,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let answer = who.send(app, method, path, body, &[("X-Loupe-Project", PROJECT)]).await;
    (answer.status, answer.body)
}

async fn person(app: &crate::apps::App, email: &str) -> (Browser, String) {
    let mut who = signed_up(app, email).await;
    let id = who.expect(app, 200, "GET", "/api/ui/me", None).await["user"]["id"].as_str().unwrap().to_owned();
    (who, id)
}

#[tokio::test]
async fn people_work_a_queue_by_role() {
    let api = started().await;
    let app = &api.web;
    let config = config(&api).await;
    let queue =
        api.expect(200, Method::POST, QUEUES, Some(&json!({"name": "q", "scoreConfigIds": [config]}))).await;
    let id = queue["id"].as_str().unwrap().to_owned();
    let items = format!("{QUEUES}/{id}/items");
    for object in ["o-1", "o-2"] {
        api.expect(
            200,
            Method::POST,
            &items,
            Some(&json!({"objectType": "OBSERVATION", "objectId": object})),
        )
        .await;
    }

    let mut owner = Browser::default();
    let credentials = json!({"email": OWNER, "password": "owner password"});
    owner.expect(app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;
    let (mut viewer, viewer_id) = person(app, "viewer@example.com").await;
    let (mut member, member_id) = person(app, "member@example.com").await;
    for (user, role) in [(&viewer_id, "VIEWER"), (&member_id, "MEMBER")] {
        let body = json!({"userId": user, "role": role});
        owner.expect(app, 200, "PUT", "/api/ui/organizations/org-blackbox/members", Some(body)).await;
    }
    let next = format!("/api/ui/projects/{PROJECT}/annotation-queues/{id}/next");
    let progress = format!("/api/ui/projects/{PROJECT}/annotation-queues/progress?queueIds={id},not-a-queue");

    // A viewer reads the queue and its progress, and is refused every write.
    let (status, _) = public(app, &mut viewer, "GET", &format!("{QUEUES}/{id}"), None).await;
    assert_eq!(status, 200);
    let (status, _) = public(app, &mut viewer, "GET", &items, None).await;
    assert_eq!(status, 200);
    for (method, path, body) in [
        ("POST", QUEUES.to_owned(), json!({"name": "mine", "scoreConfigIds": [config]})),
        ("POST", items.clone(), json!({"objectType": "OBSERVATION", "objectId": "o-3"})),
        ("POST", format!("{QUEUES}/{id}/assignments"), json!({"userId": viewer_id})),
    ] {
        let (status, body) = public(app, &mut viewer, method, &path, Some(body)).await;
        assert_eq!(status, 403, "{method} {path}: {body}");
    }
    viewer.expect(app, 403, "POST", &next, Some(json!({}))).await;
    viewer.expect(app, 200, "GET", &progress, None).await;

    // Two people working at once are shown different items; each lock is theirs.
    let first = member.expect(app, 200, "POST", &next, Some(json!({}))).await;
    assert_eq!(
        (&first["item"]["objectId"], &first["item"]["traceId"]),
        (&json!("o-1"), &json!("t-1")),
        "{first}"
    );
    assert_eq!((&first["completed"], &first["total"]), (&json!(0), &json!(2)));
    let second = owner.expect(app, 200, "POST", &next, Some(json!({}))).await;
    assert_eq!(second["item"]["objectId"], "o-2", "o-1 is locked for the member: {second}");
    // The member skips o-1: nothing else is free for them (o-2 is the owner's).
    let skipped_one = json!({"skipped": [first["item"]["id"]]});
    let none = member.expect(app, 200, "POST", &next, Some(skipped_one)).await;
    assert_eq!(none["item"], Value::Null, "{none}");
    let too_many: Vec<String> = (0..501).map(|i| i.to_string()).collect();
    member.expect(app, 400, "POST", &next, Some(json!({"skipped": too_many}))).await;

    // Completing through the public route as a person counts toward that person.
    let first = member.expect(app, 200, "POST", &next, Some(json!({}))).await;
    let path = format!("{items}/{}", first["item"]["id"].as_str().unwrap());
    let (status, done) = public(app, &mut member, "PATCH", &path, Some(json!({"status": "COMPLETED"}))).await;
    assert_eq!((status, &done["status"]), (200, &json!("COMPLETED")), "{done}");
    let seen = viewer.expect(app, 200, "GET", &progress, None).await;
    assert_eq!(seen["data"].as_array().unwrap().len(), 1, "queues not in the project are left out: {seen}");
    let queue_progress = &seen["data"][0];
    assert_eq!((&queue_progress["completed"], &queue_progress["total"]), (&json!(1), &json!(2)));
    assert_eq!(
        queue_progress["annotators"],
        json!([{"userId": member_id, "name": "Someone", "completed": 1}]),
        "{seen}"
    );

    // Someone outside the organization learns nothing.
    let mut stranger = signed_up(app, "stranger@example.com").await;
    let (status, _) = public(app, &mut stranger, "GET", &format!("{QUEUES}/{id}"), None).await;
    assert_eq!(status, 404);
    stranger.expect(app, 404, "POST", &next, Some(json!({}))).await;
    stranger.expect(app, 404, "GET", &progress, None).await;
}
