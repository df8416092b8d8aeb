//! The UI's trace panel through a running `web` (and a worker for scores): a trace's tree in both
//! data models (the v3 trace node, orphans, 10 000 observations complete and the time it takes),
//! an observation's detail with bounded previews and its values in full, and a person's own scores
//! and comments, by role (a VIEWER cannot write, another author cannot change them) and across
//! organizations (404).

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::apps::{App, Stack, free_port};
use crate::identity::web;
use crate::sessions::{Browser, signed_up};

const PROJECT: &str = "project-blackbox";
const ORG: &str = "org-blackbox";

struct Panel {
    stack: Stack,
    app: App,
    owner: Browser,
}

async fn started() -> Panel {
    let mut stack = Stack::new().await;
    for (name, value) in [
        ("LANGFUSE_INIT_USER_EMAIL", "owner@example.com"),
        ("LANGFUSE_INIT_USER_PASSWORD", "owner password"),
        // Both data models are written and readable.
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual"),
        ("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN", "true"),
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "100"),
    ] {
        stack.env.insert(name.into(), value.into());
    }
    let app = web(&stack.env).await;
    let mut owner = Browser::default();
    let credentials = json!({"email": "owner@example.com", "password": "owner password"});
    owner.expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;
    Panel { stack, app, owner }
}

async fn user_id(app: &App, who: &mut Browser) -> String {
    who.expect(app, 200, "GET", "/api/ui/me", None).await["user"]["id"].as_str().unwrap().to_owned()
}

/// A person signed up and made `role` in the organization.
async fn member(panel: &mut Panel, email: &str, role: &str) -> Browser {
    let mut person = signed_up(&panel.app, email).await;
    let id = user_id(&panel.app, &mut person).await;
    let body = json!({"userId": id, "role": role});
    panel
        .owner
        .expect(&panel.app, 200, "PUT", &format!("/api/ui/organizations/{ORG}/members"), Some(body))
        .await;
    person
}

async fn insert(stack: &Stack, sql: &str) {
    stack.ch.client().query(sql).execute().await.unwrap();
}

/// v4 trace `big` of `count` spans: `s-0` the root, each next span a child of span (n - 1) / 10.
async fn seed_wide_trace(stack: &Stack, trace: &str, count: u64) {
    insert(
        stack,
        &format!(
            "INSERT INTO events_full (project_id, trace_id, span_id, parent_span_id, start_time, end_time, name, \
             type, level, provided_model_name, usage_details, cost_details, event_ts, is_deleted) \
             SELECT '{PROJECT}', '{trace}', concat('s-', toString(number)), \
             if(number = 0, '', concat('s-', toString(intDiv(number - 1, 10)))), \
             now64(6) - INTERVAL 1 HOUR + toIntervalMicrosecond(number * 1000), \
             now64(6) - INTERVAL 1 HOUR + toIntervalMicrosecond(number * 1000 + 500), \
             concat('step ', toString(number % 7)), if(number % 3 = 0, 'GENERATION', 'SPAN'), 'DEFAULT', \
             if(number % 3 = 0, 'gpt-4o', ''), if(number % 3 = 0, map('total', 12), map()), \
             if(number % 3 = 0, map('total', toDecimal64(0.002, 12)), map()), now64(6), 0 FROM numbers({count})"
        ),
    )
    .await;
}

