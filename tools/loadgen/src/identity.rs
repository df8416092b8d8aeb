//! `loupe-bench identity`: the cost of who-is-asking on every request, and how fast a revoked key or
//! a deleted project stops working everywhere. Starts two webs (release builds) on the dev stack,
//! then measures: project-key requests (the SDKs' path, key cache warm), sign-ins (argon2id),
//! requests as a signed-in person through the public API (session + `X-Loupe-Project`), and, across
//! the two webs, the time from a key's or a project's deletion on one web to the first 401 on the
//! other (the key cache is evicted over Redis pub/sub, not waited out).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use futures::StreamExt;
use serde_json::{Value, json};

use crate::flags::{self, Common};
use crate::ingest::print_latency;
use crate::leftovers;
use crate::processes::{RunEnv, Running, free_port, run_env};

const PUBLIC_KEY: &str = "pk-lf-identity-bench";
const SECRET_KEY: &str = "sk-lf-identity-bench";
const ADMIN_KEY: &str = "identity-bench-admin-key-0123456789";
const PASSWORD: &str = "identity bench password";

pub struct Options {
    common: Common,
    requests: u64,
    concurrency: usize,
    sign_ins: u64,
    revocations: u64,
}

impl Options {
    pub fn from_args(args: impl Iterator<Item = String>) -> anyhow::Result<Self> {
        let (mut requests, mut concurrency, mut sign_ins, mut revocations) = (20_000, 32, 40, 20);
        let common = flags::parse(args, |flag| {
            match flag.name() {
                "--requests" => requests = flag.number()?,
                "--concurrency" => concurrency = flag.number()?,
                "--sign-ins" => sign_ins = flag.number()?,
                "--revocations" => revocations = flag.number()?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(Self { common, requests, concurrency, sign_ins, revocations })
    }
}

/// One request's headers and the status it must get.
#[derive(Clone)]
struct Call {
    method: reqwest::Method,
    path: String,
    headers: Vec<(String, String)>,
    body: Option<Value>,
}

impl Call {
    fn get(path: &str, headers: &[(&str, &str)]) -> Self {
        Self {
            method: reqwest::Method::GET,
            path: path.to_owned(),
            headers: headers.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
            body: None,
        }
    }

    async fn send(&self, client: &reqwest::Client, url: &str) -> anyhow::Result<reqwest::Response> {
        let mut request = client.request(self.method.clone(), format!("{url}{}", self.path));
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        if let Some(body) = &self.body {
            request = request.header("Content-Type", "application/json").body(body.to_string());
        }
        Ok(request.send().await?)
    }
}

/// Sends `call` `count` times, `concurrency` at a time; every answer must be `status`.
async fn repeat(
    client: &reqwest::Client,
    url: &str,
    call: Call,
    count: u64,
    concurrency: usize,
) -> anyhow::Result<(Vec<Duration>, f64)> {
    let call = Arc::new(call);
    let started = Instant::now();
    let results: Vec<anyhow::Result<Duration>> = futures::stream::iter(0..count)
        .map(|_| {
            let call = Arc::clone(&call);
            async move {
                let sent = Instant::now();
                let response = call.send(client, url).await?;
                let status = response.status();
                let _ = response.bytes().await?;
                if !status.is_success() {
                    bail!("{} {}: {status}", call.method, call.path);
                }
                Ok(sent.elapsed())
            }
        })
        .buffer_unordered(concurrency)
        .collect()
        .await;
    let seconds = started.elapsed().as_secs_f64();
    Ok((results.into_iter().collect::<anyhow::Result<Vec<_>>>()?, seconds))
}

fn report(label: &str, (latencies, seconds): (Vec<Duration>, f64), concurrency: usize) {
    println!(
        "{label}{} requests at concurrency {concurrency} in {seconds:.2} s = {:.0}/s",
        latencies.len(),
        latencies.len() as f64 / seconds
    );
    print_latency(label, latencies);
}

async fn json_call(
    client: &reqwest::Client,
    url: &str,
    method: reqwest::Method,
    path: &str,
    authorization: &str,
    body: Option<Value>,
) -> anyhow::Result<Value> {
    let mut request = client.request(method, format!("{url}{path}")).header("Authorization", authorization);
    if let Some(body) = body {
        request = request.header("Content-Type", "application/json").body(body.to_string());
    }
    let response = request.send().await?;
    let status = response.status();
    let text = response.text().await?;
    if !status.is_success() {
        bail!("{path}: {status} {text}");
    }
    Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn basic(public_key: &str, secret_key: &str) -> String {
    format!("Basic {}", STANDARD.encode(format!("{public_key}:{secret_key}")))
}

/// Polls `path` on `url` with `authorization` until it answers 401; the time that took.
async fn until_refused(
    client: &reqwest::Client,
    url: &str,
    path: &str,
    authorization: &str,
) -> anyhow::Result<Duration> {
    let started = Instant::now();
    loop {
        let status =
            client.get(format!("{url}{path}")).header("Authorization", authorization).send().await?.status();
        if status == reqwest::StatusCode::UNAUTHORIZED {
            return Ok(started.elapsed());
        }
        if started.elapsed() > Duration::from_secs(60) {
            bail!("{path} still answers {status} 60 s after the deletion");
        }
    }
}

async fn start_web(
    options: &Options,
    env: &BTreeMap<String, String>,
    name: &str,
    client: &reqwest::Client,
) -> anyhow::Result<Running> {
    let mut env = env.clone();
    env.insert("LANGFUSE_OTEL_GRPC_PORT".into(), free_port()?.to_string());
    let log = std::env::temp_dir().join(format!("loupe-bench-identity-{name}.log"));
    let mut web = Running::start(&options.common.bin_dir.join("web"), &env, free_port()?, log).await?;
    web.wait_healthy(client, "/api/public/health").await.with_context(|| name.to_owned())?;
    Ok(web)
}

pub async fn run(options: Options) -> anyhow::Result<()> {
    let RunEnv { mut env, run_id, database } =
        run_env(&options.common.stack_env, "identity", ("identity-bench", PUBLIC_KEY, SECRET_KEY))?;
    let email = format!("identity-bench-{run_id}@example.com");
    env.insert("ADMIN_API_KEY".into(), ADMIN_KEY.into());
    env.insert("LANGFUSE_INIT_USER_EMAIL".into(), email.clone());
    env.insert("LANGFUSE_INIT_USER_PASSWORD".into(), PASSWORD.into());
    let outcome = measure(&options, &env, &email).await;
    leftovers::remove(&env, &database).await;
    outcome
}

async fn measure(options: &Options, env: &BTreeMap<String, String>, email: &str) -> anyhow::Result<()> {
    let client = reqwest::Client::builder().pool_max_idle_per_host(options.concurrency).build()?;
    let a = start_web(options, env, "a", &client).await?;
    let b = start_web(options, env, "b", &client).await?;
    println!("identity benchmark (two webs from {}, dev stack)", options.common.bin_dir.display());

    let key = basic(PUBLIC_KEY, SECRET_KEY);
    let by_key = Call::get("/api/public/projects", &[("Authorization", &key)]);
    repeat(&client, &a.url, by_key.clone(), 200, 8).await?; // warms the key cache and the pools
    let measured = repeat(&client, &a.url, by_key, options.requests, options.concurrency).await?;
    report("  project key     ", measured, options.concurrency);

    let sign_in = Call {
        method: reqwest::Method::POST,
        path: "/api/ui/auth/sign-in".into(),
        headers: Vec::new(),
        body: Some(json!({"email": email, "password": PASSWORD})),
    };
    let measured = repeat(&client, &a.url, sign_in.clone(), options.sign_ins, 4).await?;
    report("  sign-in         ", measured, 4);

    let response = sign_in.send(&client, &a.url).await?;
    let cookie = response
        .headers()
        .get(reqwest::header::SET_COOKIE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .context("sign-in set no cookie")?
        .to_owned();
    let project = env["LANGFUSE_INIT_PROJECT_ID"].clone();
    let as_person = Call::get("/api/public/projects", &[("Cookie", &cookie), ("X-Loupe-Project", &project)]);
    repeat(&client, &a.url, as_person.clone(), 200, 8).await?;
    let measured = repeat(&client, &a.url, as_person, options.requests, options.concurrency).await?;
    report("  session + proj. ", measured, options.concurrency);
    let me = Call::get("/api/ui/me", &[("Cookie", &cookie)]);
    let measured = repeat(&client, &a.url, me, options.requests / 4, options.concurrency).await?;
    report("  GET /api/ui/me  ", measured, options.concurrency);

    revocations(options, &client, &a, &b).await
}

/// A key deleted on web `a` while web `b` holds it in its cache: the time until `b` refuses it. Then
/// the same for a deleted project's key.
async fn revocations(
    options: &Options,
    client: &reqwest::Client,
    a: &Running,
    b: &Running,
) -> anyhow::Result<()> {
    use reqwest::Method;
    let admin = format!("Bearer {ADMIN_KEY}");
    let org = json_call(
        client,
        &a.url,
        Method::POST,
        "/api/admin/organizations",
        &admin,
        Some(json!({"name": "bench"})),
    )
    .await?;
    let org_id = org["id"].as_str().context("organization id")?;
    let org_key = json_call(
        client,
        &a.url,
        Method::POST,
        &format!("/api/admin/organizations/{org_id}/apiKeys"),
        &admin,
        Some(json!({})),
    )
    .await?;
    let org_auth =
        basic(org_key["publicKey"].as_str().context("key")?, org_key["secretKey"].as_str().context("key")?);
    let project = json_call(
        client,
        &a.url,
        Method::POST,
        "/api/public/projects",
        &org_auth,
        Some(json!({"name": "revocations", "retention": 0})),
    )
    .await?;
    let project_id = project["id"].as_str().context("project id")?.to_owned();

    let mut key_times = Vec::new();
    for _ in 0..options.revocations {
        let keys = format!("/api/public/projects/{project_id}/apiKeys");
        let key =
            json_call(client, &a.url, Method::POST, &keys, &org_auth, Some(json!({"note": "bench"}))).await?;
        let auth =
            basic(key["publicKey"].as_str().context("key")?, key["secretKey"].as_str().context("key")?);
        // Cached on b.
        json_call(client, &b.url, Method::GET, "/api/public/projects", &auth, None).await?;
        let key_id = key["id"].as_str().context("key id")?;
        let deleted = Instant::now();
        json_call(client, &a.url, Method::DELETE, &format!("{keys}/{key_id}"), &org_auth, None).await?;
        until_refused(client, &b.url, "/api/public/projects", &auth).await?;
        key_times.push(deleted.elapsed());
    }
    print_latency(&format!("  key deleted on a → 401 on b ({} keys): ", key_times.len()), key_times);

    let mut project_times = Vec::new();
    for n in 0..options.revocations.min(10) {
        let project = json_call(
            client,
            &a.url,
            Method::POST,
            "/api/public/projects",
            &org_auth,
            Some(json!({"name": format!("doomed-{n}"), "retention": 0})),
        )
        .await?;
        let id = project["id"].as_str().context("project id")?;
        let key = json_call(
            client,
            &a.url,
            Method::POST,
            &format!("/api/public/projects/{id}/apiKeys"),
            &org_auth,
            Some(json!({})),
        )
        .await?;
        let auth =
            basic(key["publicKey"].as_str().context("key")?, key["secretKey"].as_str().context("key")?);
        json_call(client, &b.url, Method::GET, "/api/public/projects", &auth, None).await?;
        let deleted = Instant::now();
        json_call(client, &a.url, Method::DELETE, &format!("/api/public/projects/{id}"), &org_auth, None)
            .await?;
        until_refused(client, &b.url, "/api/public/projects", &auth).await?;
        project_times.push(deleted.elapsed());
    }
    print_latency(
        &format!("  project deleted on a → 401 on b ({} projects): ", project_times.len()),
        project_times,
    );
    for (name, web) in [("a", a), ("b", b)] {
        if let (Some(rss), Some(cpu)) = (web.peak_rss_mb(), web.cpu_seconds()) {
            println!("  web {name}           peak RSS {rss:.0} MB, CPU {cpu:.1} s");
        }
    }
    Ok(())
}
