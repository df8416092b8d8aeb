//! The chart as Helm renders it, and every deployment file against its schema. `validate.py` (run
//! once, with the tools `just deploy-tools` installs into .local/deploy-venv) renders the chart with
//! Helm's own Go SDK for several value sets, validates each manifest against the Kubernetes 1.27 and 1.37
//! OpenAPI schemas (strict), lints the chart, and validates the compose files against the compose-spec
//! schema. This test then resolves each container's environment the way the kubelet would (ConfigMap,
//! then `env`, secrets from a stand-in Secret) and runs Loupe's real configuration validation on it.

#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use common::{START_MODES, STUCK_QUERY, WEB_HEALTH, WORKER_HEALTH, WORKER_LIVE, expected};
use deploy_check::{Env, repo_root};
use domain::config::{Role, SETTINGS};
use serde_json::{Value as J, json};

const KUBE_VERSIONS: [&str; 2] = ["1.27.0", "1.37.0"];
const RELEASE: &str = "loupe";

/// Values every scenario starts from: the required external services.
fn base_values() -> J {
    json!({
        "clickhouse": {"url": "http://clickhouse.db:8123", "user": "loupe"},
        "s3": {"bucket": "loupe-events", "endpoint": "http://s3.storage:8333", "accessKeyId": "loupe", "forcePathStyle": true},
    })
}

