//! Custom dashboards (`/api/public/unstable/dashboards…`, `/api/public/unstable/dashboard-widgets…`)
//! through a running `web`: the real Python SDK 5 end to end, then raw HTTP for what the SDK does
//! not show — roles over the session (a VIEWER reads and cannot write, a MEMBER writes), isolation
//! between projects, and a widget whose Metrics v2 query the metrics parser refuses (400 naming it).

use serde_json::{Value, json};

use crate::apps::{App, PUBLIC_KEY, SECRET_KEY, Stack, run_client};
use crate::identity::{basic, call, organization, project, project_key, web};
use crate::sessions::{Browser, signed_up};

const PROJECT: &str = "project-blackbox";
const ORG: &str = "org-blackbox";
const WIDGETS: &str = "/api/public/unstable/dashboard-widgets";
const DASHBOARDS: &str = "/api/public/unstable/dashboards";

#[tokio::test]
async fn python_sdk_manages_dashboards_and_widgets() {
    let stack = Stack::new().await;
    let app = web(&stack.env).await;
    let seen = run_client("dashboards.py", &app).await;
    assert_eq!(
        seen["widget"],
        json!({"description": "", "chart_config_type": "HORIZONTAL_BAR", "filters": ["type"]}),
        "{seen}"
    );
    assert_eq!(seen["empty_definition"], 0);
    assert_eq!(seen["placements"], json!([[0, 0, 6, 6], [0, 6, 6, 6]]), "appended below as 6x6 tiles");
    assert_eq!(
        seen["duplicate_placement"],
        json!([409, "A placement with id `fixed` already exists on this dashboard", "ConflictError"])
    );
    assert_eq!(seen["moved"], json!([6, 0, 6, 6]));
    assert_eq!(seen["fetched"].as_array().unwrap().len(), 2, "{seen}");
    assert_eq!(seen["fetched"][0][0], "widget");
    assert_eq!(seen["listed"], json!(["Latency"]));
    assert_eq!(seen["renamed"], json!(["Latency (p95)", 2]), "a rename keeps the placements");
    assert_eq!(seen["updated_chart"], json!(["PIE", "PIE"]), "a new chart type resets its config");
    assert_eq!(
        (&seen["bad_query"][0], &seen["bad_query"][2]),
        (&json!(400), &json!("BadRequestError")),
        "{seen}"
    );
    assert!(seen["bad_query"][1].as_str().unwrap().contains("Invalid metric vibes"), "{seen}");
    assert_eq!(seen["widgets"], json!(["Latency by name"]));
    assert_eq!(seen["delete_placed"][0], 409, "a placed widget stays: {seen}");
    assert_eq!(seen["deleted_widget"], "Dashboard widget successfully deleted");
    assert_eq!(seen["deleted_dashboard"], "Dashboard successfully deleted");
    assert_eq!(seen["gone"][0], 404);
}

async fn signed_in_owner(stack: &mut Stack) -> (App, Browser) {
    stack.env.insert("LANGFUSE_INIT_USER_EMAIL".into(), "owner@example.com".into());
    stack.env.insert("LANGFUSE_INIT_USER_PASSWORD".into(), "owner password".into());
    let app = web(&stack.env).await;
    let mut owner = Browser::default();
    let credentials = json!({"email": "owner@example.com", "password": "owner password"});
    owner.expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;
    (app, owner)
}

async fn as_person(
    app: &App,
    who: &mut Browser,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let answer = who.send(app, method, path, body, &[("X-Loupe-Project", PROJECT)]).await;
    (answer.status, answer.body)
}

async fn member(app: &App, owner: &mut Browser, email: &str, role: &str) -> Browser {
    let mut person = signed_up(app, email).await;
    let me = person.expect(app, 200, "GET", "/api/ui/me", None).await;
    let body = json!({"userId": me["user"]["id"], "role": role});
    owner.expect(app, 200, "PUT", &format!("/api/ui/organizations/{ORG}/members"), Some(body)).await;
    person
}

fn widget(metric: &str) -> Value {
    json!({
        "name": "Cost", "view": "observations", "dimensions": [], "filters": [],
        "metrics": [{"measure": metric, "agg": "sum"}], "chartType": "NUMBER"
    })
}