#[tokio::test]
async fn the_tree_and_the_detail_read_both_models() {
    let mut panel = started().await;
    let stack = &panel.stack;
    // v4: a root, a generation with a 200 000-byte input and metadata, and an orphan.
    let big_input = format!("\"{}\"", "é".repeat(50_000) + &"x".repeat(99_998));
    insert(
        stack,
        &format!(
            "INSERT INTO events_full (project_id, trace_id, span_id, parent_span_id, start_time, end_time, name, type, \
             level, provided_model_name, model_parameters, usage_details, cost_details, input, output, \
             metadata_names, metadata_values, event_ts, is_deleted) VALUES \
             ('{PROJECT}', 'tv4', 'root', '', '2025-05-01 12:00:00.000000', '2025-05-01 12:00:02.000000', 'agent', \
              'AGENT', 'DEFAULT', '', '', map(), map(), '\"hello\"', '\"bye\"', [], [], now64(6), 0), \
             ('{PROJECT}', 'tv4', 'gen', 'root', '2025-05-01 12:00:00.500000', '2025-05-01 12:00:01.500000', 'llm', \
              'GENERATION', 'WARNING', 'gpt-4o', '{{\"temperature\":0.2}}', map('input', 10, 'output', 5, 'total', 15), \
              map('total', toDecimal64(0.25, 12)), '{big_input}', '[{{\"role\":\"assistant\",\"content\":\"hi\"}}]', \
              ['team', 'long'], ['\"core\"', repeat('y', 20000)], now64(6), 0), \
             ('{PROJECT}', 'tv4', 'lost', 'never-sent', '2025-05-01 12:00:01.000000', NULL, 'late', 'SPAN', 'ERROR', \
              '', '', map(), map(), '', '', [], [], now64(6), 0)"
        ),
    )
    .await;
    // v3: the trace row, an observation without a parent, its child, and an orphan.
    insert(
        stack,
        &format!(
            "INSERT INTO traces (id, timestamp, name, project_id, public, bookmarked, tags, input, session_id, user_id, \
             event_ts, is_deleted) VALUES ('tv3', '2025-05-01 12:00:00.000', 'chat', '{PROJECT}', false, false, \
             ['a'], '{{\"q\":1}}', 's-1', 'u-1', now64(3), 0)"
        ),
    )
    .await;
    insert(
        stack,
        &format!(
            "INSERT INTO observations (id, trace_id, project_id, type, parent_observation_id, start_time, end_time, \
             name, level, input, event_ts, is_deleted) VALUES \
             ('o-top', 'tv3', '{PROJECT}', 'SPAN', NULL, '2025-05-01 12:00:00.100', '2025-05-01 12:00:03.000', 'retrieve', 'DEFAULT', NULL, now64(3), 0), \
             ('o-child', 'tv3', '{PROJECT}', 'GENERATION', 'o-top', '2025-05-01 12:00:00.200', NULL, 'answer', 'DEFAULT', 'plain words', now64(3), 0), \
             ('o-orphan', 'tv3', '{PROJECT}', 'EVENT', 'o-missing', '2025-05-01 12:00:00.300', NULL, 'stray', 'DEFAULT', NULL, now64(3), 0)"
        ),
    )
    .await;
    let app = &panel.app;
    let base = format!("/api/ui/projects/{PROJECT}/traces");

    let v4 = panel.owner.expect(app, 200, "GET", &format!("{base}/tv4/tree?model=v4"), None).await;
    assert_eq!(v4["ids"], json!(["root", "gen", "lost"]), "{v4}");
    assert_eq!(v4["parents"], json!([-1, 0, -2]));
    assert_eq!(v4["missingParents"], json!([{"index": 2, "parentId": "never-sent"}]));
    assert_eq!(v4["starts"], json!([0, 500_000, 1_000_000]));
    assert_eq!(v4["ends"], json!([2_000_000, 1_500_000, null]));
    let strings = v4["strings"].as_array().unwrap();
    let string = |column: &str, row: usize| strings[v4[column][row].as_u64().unwrap() as usize].clone();
    assert_eq!(
        (string("types", 1), string("levels", 1), string("models", 1)),
        (json!("GENERATION"), json!("WARNING"), json!("gpt-4o"))
    );
    assert_eq!((&v4["tokens"][1], &v4["costs"][1], &v4["models"][0]), (&json!(15), &json!(0.25), &json!(-1)));

    let v3 = panel.owner.expect(app, 200, "GET", &format!("{base}/tv3/tree?model=v3"), None).await;
    assert_eq!(v3["ids"], json!(["t-tv3", "o-top", "o-child", "o-orphan"]), "the trace node first: {v3}");
    assert_eq!(v3["parents"], json!([-1, 0, 1, -2]));
    assert_eq!(v3["ends"][0], json!(3_000_000), "the trace node ends with its last observation");
    // The default model in dual is v3; the v4 trace has no v3 rows.
    panel.owner.expect(app, 404, "GET", &format!("{base}/tv4/tree"), None).await;
    panel.owner.expect(app, 400, "GET", &format!("{base}/tv4/tree?model=v5"), None).await;

    // The detail: previews bounded, sizes whole, values in full on request.
    let detail =
        panel.owner.expect(app, 200, "GET", &format!("{base}/tv4/observations/gen?model=v4"), None).await;
    assert_eq!(
        (&detail["isRoot"], &detail["parentObservationId"], &detail["level"]),
        (&json!(false), &json!("root"), &json!("WARNING"))
    );
    assert_eq!(detail["input"]["bytes"], json!(big_input.len()));
    assert_eq!(detail["input"]["truncated"], true);
    assert_eq!(detail["input"]["preview"].as_str().unwrap().chars().count(), 65_536, "characters, not bytes");
    assert_eq!(
        detail["output"],
        json!({"preview": "[{\"role\":\"assistant\",\"content\":\"hi\"}]", "bytes": 37, "truncated": false})
    );
    assert_eq!(detail["metadata"]["values"]["team"], "core");
    assert_eq!(
        detail["metadata"]["values"]["long"].as_str().unwrap().len(),
        16_384,
        "a quarter of the preview"
    );
    assert_eq!(detail["metadata"]["truncated"], true);
    assert_eq!(detail["modelParameters"], json!({"temperature": 0.2}));
    assert_eq!(detail["usageDetails"], json!({"input": 10, "output": 5, "total": 15}));
    assert_eq!(detail["totalCost"], json!(0.25));
    let small = panel
        .owner
        .expect(app, 200, "GET", &format!("{base}/tv4/observations/gen?model=v4&previewChars=10"), None)
        .await;
    assert_eq!(small["input"]["preview"].as_str().unwrap().chars().count(), 10);
    panel
        .owner
        .expect(app, 400, "GET", &format!("{base}/tv4/observations/gen?model=v4&previewChars=0"), None)
        .await;
    let full =
        raw(app, &mut panel.owner, &format!("{base}/tv4/observations/gen/value?model=v4&field=input")).await;
    assert_eq!(full, big_input, "the stored text, whole");
    let metadata =
        raw(app, &mut panel.owner, &format!("{base}/tv4/observations/gen/value?model=v4&field=metadata"))
            .await;
    let metadata: Value = serde_json::from_str(&metadata).unwrap();
    assert_eq!(metadata["long"].as_str().unwrap().len(), 20_000);
    panel
        .owner
        .expect(app, 400, "GET", &format!("{base}/tv4/observations/gen/value?model=v4&field=secrets"), None)
        .await;
    panel.owner.expect(app, 404, "GET", &format!("{base}/tv4/observations/nope?model=v4"), None).await;
    let root =
        panel.owner.expect(app, 200, "GET", &format!("{base}/tv4/observations/root?model=v4"), None).await;
    assert_eq!((&root["isRoot"], &root["input"]["preview"]), (&json!(true), &json!("\"hello\"")));

    let trace_node =
        panel.owner.expect(app, 200, "GET", &format!("{base}/tv3/observations/t-tv3?model=v3"), None).await;
    assert_eq!(
        (
            &trace_node["isRoot"],
            &trace_node["type"],
            &trace_node["name"],
            &trace_node["sessionId"],
            &trace_node["tags"]
        ),
        (&json!(true), &json!("TRACE"), &json!("chat"), &json!("s-1"), &json!(["a"]))
    );
    assert_eq!(trace_node["input"]["preview"], "{\"q\":1}");
    let top =
        panel.owner.expect(app, 200, "GET", &format!("{base}/tv3/observations/o-top?model=v3"), None).await;
    assert_eq!((&top["isRoot"], &top["parentObservationId"]), (&json!(false), &json!("t-tv3")));
    let child =
        raw(app, &mut panel.owner, &format!("{base}/tv3/observations/o-child/value?model=v3&field=input"))
            .await;
    assert_eq!(child, "plain words");

    // A viewer reads; another organization's person finds nothing, as for a project that does not exist.
    let mut viewer = member(&mut panel, "viewer@example.com", "VIEWER").await;
    viewer.expect(&panel.app, 200, "GET", &format!("{base}/tv4/tree?model=v4"), None).await;
    let mut stranger = signed_up(&panel.app, "stranger@example.com").await;
    for path in [
        format!("{base}/tv4/tree?model=v4"),
        format!("{base}/tv4/observations/gen?model=v4"),
        format!("{base}/tv4/observations/gen/value?model=v4&field=input"),
        "/api/ui/projects/no-such-project/traces/tv4/tree?model=v4".to_owned(),
    ] {
        stranger.expect(&panel.app, 404, "GET", &path, None).await;
    }
    Browser::default().expect(&panel.app, 401, "GET", &format!("{base}/tv4/tree?model=v4"), None).await;
}

