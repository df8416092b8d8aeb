//! The web UI (`ui/`) served by a real web, with a worker, on a fresh stack: how web serves the
//! built files, then the Playwright suite (`ui/e2e/`) in Debian's chromium. `just test` builds the
//! UI (`npm ci`, `npm run build`) before the tests; the specs save a screenshot of every page they
//! visit into `ui/test-results/screenshots/`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use reqwest::header::{ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE};
use tokio::process::Command;

use crate::api::Api;
use crate::apps::{PUBLIC_KEY, SECRET_KEY, http};

const EMAIL: &str = "first@example.com";
const PASSWORD: &str = "first user's password";
const PROJECT_ID: &str = "project-blackbox";
const PROJECT_NAME: &str = "Blackbox";

fn ui_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui")
}

#[tokio::test]
async fn the_web_ui_is_served_and_works_in_a_browser() {
    let ui = ui_dir();
    let dist = ui.join("dist");
    assert!(
        dist.join("index.html").is_file(),
        "{} is not built: `cd ui && npm ci && npm run build` (`just test` does it)",
        dist.display()
    );
    let dist_text = dist.to_str().unwrap();
    let api = Api::start(&[
        ("LANGFUSE_UI_DIR", dist_text),
        ("LANGFUSE_INIT_USER_EMAIL", EMAIL),
        ("LANGFUSE_INIT_USER_NAME", "First User"),
        ("LANGFUSE_INIT_USER_PASSWORD", PASSWORD),
        // LLM connections' keys, monitors' channel secrets and export credentials are stored
        // encrypted; evaluations are picked up within 200 ms of "Evaluate now" (e2e/monitors.spec.ts).
        ("ENCRYPTION_KEY", &"ab".repeat(32)),
        ("LANGFUSE_MONITORS_POLL_INTERVAL_MS", "200"),
    ])
    .await;
    // The judge the evaluators spec's connection points at (loopback is allowed in the harness).
    let judge = test_support::llm_stub::LlmStub::start().await;
    judge.set_default(test_support::llm_stub::StubReply::json(
        serde_json::json!({"score": 0.8, "reasoning": "The answer is mostly right."}),
    ));
    let _worker = api.worker().await;
    let failed_step = crate::ui_fixtures::fail_a_backfill_step(&api.stack).await;
    serves_the_build(&api.web.base_url).await;

    // `LOUPE_UI_SPECS="e2e/a.spec.ts e2e/b.spec.ts"` runs only those, while working on a page.
    let only = test_support::run_option("LOUPE_UI_SPECS").unwrap_or_default();
    let only: Vec<&str> = only.split_whitespace().collect();
    let judge_url = judge.openai_base_url();
    // The stack's own S3-compatible store stands in for a customer's bucket (e2e/exports.spec.ts).
    let s3 = |name: &str| {
        api.stack.env.get(&format!("LANGFUSE_S3_EVENT_UPLOAD_{name}")).cloned().unwrap_or_default()
    };
    let (endpoint, bucket, key_id, secret) =
        (s3("ENDPOINT"), s3("BUCKET"), s3("ACCESS_KEY_ID"), s3("SECRET_ACCESS_KEY"));
    let env = [
        ("LOUPE_FAILED_MIGRATION", failed_step),
        ("LOUPE_LLM_STUB_URL", judge_url.as_str()),
        ("LOUPE_S3_ENDPOINT", endpoint.as_str()),
        ("LOUPE_S3_BUCKET", bucket.as_str()),
        ("LOUPE_S3_ACCESS_KEY_ID", key_id.as_str()),
        ("LOUPE_S3_SECRET_ACCESS_KEY", secret.as_str()),
    ];
    run_specs(&api, &env, &only).await;
}

/// Runs the Playwright specs (all, or those `args` select) against `api`'s web; `env` reaches the
/// specs (`LOUPE_WRITE_MODE` tells a spec which write mode the web runs in).
async fn run_specs(api: &Api, env: &[(&str, &str)], args: &[&str]) {
    let ui = ui_dir();
    let started = Instant::now();
    let output = Command::new(ui.join("node_modules/.bin/playwright"))
        .arg("test")
        .args(args)
        .current_dir(&ui)
        .env("LOUPE_BASE_URL", &api.web.base_url)
        .env("LOUPE_USER_EMAIL", EMAIL)
        .env("LOUPE_USER_PASSWORD", PASSWORD)
        .env("LOUPE_PROJECT_ID", PROJECT_ID)
        .env("LOUPE_PROJECT_NAME", PROJECT_NAME)
        .env("LOUPE_PUBLIC_KEY", PUBLIC_KEY)
        .env("LOUPE_SECRET_KEY", SECRET_KEY)
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .env("CI", "1")
        .envs(env.iter().copied())
        .kill_on_drop(true)
        .output()
        .await
        .expect("ui/node_modules is installed (`cd ui && npm ci`; `just test` does it)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the browser tests failed ({:?}):\n{stdout}\n{stderr}\nweb:\n{}",
        output.status,
        api.web.log_tail()
    );
    println!("{stdout}\nbrowser tests took {:?}", started.elapsed());
}

