//! Comments and score configs through the running `web`: create, list, get and PATCH with their
//! errors and project isolation, and the real Python SDK. Scores checked against their configs are
//! in `scores`.

mod root_comments;
mod scores;

use reqwest::Method;
use serde_json::{Value, json};

use crate::api::Api;
use crate::apps::run_client;

const COMMENTS: &str = "/api/public/comments";
const CONFIGS: &str = "/api/public/score-configs";

fn comment(object_type: &str, object_id: &str, content: &str) -> Value {
    json!({"projectId": "project-blackbox", "objectType": object_type, "objectId": object_id, "content": content})
}

/// What the comments of these tests name, as v3 rows of `project`: traces `t-1` (in session `s-1`)
/// and `t-2`, observation `o-1`.
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
    ch.query(
        "INSERT INTO observations (id, trace_id, project_id, type, start_time, name, level, event_ts, is_deleted) \
         VALUES ('o-1', 't-1', ?, 'SPAN', now64(3), 'task', 'DEFAULT', now64(3), 0)",
    )
    .bind(project)
    .execute()
    .await
    .unwrap();
}

/// Each refusal is a 400 whose message contains `needle`.
async fn refused(api: &Api, method: Method, path: &str, body: Option<Value>, needle: &str) {
    let answer = api.expect(400, method.clone(), path, body.as_ref()).await;
    let message = answer["message"].as_str().unwrap_or_default();
    assert!(message.contains(needle), "{method} {path} {body:?}: expected `{needle}` in {answer}");
}

#[tokio::test]
async fn comments_are_created_listed_and_fetched() {
    let api = Api::start(&[]).await;
    seed_objects(&api, "project-blackbox").await;
    let prompt = json!({"name": "greeting", "type": "text", "prompt": "hi"});
    let prompt = api.expect(201, Method::POST, "/api/public/v2/prompts", Some(&prompt)).await["id"].clone();
    let mut ids = Vec::new();
    for (object_type, object_id, content) in [
        ("TRACE", "t-1", "first"),
        ("TRACE", "t-1", "second"),
        ("OBSERVATION", "o-1", "third"),
        ("TRACE", "t-2", "x"),
    ] {
        let created =
            api.expect(200, Method::POST, COMMENTS, Some(&comment(object_type, object_id, content))).await;
        ids.push(created["id"].as_str().unwrap().to_owned());
    }
    let authored = json!({"projectId": "project-blackbox", "objectType": "PROMPT", "objectId": prompt,
        "content": "**markdown** kept as is", "authorUserId": "user-7"});
    let authored = api.expect(200, Method::POST, COMMENTS, Some(&authored)).await["id"].clone();

    let fetched = api.expect(200, Method::GET, &format!("{COMMENTS}/{}", ids[0]), None).await;
    assert_eq!(
        (
            &fetched["id"],
            &fetched["projectId"],
            &fetched["objectType"],
            &fetched["objectId"],
            &fetched["content"]
        ),
        (&json!(ids[0]), &json!("project-blackbox"), &json!("TRACE"), &json!("t-1"), &json!("first"))
    );
    assert_eq!(fetched["authorUserId"], Value::Null);
    for key in ["createdAt", "updatedAt"] {
        let at = fetched[key].as_str().unwrap();
        assert!(chrono::DateTime::parse_from_rfc3339(at).is_ok() && at.ends_with('Z'), "{key}: {at}");
    }
    let missing = api.expect(404, Method::GET, &format!("{COMMENTS}/nope"), None).await;
    assert_eq!(missing["message"], "Comment not found within authorized project");

    // Filters narrow, pages cut, newest first.
    let on_trace =
        api.expect(200, Method::GET, &format!("{COMMENTS}?objectType=TRACE&objectId=t-1"), None).await;
    let contents: Vec<&str> =
        on_trace["data"].as_array().unwrap().iter().map(|c| c["content"].as_str().unwrap()).collect();
    assert_eq!(contents, ["second", "first"]);
    assert_eq!(on_trace["meta"], json!({"page": 1, "limit": 50, "totalItems": 2, "totalPages": 1}));
    let by_author = api.expect(200, Method::GET, &format!("{COMMENTS}?authorUserId=user-7"), None).await;
    assert_eq!(
        (by_author["data"][0]["id"].clone(), by_author["meta"]["totalItems"].clone()),
        (authored, json!(1))
    );
    let traces = api.expect(200, Method::GET, &format!("{COMMENTS}?objectType=TRACE"), None).await;
    assert_eq!(traces["meta"]["totalItems"], 3);
    let page = api.expect(200, Method::GET, &format!("{COMMENTS}?limit=2&page=3"), None).await;
    assert_eq!(page["meta"], json!({"page": 3, "limit": 2, "totalItems": 5, "totalPages": 3}));
    assert_eq!(page["data"][0]["content"], "first", "the oldest comment is last");

    // Every refusal names its problem.
    let long = "x".repeat(5001);
    for (body, needle) in [
        (comment("trace", "t-1", "x"), "`objectType` must be one of TRACE, OBSERVATION, SESSION, PROMPT"),
        (comment("TRACE", "t-1", "  "), "`content` must not be empty"),
        (comment("TRACE", "t-1", &long), "at most 5000 characters"),
        (comment("TRACE", "", "x"), "`objectId` must not be empty"),
        (
            json!({"projectId": "other", "objectType": "TRACE", "objectId": "t", "content": "x"}),
            "not the project of this API key",
        ),
        (
            json!({"projectId": "project-blackbox", "objectType": "TRACE", "content": "x"}),
            "Invalid request data",
        ),
    ] {
        refused(&api, Method::POST, COMMENTS, Some(body), needle).await;
    }
    // A comment needs its object, in this project.
    for (object_type, object_id) in
        [("TRACE", "t-9"), ("OBSERVATION", "t-1"), ("SESSION", "t-1"), ("PROMPT", "greeting")]
    {
        let missing =
            api.expect(404, Method::POST, COMMENTS, Some(&comment(object_type, object_id, "x"))).await;
        assert_eq!(missing["message"], format!("No {object_type} with id `{object_id}` in this project"));
    }
    api.expect(200, Method::POST, COMMENTS, Some(&comment("SESSION", "s-1", "a session"))).await;
    refused(&api, Method::GET, &format!("{COMMENTS}?objectId=t-1"), None, "`objectId` needs `objectType`")
        .await;
    refused(&api, Method::GET, &format!("{COMMENTS}?objectType=SPAN"), None, "`objectType` must be one of")
        .await;
    refused(&api, Method::GET, &format!("{COMMENTS}?limit=101"), None, "`limit` must be between 1 and 100")
        .await;
    assert_eq!(
        api.expect(200, Method::GET, COMMENTS, None).await["meta"]["totalItems"],
        6,
        "nothing refused was kept"
    );
}

