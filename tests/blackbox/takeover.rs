//! `worker import-langfuse` as an operator runs it: a Langfuse v3 database built from Langfuse's
//! schema (`test_support::langfuse_v3`), the real worker binary importing it into the database a
//! running web uses, then the real API: the old project and organization keys open it, the v3
//! password signs in (and is re-hashed), and what was imported reads back with its v3 ids. A dry run
//! writes nothing; a re-run changes nothing.

use std::collections::BTreeMap;
use std::process::Stdio;

use serde_json::json;
use test_support::langfuse_v3;

use crate::apps::{Stack, command};
use crate::identity::{basic, call, web};
use crate::sessions::Browser;

async fn import(env: &BTreeMap<String, String>, source: &str, extra: &[&str]) -> String {
    let mut worker = command("worker", env);
    worker
        .args(["import-langfuse", "--from", source, "--salt", "v3-salt"])
        .args(extra)
        .stdout(Stdio::piped());
    let output = worker.output().await.unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    );
    assert!(output.status.success(), "import-langfuse failed:\n{stdout}\n{stderr}");
    assert!(stderr.contains("prompts: importing"), "progress per table on stderr: {stderr}");
    stdout
}

#[tokio::test]
async fn an_imported_v3_deployment_keeps_its_keys_passwords_and_ids() {
    let mut stack = Stack::new().await;
    // Loupe's first user has an address a v3 user has too: that v3 user is skipped, and said so.
    stack.env.insert("LANGFUSE_INIT_USER_EMAIL".into(), langfuse_v3::CLASHING_EMAIL.into());
    stack.env.insert("LANGFUSE_INIT_USER_PASSWORD".into(), "loupe password".into());
    let source = langfuse_v3::source().await;
    let app = web(&stack.env).await;
    let loupe = stack.pg.pool().await;

    let dry = import(&stack.env, &source.url, &["--dry-run"]).await;
    assert!(dry.contains("dry run: nothing was written") && dry.contains("3 would be new"), "{dry}");
    assert!(
        dry.contains("skipped clash@acme.test: a Loupe user with another id has this email address"),
        "{dry}"
    );
    let prompts: i64 = sqlx::query_scalar("SELECT count(*) FROM prompts").fetch_one(&loupe).await.unwrap();
    assert_eq!(prompts, 0, "a dry run writes nothing");

    let report = import(&stack.env, &source.url, &[]).await;
    assert!(report.contains("job_executions                 2 rows, not imported: history"), "{report}");

    // The v3 project key opens the API: first by its bcrypt hash, then by Loupe's own.
    let key = basic(langfuse_v3::PUBLIC_KEY, langfuse_v3::SECRET_KEY);
    for _ in 0..2 {
        let (status, body) = call(&app, "GET", "/api/public/projects", &key, None).await;
        assert_eq!((status, &body["data"][0]["id"]), (200, &json!(langfuse_v3::PROJECT_ID)), "{body}");
    }
    let hash: String = sqlx::query_scalar("SELECT hashed_secret_key FROM api_keys WHERE public_key = $1")
        .bind(langfuse_v3::PUBLIC_KEY)
        .fetch_one(&loupe)
        .await
        .unwrap();
    assert!(!hash.starts_with("$2"), "re-hashed after its first use: {hash}");
    let wrong = basic(langfuse_v3::PUBLIC_KEY, "sk-lf-not-it");
    assert_eq!(call(&app, "GET", "/api/public/projects", &wrong, None).await.0, 401);
    let org_key = basic(langfuse_v3::ORG_PUBLIC_KEY, langfuse_v3::ORG_SECRET_KEY);
    let (status, body) = call(&app, "GET", "/api/public/organizations/projects", &org_key, None).await;
    assert_eq!(status, 200, "{body}");

    // What was imported reads back with its v3 ids.
    let (status, prompt) = call(&app, "GET", "/api/public/v2/prompts/greeting", &key, None).await;
    assert_eq!(
        (status, &prompt["version"], &prompt["config"]["model"]),
        (200, &json!(2), &json!("gpt-4o")),
        "{prompt}"
    );
    assert_eq!(prompt["id"], "pr-greet-2");
    let (status, chat) =
        call(&app, "GET", "/api/public/v2/prompts/support%2Fchat?label=production", &key, None).await;
    assert_eq!((status, &chat["type"]), (200, &json!("chat")), "{chat}");
    let (status, dataset) = call(&app, "GET", "/api/public/v2/datasets/qa", &key, None).await;
    assert_eq!((status, &dataset["id"]), (200, &json!("ds-qa")), "{dataset}");
    let (status, item) = call(&app, "GET", "/api/public/dataset-items/item-1", &key, None).await;
    assert_eq!((status, &item["input"]["q"]), (200, &json!("how do I reset my password?")), "{item}");
    for (path, id) in [
        ("/api/public/score-configs/sc-cat", "sc-cat"),
        ("/api/public/comments/cm-1", "cm-1"),
        ("/api/public/models/mdl-custom", "mdl-custom"),
        ("/api/public/annotation-queues/queue-1", "queue-1"),
        ("/api/public/unstable/dashboards/dash-1", "dash-1"),
        ("/api/public/media/media-png-0000000000001", "media-png-0000000000001"),
    ] {
        let (status, body) = call(&app, "GET", path, &key, None).await;
        let found = body.get("id").or_else(|| body.get("mediaId"));
        assert_eq!((status, found), (200, Some(&json!(id))), "{path}: {body}");
    }

    // v3's templates and jobs as evaluators and rules; its export as an integration (the org's key).
    let (status, evaluator) = call(&app, "GET", "/api/public/v2/evaluators/et-1", &key, None).await;
    assert_eq!(
        (status, &evaluator["name"], &evaluator["version"], &evaluator["versionId"]),
        (200, &json!("hallucination"), &json!(2), &json!("et-2")),
        "{evaluator}"
    );
    assert_eq!(evaluator["modelConfig"]["model"], "gpt-4o-mini", "{evaluator}");
    // A v3 trace job is a trace-level rule: shown stopped in this stack's `events_only`.
    let (status, rule) = call(&app, "GET", "/api/public/v2/evaluation-rules/jc-1", &key, None).await;
    assert_eq!(
        (status, &rule["target"], &rule["status"], &rule["evaluatorAssignments"][0]["evaluatorId"]),
        (200, &json!("trace"), &json!("inactive"), &json!("et-1")),
        "{rule}"
    );
    assert_eq!(rule["delaySeconds"], 30, "{rule}");
    let (status, rules) = call(&app, "GET", "/api/public/v2/evaluation-rules", &key, None).await;
    assert_eq!((status, rules["data"].as_array().map(Vec::len)), (200, Some(2)), "{rules}");
    let (status, exports) = call(&app, "GET", "/api/public/integrations/blob-storage", &org_key, None).await;
    assert_eq!(
        (status, &exports["data"][0]["projectId"], &exports["data"][0]["exportMode"]),
        (200, &json!(langfuse_v3::PROJECT_ID), &json!("FROM_TODAY")),
        "{exports}"
    );

    // The v3 password signs in; its bcrypt hash becomes argon2id.
    let mut pat = Browser::default();
    let credentials = json!({"email": langfuse_v3::PASSWORD_EMAIL, "password": langfuse_v3::PASSWORD});
    pat.expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials.clone())).await;
    let hash: String = sqlx::query_scalar("SELECT password_hash FROM users WHERE id = 'u-pw'")
        .fetch_one(&loupe)
        .await
        .unwrap();
    assert!(hash.starts_with("$argon2id$"), "{hash}");
    Browser::default().expect(&app, 200, "POST", "/api/ui/auth/sign-in", Some(credentials)).await;
    let me = pat.expect(&app, 200, "GET", "/api/ui/me", None).await;
    assert_eq!(me["user"]["id"], "u-pw", "{me}");

    // A re-run finds everything in place, and does not put the old hashes back.
    let again = import(&stack.env, &source.url, &[]).await;
    for line in again.lines().filter(|l| l.contains(" read, ")) {
        assert!(line.contains(" 0 new, 0 changed,"), "a re-run changes nothing: {line}\n{again}");
    }
    let (status, _) = call(&app, "GET", "/api/public/projects", &key, None).await;
    assert_eq!(status, 200);
    let hash: String = sqlx::query_scalar("SELECT password_hash FROM users WHERE id = 'u-pw'")
        .fetch_one(&loupe)
        .await
        .unwrap();
    assert!(hash.starts_with("$argon2id$"), "{hash}");
}