/// A web in write mode `mode` (with `extra` settings) and a worker, for the write-mode spec.
async fn web_in_mode(mode: &str, extra: &[(&str, &str)]) -> (Api, crate::apps::App) {
    let dist = ui_dir().join("dist");
    assert!(dist.join("index.html").is_file(), "{} is not built", dist.display());
    let mut env = vec![
        ("LANGFUSE_UI_DIR", dist.to_str().unwrap().to_owned()),
        ("LANGFUSE_INIT_USER_EMAIL", EMAIL.to_owned()),
        ("LANGFUSE_INIT_USER_NAME", "First User".to_owned()),
        ("LANGFUSE_INIT_USER_PASSWORD", PASSWORD.to_owned()),
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", mode.to_owned()),
    ];
    env.extend(extra.iter().map(|(k, v)| (*k, (*v).to_owned())));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let api = Api::start(&env).await;
    let worker = api.worker().await;
    (api, worker)
}

/// `legacy`: the v3 Traces and Observations tabs, no v4 preview toggle.
#[tokio::test]
async fn the_v3_views_show_in_legacy_mode() {
    let (api, _worker) = web_in_mode(
        "legacy",
        &[
            ("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN", "false"),
            ("LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL", "false"),
        ],
    )
    .await;
    run_specs(&api, &[("LOUPE_WRITE_MODE", "legacy")], &["e2e/write-modes.spec.ts"]).await;
}

/// `dual` with the preview opt-in: the **v4 preview** toggle switches each person's views.
#[tokio::test]
async fn the_v4_preview_toggle_switches_views_in_dual_mode() {
    let (api, _worker) = web_in_mode("dual", &[("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN", "true")]).await;
    run_specs(&api, &[("LOUPE_WRITE_MODE", "dual")], &["e2e/write-modes.spec.ts"]).await;
}

/// `dual`: the datasets pages, whose runs are the v3 experiment model (404 in `events_only`).
#[tokio::test]
async fn the_datasets_pages_compare_runs_in_dual_mode() {
    let (api, _worker) = web_in_mode("dual", &[("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN", "true")]).await;
    run_specs(&api, &[("LOUPE_WRITE_MODE", "dual")], &["e2e/datasets.spec.ts"]).await;
}

/// Pages get `index.html` (revalidated), hashed assets are cached for good and sent gzipped, API
/// paths keep their JSON 404.
async fn serves_the_build(base: &str) {
    let client = http();
    let page = client.get(format!("{base}/project/{PROJECT_ID}/observations")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()[CACHE_CONTROL], "no-cache");
    assert!(page.headers()[CONTENT_TYPE].to_str().unwrap().starts_with("text/html"));
    assert!(page.headers().contains_key("content-security-policy"));
    let html = page.text().await.unwrap();
    let script = html
        .split("src=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .filter(|src| src.starts_with("/assets/"))
        .unwrap_or_else(|| panic!("index.html names no hashed script: {html}"));

    let asset = client.get(format!("{base}{script}")).header(ACCEPT_ENCODING, "gzip").send().await.unwrap();
    assert_eq!(asset.status(), 200);
    assert_eq!(asset.headers()[CACHE_CONTROL], "public, max-age=31536000, immutable");
    assert_eq!(asset.headers()[CONTENT_ENCODING], "gzip", "the build's .gz sibling is served");
    let missing = client.get(format!("{base}/assets/not-there.js")).send().await.unwrap();
    assert_eq!(missing.status(), 404, "a missing asset is not index.html");

    let api = client.get(format!("{base}/api/public/no-such-route")).send().await.unwrap();
    assert_eq!(api.status(), 404);
    let body: serde_json::Value = api.json().await.unwrap();
    assert_eq!(body["message"], "No such endpoint: /api/public/no-such-route");
}