/// The Secret an operator would create, under the chart's default key names.
fn default_secret() -> BTreeMap<String, String> {
    [
        ("DATABASE_URL", "postgres://loupe:pw@postgres.db:5432/loupe"),
        ("CLICKHOUSE_PASSWORD", "ch-pw"),
        ("REDIS_CONNECTION_STRING", "redis://:pw@redis.db:6379/0"),
        ("LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY", "s3-secret"),
        ("SALT", "salt"),
        ("ADMIN_API_KEY", "admin"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}

/// Every values key that feeds a setting, set away from its default, with the environment expected.
fn everything() -> (J, BTreeMap<String, String>, Env) {
    let values = json!({
        "migration": {"writeMode": "dual", "nativeOtelBehaviour": "dual_write", "allowPreviewOptIn": false,
                      "enableHistoricBackfill": true, "dropPidTidSortingTables": true, "propagationStuckThresholdMinutes": 30},
        "listenAddress": "::",
        "uiDir": "/srv/loupe-ui",
        "httpLimits": {"headerReadTimeoutMs": 5000, "bodyReadTimeoutMs": 30000, "maxConcurrentRequests": 64,
                       "concurrencyWaitMs": 0},
        "clickhouse": {"url": "https://ch.example:8443", "user": "loupe", "database": "loupe_db",
                       "cluster": {"enabled": true, "name": "c1"}},
        "redis": {"host": "redis.db", "port": 6380, "keyPrefix": "lp:"},
        "s3": {"bucket": "events", "region": "eu-west-1", "endpoint": "https://s3.example", "accessKeyId": "AKIA",
               "forcePathStyle": true, "prefix": "raw/"},
        "eventUploadLocalDir": {"path": "/var/lib/loupe/events", "existingClaim": "loupe-events"},
        "media": {"maxContentLength": 5_000_000, "urlExpirySeconds": 600},
        "ingestion": {"maxBodyBytes": 1_048_576, "otelResourceAttributesMaxCopiedBytes": 4_194_304, "queueMaxDepth": 1000, "blobWriters": 3, "queueInlineMaxBytes": 0, "queueInlineTotalBytes": 1_000_000, "batchMaxRows": 5000, "flushIntervalMs": 500,
                      "claimIdleSeconds": 120, "batchMaxBytes": 1_000_000, "maxAttempts": 7, "evalMaxConcurrencyPerProject": 3,
                      "evalLlmTimeoutSeconds": 45},
        "migrationJobs": {"enableBackgroundMigrations": false, "propagationPartitionDelayMinutes": 5,
                          "propagationIntervalSeconds": 30, "propagationExcludeProjectIds": "p9",
                          "propagationMaxInsertThreads": 4, "backfillChunkRows": 10000, "backfillMaxMemoryMb": 2048,
                          "backfillPauseMs": 100, "backfillExperimentBatchTraces": 100,
                          "retentionIntervalSeconds": 600, "retentionPauseMs": 250},
        "init": {"orgId": "acme", "orgName": "Acme", "projectId": "p1", "projectName": "P One", "projectPublicKey": "pk-lf-123",
                 "userEmail": "ada@acme.test", "userName": "Ada"},
        "auth": {"disableSignup": true, "sessionMaxAge": 60},
        "monitors": {"pollIntervalMs": 250, "maxPerTick": 7, "githubApiUrl": "https://ghe.example/api/v3"},
        "outbound": {"allowedHosts": "10.0.0.0/8,llm.internal"},
        "logging": {"level": "debug", "format": "json"},
        "metrics": {"enabled": false},
        "web": {"port": 8080, "grpcPort": 14317, "service": {"port": 80, "grpcPort": 4317}},
        "worker": {"port": 9030},
        "secrets": {"existingSecret": "loupe-secrets", "keys": {
            "databaseUrl": "db-url", "clickhousePassword": "ch-pw", "redisConnectionString": "redis-url",
            "redisAuth": "redis-pw", "s3SecretAccessKey": "s3-key", "salt": "salt", "adminApiKey": "admin",
            "encryptionKey": "enc", "initProjectSecretKey": "init-sk", "initUserPassword": "init-pw"}},
    });
    let secret = [
        ("db-url", "postgres://loupe:pw@pg:5432/loupe"),
        ("ch-pw", "ch-secret"),
        ("redis-url", "redis://:pw@redis.db:6380/0"),
        ("redis-pw", "pw"),
        ("s3-key", "s3-secret"),
        ("salt", "pepper"),
        ("admin", "admin-token"),
        ("enc", "0f0e0d0c0b0a09080706050403020100f0e0d0c0b0a090807060504030201000"),
        ("init-sk", "sk-lf-456"),
        ("init-pw", "correct horse battery"),
    ];
    let expected = [
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual"),
        ("LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR", "dual_write"),
        ("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN", "false"),
        ("LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL", "true"),
        ("LANGFUSE_BACKGROUND_MIGRATION_V4_DROP_PID_TID_SORTING_TABLES", "true"),
        ("LANGFUSE_EVENT_PROPAGATION_STUCK_THRESHOLD_MINUTES", "30"),
        ("PORT", "8080"),
        ("LANGFUSE_LISTEN_ADDRESS", "::"),
        ("LANGFUSE_UI_DIR", "/srv/loupe-ui"),
        ("LANGFUSE_OTEL_GRPC_PORT", "14317"),
        ("LANGFUSE_HTTP_HEADER_READ_TIMEOUT_MS", "5000"),
        ("LANGFUSE_HTTP_BODY_READ_TIMEOUT_MS", "30000"),
        ("LANGFUSE_HTTP_MAX_CONCURRENT_REQUESTS", "64"),
        ("LANGFUSE_HTTP_CONCURRENCY_WAIT_MS", "0"),
        ("DATABASE_URL", "postgres://loupe:pw@pg:5432/loupe"),
        ("CLICKHOUSE_URL", "https://ch.example:8443"),
        ("CLICKHOUSE_USER", "loupe"),
        ("CLICKHOUSE_PASSWORD", "ch-secret"),
        ("CLICKHOUSE_DB", "loupe_db"),
        ("CLICKHOUSE_CLUSTER_ENABLED", "true"),
        ("CLICKHOUSE_CLUSTER_NAME", "c1"),
        ("REDIS_CONNECTION_STRING", "redis://:pw@redis.db:6380/0"),
        ("REDIS_HOST", "redis.db"),
        ("REDIS_PORT", "6380"),
        ("REDIS_AUTH", "pw"),
        ("LANGFUSE_REDIS_KEY_PREFIX", "lp:"),
        ("LANGFUSE_S3_EVENT_UPLOAD_BUCKET", "events"),
        ("LANGFUSE_S3_EVENT_UPLOAD_REGION", "eu-west-1"),
        ("LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT", "https://s3.example"),
        ("LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID", "AKIA"),
        ("LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY", "s3-secret"),
        ("LANGFUSE_S3_EVENT_UPLOAD_FORCE_PATH_STYLE", "true"),
        ("LANGFUSE_S3_EVENT_UPLOAD_PREFIX", "raw/"),
        ("LANGFUSE_EVENT_UPLOAD_LOCAL_DIR", "/var/lib/loupe/events"),
        ("LANGFUSE_S3_MEDIA_MAX_CONTENT_LENGTH", "5000000"),
        ("LANGFUSE_S3_MEDIA_DOWNLOAD_URL_EXPIRY_SECONDS", "600"),
        ("LANGFUSE_INGESTION_MAX_BODY_BYTES", "1048576"),
        ("LANGFUSE_OTEL_RESOURCE_ATTRIBUTES_MAX_COPIED_BYTES", "4194304"),
        ("LANGFUSE_INGESTION_QUEUE_MAX_DEPTH", "1000"),
        ("LANGFUSE_INGESTION_BLOB_WRITERS", "3"),
        ("LANGFUSE_INGESTION_QUEUE_INLINE_MAX_BYTES", "0"),
        ("LANGFUSE_INGESTION_QUEUE_INLINE_TOTAL_BYTES", "1000000"),
        ("LANGFUSE_INGESTION_BATCH_MAX_ROWS", "5000"),
        ("LANGFUSE_INGESTION_BATCH_MAX_BYTES", "1000000"),
        ("LANGFUSE_INGESTION_MAX_ATTEMPTS", "7"),
        ("LANGFUSE_INGESTION_FLUSH_INTERVAL_MS", "500"),
        ("LANGFUSE_INGESTION_CLAIM_IDLE_SECONDS", "120"),
        ("LANGFUSE_EVAL_MAX_CONCURRENCY_PER_PROJECT", "3"),
        ("LANGFUSE_EVAL_LLM_TIMEOUT_SECONDS", "45"),
        ("LANGFUSE_ENABLE_BACKGROUND_MIGRATIONS", "false"),
        ("LANGFUSE_EXPERIMENT_EVENT_PROPAGATION_PARTITION_DELAY_MINUTES", "5"),
        ("LANGFUSE_EVENT_PROPAGATION_INTERVAL_SECONDS", "30"),
        ("LANGFUSE_EVENT_PROPAGATION_EXCLUDE_PROJECT_IDS", "p9"),
        ("LANGFUSE_EVENT_PROPAGATION_MAX_INSERT_THREADS", "4"),
        ("LANGFUSE_BACKFILL_CHUNK_ROWS", "10000"),
        ("LANGFUSE_BACKFILL_MAX_MEMORY_MB", "2048"),
        ("LANGFUSE_BACKFILL_PAUSE_MS", "100"),
        ("LANGFUSE_BACKFILL_EXPERIMENT_BATCH_TRACES", "100"),
        ("LANGFUSE_RETENTION_INTERVAL_SECONDS", "600"),
        ("LANGFUSE_RETENTION_PAUSE_MS", "250"),
        ("LANGFUSE_INIT_ORG_ID", "acme"),
        ("LANGFUSE_INIT_ORG_NAME", "Acme"),
        ("LANGFUSE_INIT_PROJECT_ID", "p1"),
        ("LANGFUSE_INIT_PROJECT_NAME", "P One"),
        ("LANGFUSE_INIT_PROJECT_PUBLIC_KEY", "pk-lf-123"),
        ("LANGFUSE_INIT_PROJECT_SECRET_KEY", "sk-lf-456"),
        ("LANGFUSE_INIT_USER_EMAIL", "ada@acme.test"),
        ("LANGFUSE_INIT_USER_NAME", "Ada"),
        ("LANGFUSE_INIT_USER_PASSWORD", "correct horse battery"),
        ("AUTH_DISABLE_SIGNUP", "true"),
        ("LANGFUSE_OUTBOUND_ALLOWED_HOSTS", "10.0.0.0/8,llm.internal"),
        ("AUTH_SESSION_MAX_AGE", "60"),
        ("SALT", "pepper"),
        ("ADMIN_API_KEY", "admin-token"),
        ("ENCRYPTION_KEY", "0f0e0d0c0b0a09080706050403020100f0e0d0c0b0a090807060504030201000"),
        ("LANGFUSE_MONITORS_POLL_INTERVAL_MS", "250"),
        ("LANGFUSE_MONITORS_MAX_PER_TICK", "7"),
        ("LANGFUSE_MONITORS_GITHUB_API_URL", "https://ghe.example/api/v3"),
        ("LANGFUSE_LOG_LEVEL", "debug"),
        ("LANGFUSE_LOG_FORMAT", "json"),
        ("LANGFUSE_METRICS_ENABLED", "false"),
    ];
    let own =
        |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    (values, own(&secret), own(&expected))
}

fn merge(mut base: J, extra: J) -> J {
    if let (J::Object(base_map), J::Object(extra_map)) = (&mut base, extra.clone()) {
        for (key, value) in extra_map {
            let merged = match base_map.remove(&key) {
                Some(existing) => merge(existing, value),
                None => value,
            };
            base_map.insert(key, merged);
        }
        return base;
    }
    extra
}

fn scenarios() -> Vec<J> {
    let mut list = vec![
        json!({"name": "base", "values": base_values()}),
        json!({"name": "no-values", "values": {}}),
        json!({"name": "stuck-probe", "values": merge(base_values(), json!({"worker": {"propagationStuckProbe": {"enabled": true}}}))}),
        json!({"name": "cluster", "values": merge(base_values(), json!({"clickhouse": {"cluster": {"enabled": true, "name": "loupe_cluster"}}}))}),
        json!({"name": "everything", "values": everything().0}),
        json!({"name": "wrong-legacy-backfill", "values_files": ["deploy/helm/start-modes/legacy.yaml"],
               "values": merge(base_values(), json!({"migration": {"enableHistoricBackfill": true}}))}),
        json!({"name": "bad-write-mode", "values": merge(base_values(), json!({"migration": {"writeMode": "Dual"}}))}),
        json!({"name": "bad-env-entry", "values": merge(base_values(), json!({"extraEnv": [{"name": "X", "valuee": "1"}]}))}),
    ];
    for mode in START_MODES {
        list.push(json!({"name": format!("mode-{}", mode.name), "values_files": [mode.helm], "values": base_values()}));
    }
    list
}

/// Runs validate.py once.
fn run_validator() -> J {
    let root = repo_root();
    let python = root.join(".local/deploy-venv/bin/python");
    assert!(
        python.exists(),
        "deploy/check needs its tools: run `just deploy-tools` (installs deploy/check/requirements.txt into .local/deploy-venv)"
    );
    let request = json!({
        "chart": "deploy/helm/loupe",
        "release": RELEASE,
        "namespace": "observability",
        "kube_versions": KUBE_VERSIONS,
        "scenarios": scenarios(),
        "compose_files": ["deploy/compose.yaml", "deploy/compose.default.yaml", "deploy/compose.dual.yaml", "deploy/compose.legacy.yaml"],
    });
    let mut child = Command::new(&python)
        .arg("deploy/check/validate.py")
        .current_dir(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(request.to_string().as_bytes()).unwrap();
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "validate.py failed ({}); if a module is missing, run `just deploy-tools`:\n{stderr}",
        output.status
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

struct Rendered<'a> {
    name: String,
    manifests: &'a [J],
}

impl Rendered<'_> {
    fn find(&self, kind: &str, component: &str) -> &J {
        self.manifests
            .iter()
            .find(|m| {
                m["kind"] == kind && m["metadata"]["labels"]["app.kubernetes.io/component"] == component
            })
            .unwrap_or_else(|| panic!("{}: no {kind} for {component}", self.name))
    }

    fn container(&self, component: &str) -> &J {
        let deployment = self.find("Deployment", component);
        let containers = deployment["spec"]["template"]["spec"]["containers"].as_array().unwrap();
        assert_eq!(containers.len(), 1, "{}: one container per pod", self.name);
        &containers[0]
    }

    /// The container's environment as the kubelet builds it: the image's ENV, then envFrom (the
    /// ConfigMap), then `env` in order, secrets read from `secret` (a Secret named `secret_name`).
    fn env(
        &self,
        component: &str,
        secret_name: &str,
        secret: &BTreeMap<String, String>,
    ) -> Result<Env, String> {
        let container = self.container(component);
        let mut env = Env::new();
        env.insert("LANGFUSE_LISTEN_ADDRESS".to_owned(), "0.0.0.0".to_owned()); // Dockerfile ENV
        for source in container["envFrom"].as_array().unwrap() {
            let name = &source["configMapRef"]["name"];
            let map = self
                .manifests
                .iter()
                .find(|m| m["kind"] == "ConfigMap" && &m["metadata"]["name"] == name)
                .ok_or_else(|| format!("no ConfigMap {name}"))?;
            for (key, value) in map["data"].as_object().unwrap() {
                env.insert(key.clone(), value.as_str().unwrap().to_owned());
            }
        }
        for entry in container["env"].as_array().unwrap() {
            let name = entry["name"].as_str().unwrap().to_owned();
            if let Some(value) = entry.get("value") {
                env.insert(name, value.as_str().unwrap().to_owned());
                continue;
            }
            let reference = &entry["valueFrom"]["secretKeyRef"];
            assert_eq!(reference["name"], secret_name, "{}: {name} reads the named Secret", self.name);
            let key = reference["key"].as_str().unwrap();
            match secret.get(key) {
                Some(value) => {
                    env.insert(name, value.clone());
                }
                None if reference["optional"] == true => {}
                None => {
                    return Err(format!(
                        "{name}: key {key} missing from the Secret; the pod would not start"
                    ));
                }
            }
        }
        Ok(env)
    }
}

const COMPONENTS: [(&str, Role); 2] = [("web", Role::Web), ("worker", Role::Worker)];

#[test]
fn chart_and_compose_files_render_and_validate_against_their_schemas() {
    let answer = run_validator();
    let tools = &answer["tools"];
    println!("tools: {tools}");
    assert!(tools["helm-sdk"].as_str().unwrap().starts_with("v4."), "{tools}");

    // helm lint: nothing above INFO.
    assert_eq!(answer["lint"]["errors"], json!([]), "helm lint: {}", answer["lint"]);
    let serious: Vec<&J> = answer["lint"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["severity"].as_u64() > Some(1))
        .collect();
    assert!(serious.is_empty(), "helm lint: {serious:?}");

    // compose-spec schema.
    assert_eq!(answer["compose"]["ok"], true, "compose-spec validation: {}", answer["compose"]["output"]);

    let scenario = |name: &str| -> &J { &answer["scenarios"][name] };
    let rendered = |name: &str| -> Rendered<'_> {
        let s = scenario(name);
        assert!(s["error"].is_null(), "{name}: helm template failed: {}", s["error"]);
        let k8s = s["k8s_errors"].as_array().unwrap();
        assert!(k8s.is_empty(), "{name}: Kubernetes schema errors: {k8s:#?}");
        Rendered { name: name.to_owned(), manifests: s["manifests"].as_array().unwrap() }
    };

    // Required values fail the install with a message naming the value.
    let error = scenario("no-values")["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("s3.bucket is required") || error.contains("clickhouse.url is required"),
        "{error}"
    );
    // values.schema.json refuses a misspelled write mode before anything is deployed.
    let error = scenario("bad-write-mode")["error"].as_str().unwrap_or_default();
    assert!(error.contains("/migration/writeMode"), "{error}");
    // The Kubernetes validation is strict: an unknown field in an env entry is caught.
    let k8s = scenario("bad-env-entry")["k8s_errors"].as_array().unwrap();
    assert!(k8s.iter().any(|e| e.as_str().unwrap().contains("valuee")), "{k8s:?}");

    let base = rendered("base");
    resources_are_complete(&base);
    ports_and_probes_match_what_the_binaries_serve(&base);
    let secret = default_secret();
    for (component, role) in COMPONENTS {
        let env = base.env(component, RELEASE, &secret).unwrap();
        let config = common::validate(role, &env).unwrap_or_else(|e| panic!("base {component}: {e}"));
        let m = &config.migration;
        let actual = (m.write_mode, m.otel_behaviour, m.allow_preview_opt_in, m.enable_historic_backfill);
        assert_eq!(actual, expected("default"), "chart defaults = start mode default");
    }

    for mode in START_MODES {
        let name = format!("mode-{}", mode.name);
        let rendered = rendered(&name);
        for (component, role) in COMPONENTS {
            let env = rendered.env(component, RELEASE, &secret).unwrap();
            let config = common::validate(role, &env).unwrap_or_else(|e| panic!("{name} {component}: {e}"));
            let m = &config.migration;
            let actual = (m.write_mode, m.otel_behaviour, m.allow_preview_opt_in, m.enable_historic_backfill);
            assert_eq!(actual, expected(mode.name), "{name} ({component})");
        }
    }

    let wrong = rendered("wrong-legacy-backfill");
    for (component, role) in COMPONENTS {
        let env = wrong.env(component, RELEASE, &secret).unwrap();
        let problems = common::refused_variables(role, &env);
        let named =
            ["LANGFUSE_MIGRATION_V4_WRITE_MODE", "LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL"];
        assert!(problems.iter().any(|p| p == &named), "{component}: {problems:?}");
    }

    let stuck = rendered("stuck-probe");
    let worker = stuck.container("worker");
    assert_eq!(worker["readinessProbe"]["httpGet"]["path"], format!("{WORKER_HEALTH}?{STUCK_QUERY}"));
    assert_eq!(
        worker["livenessProbe"]["httpGet"]["path"], WORKER_LIVE,
        "liveness never restarts on a stuck job"
    );

    let cluster = rendered("cluster");
    for (component, role) in COMPONENTS {
        let config = common::validate(role, &cluster.env(component, RELEASE, &secret).unwrap()).unwrap();
        assert_eq!(config.clickhouse.cluster.as_deref(), Some("loupe_cluster"), "{component}");
    }

    let (_, everything_secret, wanted) = everything();
    let all = rendered("everything");
    for (component, role) in COMPONENTS {
        let env = all.env(component, "loupe-secrets", &everything_secret).unwrap();
        for setting in SETTINGS.iter().filter(|s| common::deployed(s)) {
            let want = match (setting.name, role) {
                ("PORT", Role::Worker) => Some("9030"),
                ("LANGFUSE_OTEL_GRPC_PORT", Role::Worker) => None,
                (name, _) => Some(wanted[name].as_str()),
            };
            assert_eq!(
                env.get(setting.name).map(String::as_str),
                want,
                "everything/{component}: {}",
                setting.name
            );
        }
        let config = common::validate(role, &env).unwrap_or_else(|e| panic!("everything {component}: {e}"));
        assert!(config.bootstrap.is_some());
        let mounts = all.container(component)["volumeMounts"].as_array().unwrap();
        assert!(
            mounts.iter().any(|m| m["mountPath"] == "/var/lib/loupe/events"),
            "{component}: shared payload dir"
        );
    }
    for (component, _) in COMPONENTS {
        let annotations = &all.find("Deployment", component)["spec"]["template"]["metadata"]["annotations"];
        assert!(annotations.get("prometheus.io/scrape").is_none(), "everything/{component}: metrics are off");
    }
    let web_service = all.find("Service", "web");
    assert_eq!(web_service["spec"]["ports"][0]["port"], 80);
    assert_eq!(all.container("web")["ports"][0]["containerPort"], 8080, "the container listens on web.port");
}

fn resources_are_complete(rendered: &Rendered<'_>) {
    let mut kinds: Vec<String> =
        rendered.manifests.iter().map(|m| m["kind"].as_str().unwrap().to_owned()).collect();
    kinds.sort();
    assert_eq!(kinds, ["ConfigMap", "Deployment", "Deployment", "Service", "Service"]);
    for (component, _) in COMPONENTS {
        let deployment = rendered.find("Deployment", component);
        let selector = deployment["spec"]["selector"]["matchLabels"].as_object().unwrap();
        let pod_labels = &deployment["spec"]["template"]["metadata"]["labels"];
        let service = rendered.find("Service", component);
        for (key, value) in selector {
            assert_eq!(&pod_labels[key], value, "{component}: the selector matches the pods");
            assert_eq!(&service["spec"]["selector"][key], value, "{component}: the Service selects the pods");
        }
        let pod = &deployment["spec"]["template"]["spec"];
        assert_eq!(pod["enableServiceLinks"], false);
        assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
        assert!(deployment["spec"]["template"]["metadata"]["annotations"]["checksum/config"].is_string());
    }
}

fn ports_and_probes_match_what_the_binaries_serve(rendered: &Rendered<'_>) {
    let ports = common::default_ports();
    let port_named = |container: &J, name: &str| -> J {
        container["ports"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap()["containerPort"]
            .clone()
    };
    let web = rendered.container("web");
    assert_eq!(port_named(web, "http"), ports.web_http);
    assert_eq!(port_named(web, "grpc"), ports.web_grpc);
    for probe in ["startupProbe", "readinessProbe", "livenessProbe"] {
        assert_eq!(web[probe]["httpGet"]["path"], WEB_HEALTH, "web {probe}");
        assert_eq!(web[probe]["httpGet"]["port"], "http", "web {probe}");
    }
    let worker = rendered.container("worker");
    assert_eq!(port_named(worker, "http"), ports.worker_http);
    for (probe, path) in
        [("startupProbe", WORKER_HEALTH), ("readinessProbe", WORKER_HEALTH), ("livenessProbe", WORKER_LIVE)]
    {
        assert_eq!(worker[probe]["httpGet"]["path"], path, "worker {probe}");
        assert_eq!(worker[probe]["httpGet"]["port"], "http", "worker {probe}");
    }
    let web_service = rendered.find("Service", "web");
    let service_ports: Vec<(J, J, J)> = web_service["spec"]["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].clone(), p["port"].clone(), p["targetPort"].clone()))
        .collect();
    assert_eq!(
        service_ports,
        [
            (json!("http"), json!(ports.web_http), json!("http")),
            (json!("grpc"), json!(ports.web_grpc), json!("grpc"))
        ]
    );
    let worker_service = rendered.find("Service", "worker");
    assert_eq!(worker_service["spec"]["ports"][0]["port"], ports.worker_http);
    assert_eq!(worker_service["spec"]["ports"][0]["targetPort"], "http");
    // A Prometheus that discovers pods by annotation scrapes /metrics on each binary's HTTP port.
    for (component, port) in [("web", ports.web_http), ("worker", ports.worker_http)] {
        let annotations =
            &rendered.find("Deployment", component)["spec"]["template"]["metadata"]["annotations"];
        assert_eq!(annotations["prometheus.io/scrape"], "true", "{component}");
        assert_eq!(annotations["prometheus.io/port"], port.to_string(), "{component}");
        assert_eq!(annotations["prometheus.io/path"], "/metrics", "{component}");
    }
}