/// The body of a GET as text.
async fn raw(app: &App, who: &mut Browser, path: &str) -> String {
    let cookie = who.cookie.clone().unwrap();
    let response = crate::apps::http()
        .get(format!("{}{path}", app.base_url))
        .header("Cookie", format!("loupe_session={cookie}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{path}");
    response.text().await.unwrap()
}

#[tokio::test]
async fn a_ten_thousand_observation_tree_is_complete() {
    let mut panel = started().await;
    seed_wide_trace(&panel.stack, "big", 10_000).await;
    let path = format!("/api/ui/projects/{PROJECT}/traces/big/tree?model=v4");
    // The first read warms the engine's caches; the second is the one a person waits for.
    panel.owner.expect(&panel.app, 200, "GET", &path, None).await;
    let started = Instant::now();
    let tree = panel.owner.expect(&panel.app, 200, "GET", &path, None).await;
    let elapsed = started.elapsed();
    eprintln!("tree of 10 000 observations: {elapsed:?}, {} bytes", tree.to_string().len());
    assert_eq!(tree["count"], 10_000);
    let ids = tree["ids"].as_array().unwrap();
    let parents = tree["parents"].as_array().unwrap();
    assert_eq!((ids.len(), parents.len()), (10_000, 10_000));
    assert_eq!(tree["missingParents"], json!([]), "every parent is in the trace");
    for (row, parent) in parents.iter().enumerate().skip(1) {
        let expected = format!("s-{}", (row - 1) / 10);
        assert_eq!(ids[parent.as_u64().unwrap() as usize], expected.as_str(), "row {row}");
    }
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");

    // A browser that accepts gzip gets it, and the same tree.
    let response = crate::apps::http()
        .get(format!("{}{path}", panel.app.base_url))
        .header("Cookie", format!("loupe_session={}", panel.owner.cookie.clone().unwrap()))
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-encoding"], "gzip");
    let packed = response.bytes().await.unwrap();
    let mut unpacked = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&packed[..]), &mut unpacked).unwrap();
    let unpacked: Value = serde_json::from_str(&unpacked).unwrap();
    assert_eq!(unpacked, tree);
    eprintln!("gzipped: {} bytes", packed.len());
    assert!(packed.len() * 3 < tree.to_string().len(), "{} bytes gzipped", packed.len());
}