#[tokio::test]
async fn dashboards_follow_roles_stay_in_their_project_and_check_queries() {
    let mut stack = Stack::new().await;
    let (app, mut owner) = signed_in_owner(&mut stack).await;
    let key = basic(PUBLIC_KEY, SECRET_KEY);

    // A MEMBER writes over the session; a VIEWER reads and is refused every write.
    let mut writer = member(&app, &mut owner, "member@example.com", "MEMBER").await;
    let (status, created) = as_person(&app, &mut writer, "POST", WIDGETS, Some(widget("totalCost"))).await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["chartConfig"], json!({"type": "NUMBER"}));
    let widget_id = created["id"].as_str().unwrap().to_owned();
    let (status, board) =
        as_person(&app, &mut writer, "POST", DASHBOARDS, Some(json!({"name": "Costs"}))).await;
    assert_eq!(status, 200, "{board}");
    let board_id = board["id"].as_str().unwrap().to_owned();
    let placements = format!("{DASHBOARDS}/{board_id}/placements");
    let (status, placed) = as_person(
        &app,
        &mut writer,
        "POST",
        &placements,
        Some(json!({"type": "widget", "widgetId": widget_id, "x": 3, "width": 9})),
    )
    .await;
    assert_eq!((status, &placed["x"], &placed["width"]), (200, &json!(3), &json!(9)), "{placed}");

    let mut viewer = member(&app, &mut owner, "viewer@example.com", "VIEWER").await;
    let (status, read) = as_person(&app, &mut viewer, "GET", &format!("{DASHBOARDS}/{board_id}"), None).await;
    assert_eq!((status, &read["definition"]["widgets"][0]["widgetId"]), (200, &json!(widget_id)), "{read}");
    let (status, _) = as_person(&app, &mut viewer, "GET", WIDGETS, None).await;
    assert_eq!(status, 200);
    let board_path = format!("{DASHBOARDS}/{board_id}");
    let widget_path = format!("{WIDGETS}/{widget_id}");
    for (method, path, body) in [
        ("POST", WIDGETS, Some(widget("totalCost"))),
        ("PATCH", widget_path.as_str(), Some(json!({"name": "mine"}))),
        ("DELETE", widget_path.as_str(), None),
        ("POST", DASHBOARDS, Some(json!({"name": "mine"}))),
        ("PATCH", board_path.as_str(), Some(json!({"name": "mine"}))),
        ("DELETE", board_path.as_str(), None),
        ("POST", placements.as_str(), Some(json!({"type": "widget", "widgetId": widget_id}))),
    ] {
        let (status, body) = as_person(&app, &mut viewer, method, path, body).await;
        assert_eq!(status, 403, "a VIEWER may not {method} {path}: {body}");
        assert_eq!(body["code"], "access_denied", "{body}");
    }

    // Another project's key sees none of it, and cannot place this project's widget.
    let other_org = organization(&app, "elsewhere").await;
    let other = project(&app, &other_org, "other").await;
    let (other_key, _) = project_key(&app, &other_org, &other).await;
    let (status, list) = call(&app, "GET", DASHBOARDS, &other_key, None).await;
    assert_eq!((status, &list["data"]), (200, &json!([])), "{list}");
    assert_eq!(call(&app, "GET", &board_path, &other_key, None).await.0, 404);
    assert_eq!(call(&app, "GET", &widget_path, &other_key, None).await.0, 404);
    assert_eq!(call(&app, "DELETE", &widget_path, &other_key, None).await.0, 404);
    let (status, own) = call(&app, "POST", DASHBOARDS, &other_key, Some(json!({"name": "theirs"}))).await;
    assert_eq!(status, 200, "{own}");
    let theirs = format!("{DASHBOARDS}/{}/placements", own["id"].as_str().unwrap());
    let (status, body) =
        call(&app, "POST", &theirs, &other_key, Some(json!({"type": "widget", "widgetId": widget_id}))).await;
    assert_eq!(status, 404, "{body}");
    let (status, list) = call(&app, "GET", DASHBOARDS, &key, None).await;
    assert_eq!((status, list["meta"]["totalItems"].as_i64()), (200, Some(1)), "{list}");

    // A query the metrics parser refuses is refused on save, naming the problem, as JSON.
    let bad = [
        (widget("vibes"), "Invalid metric vibes"),
        (
            json!({"name": "x", "view": "traces", "dimensions": [], "filters": [], "metrics": [{"measure": "count", "agg": "count"}], "chartType": "NUMBER"}),
            "Invalid view `traces`",
        ),
        (
            json!({"name": "x", "view": "observations", "dimensions": [{"field": "input"}], "filters": [], "metrics": [{"measure": "count", "agg": "count"}], "chartType": "PIE"}),
            "Invalid dimension input",
        ),
        (
            json!({"name": "x", "view": "observations", "dimensions": [], "filters": [{"column": "nope", "operator": "=", "type": "string", "value": "a"}], "metrics": [{"measure": "count", "agg": "count"}], "chartType": "NUMBER"}),
            "nope",
        ),
        (
            json!({"name": "x", "view": "observations", "dimensions": [], "filters": [], "metrics": [{"measure": "count", "agg": "count"}], "chartType": "PIE", "chartConfig": {"type": "NUMBER"}}),
            "must match chartType",
        ),
        (
            json!({"name": "", "view": "observations", "dimensions": [], "filters": [], "metrics": [{"measure": "count", "agg": "count"}], "chartType": "PIE"}),
            "name must be",
        ),
    ];
    for (body, expected) in bad {
        let (status, answer) = call(&app, "POST", WIDGETS, &key, Some(body)).await;
        assert_eq!(status, 400, "{answer}");
        let message = answer["message"].as_str().unwrap_or_default();
        assert!(message.contains(expected), "{expected:?} not in {answer}");
        assert!(answer["error"].is_string(), "{answer}");
        // The SDK's PublicApiError needs a code.
        let from_parser =
            ["Invalid metric", "Invalid dimension", "nope"].iter().any(|p| expected.starts_with(p));
        let code = if from_parser { "invalid_query" } else { "invalid_request" };
        assert_eq!(answer["code"], code, "{answer}");
    }
    let (status, answer) = call(&app, "POST", WIDGETS, &key, Some(json!({"name": "no metrics"}))).await;
    assert_eq!(status, 400, "a body that is not the SDK's shape: {answer}");

    // The grid is bounded; an empty PATCH is refused; a widget still placed cannot go.
    let (status, answer) = call(
        &app,
        "POST",
        &placements,
        &key,
        Some(json!({"type": "widget", "widgetId": widget_id, "x": 10, "width": 6})),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    let placement = format!("{placements}/{}", placed["id"].as_str().unwrap());
    assert_eq!(call(&app, "PATCH", &placement, &key, Some(json!({}))).await.0, 400);
    assert_eq!(call(&app, "DELETE", &widget_path, &key, None).await.0, 409);
    assert_eq!(call(&app, "DELETE", &placement, &key, None).await.0, 200);
    assert_eq!(call(&app, "DELETE", &placement, &key, None).await.0, 404);
    assert_eq!(call(&app, "DELETE", &widget_path, &key, None).await.0, 200);
}