#[tokio::test]
async fn one_projects_comments_and_score_configs_are_invisible_to_another() {
    let api = Api::start(&[]).await;
    let other = api.other_project().await;
    seed_objects(&api, "project-blackbox").await;
    let ours =
        api.expect(200, Method::POST, COMMENTS, Some(&comment("TRACE", "t-1", "mine"))).await["id"].clone();
    let config = json!({"name": "private", "dataType": "NUMERIC"});
    let config = api.expect(200, Method::POST, CONFIGS, Some(&config)).await["id"].clone();
    let (ours, config) = (ours.as_str().unwrap(), config.as_str().unwrap());

    for (method, path, body) in [
        (Method::GET, format!("{COMMENTS}/{ours}"), None),
        (Method::GET, format!("{CONFIGS}/{config}"), None),
        (Method::PATCH, format!("{CONFIGS}/{config}"), Some(json!({"isArchived": true}))),
    ] {
        let (status, answer) = api.send_as(&other, method.clone(), &path, body.as_ref()).await;
        assert_eq!(status, 404, "{method} {path} as the other project: {answer}");
    }
    for path in [COMMENTS, CONFIGS] {
        let (status, list) = api.send_as(&other, Method::GET, path, None).await;
        assert_eq!(
            (status, list["data"].clone(), list["meta"]["totalItems"].clone()),
            (200, json!([]), json!(0))
        );
    }
    // The other key cannot write into our project by naming it, nor use our config for its scores.
    let (status, answer) =
        api.send_as(&other, Method::POST, COMMENTS, Some(&comment("TRACE", "t-1", "x"))).await;
    assert_eq!(status, 400, "{answer}");
    let score = json!({"traceId": "t-1", "name": "private", "value": 1, "configId": config});
    let (status, answer) = api.send_as(&other, Method::POST, "/api/public/scores", Some(&score)).await;
    assert_eq!(status, 404, "{answer}");
    assert!(
        answer["message"].as_str().unwrap().contains("does not match a score config of this project"),
        "{answer}"
    );

    // Our trace is not the other project's to comment on; its own trace of the same id is.
    let theirs = json!({"projectId": "other", "objectType": "TRACE", "objectId": "t-1", "content": "theirs"});
    let (status, _) = api.send_as(&other, Method::POST, COMMENTS, Some(&theirs)).await;
    assert_eq!(status, 404);
    seed_objects(&api, "other").await;

    // What the other project writes stays its own.
    let theirs = json!({"projectId": "other", "objectType": "TRACE", "objectId": "t-1", "content": "theirs"});
    let (status, _) = api.send_as(&other, Method::POST, COMMENTS, Some(&theirs)).await;
    assert_eq!(status, 200);
    let (status, _) =
        api.send_as(&other, Method::POST, CONFIGS, Some(&json!({"name": "x", "dataType": "TEXT"}))).await;
    assert_eq!(status, 200);
    let listed = api.expect(200, Method::GET, COMMENTS, None).await;
    assert_eq!(
        (listed["meta"]["totalItems"].clone(), listed["data"][0]["content"].clone()),
        (json!(1), json!("mine"))
    );
    assert_eq!(api.expect(200, Method::GET, CONFIGS, None).await["meta"]["totalItems"], 1);
    let (status, _) = crate::apps::http()
        .get(format!("{}{CONFIGS}", api.web.base_url))
        .send()
        .await
        .map(|r| (r.status().as_u16(), ()))
        .unwrap();
    assert_eq!(status, 401, "score configs need a key");
}