#[tokio::test]
async fn people_write_their_own_scores_and_comments() {
    let mut panel = started().await;
    let mut worker = App::spawn("worker", &panel.stack.env, free_port());
    worker.wait_healthy("/api/health", Duration::from_secs(60)).await;
    insert(
        &panel.stack,
        &format!(
            "INSERT INTO events_full (project_id, trace_id, span_id, parent_span_id, start_time, name, type, event_ts, \
             is_deleted) VALUES ('{PROJECT}', 'ts', 'r', '', now64(6), 'agent', 'AGENT', now64(6), 0), \
             ('{PROJECT}', 'ts', 'c', 'r', now64(6), 'tool', 'TOOL', now64(6), 0)"
        ),
    )
    .await;
    let owner_id = user_id(&panel.app, &mut panel.owner).await;
    let mut colleague = member(&mut panel, "member@example.com", "MEMBER").await;
    let mut viewer = member(&mut panel, "viewer@example.com", "VIEWER").await;
    let mut stranger = signed_up(&panel.app, "stranger@example.com").await;
    let (app, owner) = (&panel.app, &mut panel.owner);

    let configs = "/api/public/score-configs";
    let config = json!({"name": "quality", "dataType": "NUMERIC", "minValue": 0, "maxValue": 10});
    let config = owner.send(app, "POST", configs, Some(config), &[("X-Loupe-Project", PROJECT)]).await;
    assert_eq!(config.status, 200, "{}", config.body);
    let config = config.body["id"].as_str().unwrap().to_owned();

    let scores = format!("/api/ui/projects/{PROJECT}/scores");
    let score =
        |value: Value| json!({"traceId": "ts", "configId": config, "value": value, "comment": "fine"});
    owner.expect(app, 400, "POST", &scores, Some(score(json!(11)))).await;
    owner
        .expect(app, 404, "POST", &scores, Some(json!({"traceId": "ts", "configId": "nope", "value": 1})))
        .await;
    owner
        .expect(
            app,
            400,
            "POST",
            &scores,
            Some(json!({"traceId": "ts", "configId": config, "value": 1, "name": "x"})),
        )
        .await;
    viewer.expect(app, 403, "POST", &scores, Some(score(json!(7)))).await;
    stranger.expect(app, 404, "POST", &scores, Some(score(json!(7)))).await;
    let created = owner.expect(app, 201, "POST", &scores, Some(score(json!(7)))).await;
    let id = created["id"].as_str().unwrap().to_owned();

    // The trace's score shows on its root, with its author, once the worker has stored it.
    let root = format!("/api/ui/projects/{PROJECT}/traces/ts/observations/r?model=v4");
    let shown =
        until(app, owner, &root, |detail| detail["scores"].as_array().is_some_and(|s| !s.is_empty())).await;
    let stored = &shown["scores"][0];
    assert_eq!(
        (
            &stored["id"],
            &stored["name"],
            &stored["value"],
            &stored["authorUserId"],
            &stored["source"],
            &stored["comment"]
        ),
        (&json!(id), &json!("quality"), &json!(7), &json!(owner_id), &json!("ANNOTATION"), &json!("fine")),
        "{shown}"
    );
    let child = format!("/api/ui/projects/{PROJECT}/traces/ts/observations/c?model=v4");
    assert_eq!(owner.expect(app, 200, "GET", &child, None).await["scores"], json!([]), "not on other nodes");

    let one = format!("{scores}/{id}");
    colleague.expect(app, 403, "PUT", &one, Some(json!({"value": 9}))).await;
    viewer.expect(app, 403, "PUT", &one, Some(json!({"value": 9}))).await;
    stranger.expect(app, 404, "PUT", &one, Some(json!({"value": 9}))).await;
    owner.expect(app, 400, "PUT", &one, Some(json!({"value": 12}))).await;
    owner.expect(app, 404, "PUT", &format!("{scores}/nope"), Some(json!({"value": 9}))).await;
    owner.expect(app, 200, "PUT", &one, Some(json!({"value": 9, "comment": null}))).await;
    let edited = until(app, owner, &root, |d| d["scores"][0]["value"] == json!(9)).await;
    assert_eq!(
        (&edited["scores"][0]["name"], &edited["scores"][0]["comment"]),
        (&json!("quality"), &json!(null))
    );
    colleague.expect(app, 403, "DELETE", &one, None).await;
    stranger.expect(app, 404, "DELETE", &one, None).await;
    owner.expect(app, 204, "DELETE", &one, None).await;
    assert_eq!(owner.expect(app, 200, "GET", &root, None).await["scores"], json!([]));
    owner.expect(app, 404, "DELETE", &one, None).await;

    // An edit still queued when its score is deleted stays deleted once the worker stores it: the
    // edit carries the time it was accepted, older than the deletion's.
    let racing = owner.expect(app, 201, "POST", &scores, Some(score(json!(3)))).await;
    let racing = racing["id"].as_str().unwrap().to_owned();
    until(app, owner, &root, |d| d["scores"][0]["id"] == json!(racing)).await;
    let one = format!("{scores}/{racing}");
    owner.expect(app, 200, "PUT", &one, Some(json!({"value": 8}))).await;
    owner.expect(app, 204, "DELETE", &one, None).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    let edit_stored =
        format!("SELECT count() FROM scores WHERE id = '{racing}' AND value = 8 AND is_deleted = 0");
    while panel.stack.ch.client().query(&edit_stored).fetch_one::<u64>().await.unwrap() == 0 {
        assert!(Instant::now() < deadline, "the edit was never stored");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        owner.expect(app, 200, "GET", &root, None).await["scores"],
        json!([]),
        "the edit brought it back"
    );
    let public = owner
        .send(app, "GET", &format!("/api/public/v2/scores/{racing}"), None, &[("X-Loupe-Project", PROJECT)])
        .await;
    assert_eq!(public.status, 404, "{}", public.body);

    // Comments: created through the public API as the person, changed only by them.
    let comment = json!({"projectId": PROJECT, "objectType": "TRACE", "objectId": "ts", "content": "first"});
    let created =
        owner.send(app, "POST", "/api/public/comments", Some(comment), &[("X-Loupe-Project", PROJECT)]).await;
    assert_eq!(created.status, 200, "{}", created.body);
    let comment = format!("/api/ui/projects/{PROJECT}/comments/{}", created.body["id"].as_str().unwrap());
    colleague.expect(app, 403, "PUT", &comment, Some(json!({"content": "mine now"}))).await;
    viewer.expect(app, 403, "PUT", &comment, Some(json!({"content": "mine now"}))).await;
    stranger.expect(app, 404, "PUT", &comment, Some(json!({"content": "mine now"}))).await;
    owner.expect(app, 400, "PUT", &comment, Some(json!({"content": " "}))).await;
    owner.expect(app, 400, "PUT", &comment, Some(json!({"content": "x".repeat(5001)}))).await;
    let changed = owner.expect(app, 200, "PUT", &comment, Some(json!({"content": "second"}))).await;
    assert_eq!((&changed["content"], &changed["authorUserId"]), (&json!("second"), &json!(owner_id)));
    colleague.expect(app, 403, "DELETE", &comment, None).await;
    owner.expect(app, 204, "DELETE", &comment, None).await;
    owner.expect(app, 404, "DELETE", &comment, None).await;
    owner.expect(app, 404, "PUT", &comment, Some(json!({"content": "gone"}))).await;
}

/// Polls `path` as `who` until `done` holds, with a deadline.
async fn until(app: &App, who: &mut Browser, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let body = who.expect(app, 200, "GET", path, None).await;
        if done(&body) {
            return body;
        }
        assert!(Instant::now() < deadline, "GET {path} never satisfied the condition: {body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