#[tokio::test]
async fn score_configs_are_created_listed_fetched_and_patched() {
    let api = Api::start(&[]).await;
    let numeric = json!({"name": "accuracy", "dataType": "NUMERIC", "minValue": 0, "maxValue": 1, "description": "share right"});
    let numeric = api.expect(200, Method::POST, CONFIGS, Some(&numeric)).await;
    assert_eq!(numeric["minValue"], 0.0);
    assert_eq!(
        (numeric["dataType"].clone(), numeric["isArchived"].clone()),
        (json!("NUMERIC"), json!(false))
    );
    assert_eq!(
        (numeric["categories"].clone(), numeric["projectId"].clone()),
        (Value::Null, json!("project-blackbox"))
    );
    let categories = json!([{"label": "good", "value": 1}, {"label": "bad", "value": 0}]);
    let categorical = json!({"name": "verdict", "dataType": "CATEGORICAL", "categories": categories});
    let categorical = api.expect(200, Method::POST, CONFIGS, Some(&categorical)).await;
    assert_eq!(
        categorical["categories"],
        json!([{"label": "good", "value": 1.0}, {"label": "bad", "value": 0.0}])
    );
    let boolean = api
        .expect(200, Method::POST, CONFIGS, Some(&json!({"name": "correct", "dataType": "BOOLEAN"})))
        .await;
    assert_eq!(
        boolean["categories"],
        json!([{"label": "True", "value": 1.0}, {"label": "False", "value": 0.0}])
    );
    let id = numeric["id"].as_str().unwrap();
    assert_eq!(api.expect(200, Method::GET, &format!("{CONFIGS}/{id}"), None).await, numeric);
    let missing = api.expect(404, Method::GET, &format!("{CONFIGS}/nope"), None).await;
    assert_eq!(missing["message"], "Score config not found within authorized project");

    let listed = api.expect(200, Method::GET, CONFIGS, None).await;
    let names: Vec<&str> =
        listed["data"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["correct", "verdict", "accuracy"], "newest first");
    assert_eq!(listed["meta"], json!({"page": 1, "limit": 50, "totalItems": 3, "totalPages": 1}));
    let second = api.expect(200, Method::GET, &format!("{CONFIGS}?limit=2&page=2"), None).await;
    assert_eq!(
        (second["data"][0]["name"].clone(), second["meta"]["totalPages"].clone()),
        (json!("accuracy"), json!(2))
    );

    for (body, needle) in [
        (
            json!({"name": "n", "dataType": "NUMERIC", "minValue": 2, "maxValue": 1}),
            "must not be greater than `maxValue`",
        ),
        (json!({"name": "c", "dataType": "CATEGORICAL"}), "need `categories`"),
        (json!({"name": "c", "dataType": "CATEGORICAL", "categories": []}), "need `categories`"),
        (
            json!({"name": "c", "dataType": "CATEGORICAL", "categories": [{"label": "a", "value": 1}, {"label": "a", "value": 2}]}),
            "label 'a' is used twice",
        ),
        (
            json!({"name": "c", "dataType": "CATEGORICAL", "categories": [{"label": "a", "value": 1}, {"label": "b", "value": 1}]}),
            "value 1 is used twice",
        ),
        (
            json!({"name": "c", "dataType": "CATEGORICAL", "categories": [{"label": "a", "value": 1}], "maxValue": 3}),
            "only for NUMERIC",
        ),
        (
            json!({"name": "b", "dataType": "BOOLEAN", "categories": [{"label": "yes", "value": 1}]}),
            "True (1) and False (0)",
        ),
        (
            json!({"name": "b", "dataType": "NUMBER"}),
            "`dataType` must be one of NUMERIC, CATEGORICAL, BOOLEAN, TEXT",
        ),
        (json!({"name": "no/slashes", "dataType": "TEXT"}), "Invalid score config name"),
        (json!({"dataType": "TEXT"}), "Invalid request data"),
    ] {
        refused(&api, Method::POST, CONFIGS, Some(body), needle).await;
    }

    // PATCH merges onto the stored config and checks the result by the same rules.
    let path = format!("{CONFIGS}/{id}");
    let patched =
        api.expect(200, Method::PATCH, &path, Some(&json!({"maxValue": 5, "name": "accuracy v2"}))).await;
    assert_eq!(
        (patched["name"].clone(), patched["minValue"].clone(), patched["maxValue"].clone()),
        (json!("accuracy v2"), json!(0.0), json!(5.0))
    );
    assert_eq!(patched["description"], "share right", "absent keys keep their values");
    let updated_at = |config: &Value| config["updatedAt"].as_str().unwrap().to_owned();
    assert!(updated_at(&patched) > updated_at(&numeric), "{patched}");
    let cleared =
        api.expect(200, Method::PATCH, &path, Some(&json!({"maxValue": null, "description": null}))).await;
    assert_eq!((cleared["maxValue"].clone(), cleared["description"].clone()), (Value::Null, Value::Null));
    let archived = api.expect(200, Method::PATCH, &path, Some(&json!({"isArchived": true}))).await;
    assert_eq!(archived["isArchived"], true);
    assert_eq!(api.expect(200, Method::GET, &path, None).await, archived);
    refused(&api, Method::PATCH, &path, Some(json!({"minValue": 10, "maxValue": 9})), "must not be greater")
        .await;
    refused(&api, Method::PATCH, &path, Some(json!({})), "Nothing to update").await;
    refused(
        &api,
        Method::PATCH,
        &path,
        Some(json!({"categories": [{"label": "a", "value": 1}]})),
        "only for CATEGORICAL",
    )
    .await;
    let categorical_path = format!("{CONFIGS}/{}", categorical["id"].as_str().unwrap());
    let more = json!({"categories": [{"label": "good", "value": 1}, {"label": "bad", "value": 0}, {"label": "meh", "value": 0.5}]});
    assert_eq!(
        api.expect(200, Method::PATCH, &categorical_path, Some(&more)).await["categories"][2]["label"],
        "meh"
    );
    refused(&api, Method::PATCH, &categorical_path, Some(json!({"categories": []})), "need `categories`")
        .await;
    let boolean_path = format!("{CONFIGS}/{}", boolean["id"].as_str().unwrap());
    refused(
        &api,
        Method::PATCH,
        &boolean_path,
        Some(json!({"categories": [{"label": "y", "value": 1}]})),
        "True (1)",
    )
    .await;
    let renamed = api.expect(200, Method::PATCH, &boolean_path, Some(&json!({"name": "is correct"}))).await;
    assert_eq!(renamed["categories"], boolean["categories"], "a BOOLEAN config keeps its own categories");
    api.expect(404, Method::PATCH, &format!("{CONFIGS}/nope"), Some(&json!({"isArchived": true}))).await;
}

/// The real Python SDK 5.0.4 manages score configs and comments through `langfuse.api`, whose
/// strict pydantic models parse every answer.
#[tokio::test]
async fn python_sdk_manages_score_configs_and_comments() {
    let api = Api::start(&[]).await;
    seed_objects(&api, "project-blackbox").await;
    let seen = run_client("comments_and_score_configs.py", &api.web).await;
    assert_eq!(seen["config"]["data_type"], "CATEGORICAL");
    assert_eq!(seen["config"]["categories"], json!([["good", 1.0], ["bad", 0.0]]));
    assert_eq!(seen["fetched_config_name"], "helpfulness");
    assert_eq!(seen["boolean_categories"], json!([["True", 1.0], ["False", 0.0]]));
    assert_eq!(seen["archived"], true);
    assert_eq!(seen["configs_total"], 2);
    assert_eq!(seen["comments"], json!(["second", "first"]));
    assert_eq!(seen["comments_meta"], json!({"page": 1, "limit": 10, "total_items": 2, "total_pages": 1}));
    assert_eq!(
        seen["fetched_comment"],
        json!({"object_type": "TRACE", "author_user_id": "ada", "content": "first"})
    );
    assert_eq!(seen["missing_comment_status"], 404);
}
