//! deploy/compose.yaml and its start-mode overrides: they parse, run the images the spec names, expose
//! and probe what the binaries serve, give both services every setting, and each start mode is a
//! combination the real configuration code accepts (and a wrong one is refused).

#![allow(clippy::unwrap_used)]

mod common;

use common::expected;
use common::{START_MODES, STUCK_QUERY, WEB_HEALTH, WORKER_HEALTH};
use deploy_check::{Env, Value, interpolate, merged_service_env, normalise, read, scalar, yaml_file};
use domain::config::{Role, SETTINGS};

const BASE: &str = "deploy/compose.yaml";
const LOUPE: [(&str, Role); 2] = [("web", Role::Web), ("worker", Role::Worker)];

fn base() -> Value {
    yaml_file(BASE).unwrap()
}

fn service<'a>(file: &'a Value, name: &str) -> &'a Value {
    file.get("services").and_then(|s| s.get(name)).unwrap_or_else(|| panic!("no service {name}"))
}

fn strings(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::Sequence(items)) => items.iter().filter_map(scalar).collect(),
        Some(other) => scalar(other).into_iter().collect(),
        None => Vec::new(),
    }
}

/// A service's environment after `docker compose -f compose.yaml [-f override]`, no `.env`.
fn env_of(override_file: Option<&str>, name: &str) -> Env {
    let base = base();
    let mut files = vec![&base];
    let layer = override_file.map(|f| yaml_file(f).unwrap());
    files.extend(layer.as_ref());
    merged_service_env(&files, name, &Env::new()).unwrap()
}

#[test]
fn every_compose_file_parses_and_overrides_only_existing_services() {
    let base = base();
    let services = base.get("services").and_then(Value::as_mapping).unwrap();
    for name in ["web", "worker", "clickhouse", "postgres", "redis", "seaweedfs", "s3-init"] {
        assert!(services.contains_key(name), "compose.yaml has no service {name}");
    }
    for mode in START_MODES {
        let file = yaml_file(mode.compose).unwrap();
        let overridden = file.get("services").and_then(Value::as_mapping).unwrap();
        for name in overridden.keys() {
            assert!(services.contains_key(name), "{} overrides unknown service {name:?}", mode.compose);
        }
        for name in ["web", "worker"] {
            assert!(overridden.contains_key(name), "{} must set the migration env of {name}", mode.compose);
        }
    }
}

#[test]
fn images_are_the_versions_the_spec_recommends() {
    let base = base();
    let image = |name| scalar(service(&base, name).get("image").unwrap()).unwrap();
    assert_eq!(image("clickhouse"), "clickhouse/clickhouse-server:26.4");
    assert_eq!(image("postgres"), "postgres:16");
    assert_eq!(image("redis"), "redis:7.2");
    for (name, _) in LOUPE {
        let build = service(&base, name).get("build").unwrap();
        assert_eq!(scalar(build.get("dockerfile").unwrap()).unwrap(), "deploy/docker/Dockerfile");
        assert_eq!(scalar(build.get("target").unwrap()).unwrap(), name, "{name} builds its own target");
        assert_eq!(
            scalar(build.get("context").unwrap()).unwrap(),
            "..",
            "the context is the repository root"
        );
    }
}

#[test]
fn published_ports_and_port_settings_match_what_the_binaries_serve() {
    let ports = common::default_ports();
    let base = base();
    let published = |name| strings(service(&base, name).get("ports"));
    let web = published("web");
    assert!(web.contains(&format!("{0}:{0}", ports.web_http)), "web publishes {}: {web:?}", ports.web_http);
    assert!(web.contains(&format!("{0}:{0}", ports.web_grpc)), "web publishes {}: {web:?}", ports.web_grpc);
    let worker = published("worker");
    assert!(worker.contains(&format!("{0}:{0}", ports.worker_http)), "worker publishes 3030: {worker:?}");

    let web_env = env_of(None, "web");
    assert_eq!(web_env["PORT"], ports.web_http.to_string());
    assert_eq!(web_env["LANGFUSE_OTEL_GRPC_PORT"], ports.web_grpc.to_string());
    assert_eq!(env_of(None, "worker")["PORT"], ports.worker_http.to_string());
}

#[test]
fn health_checks_ask_the_endpoints_the_binaries_serve() {
    let ports = common::default_ports();
    let base = base();
    let check = |name| strings(service(&base, name).get("healthcheck").and_then(|h| h.get("test")));
    assert_eq!(check("web"), ["CMD", "loupe-healthcheck", &ports.web_http.to_string(), WEB_HEALTH]);
    assert_eq!(check("worker"), ["CMD", "loupe-healthcheck", &ports.worker_http.to_string(), WORKER_HEALTH]);
    for name in ["clickhouse", "postgres", "redis", "seaweedfs"] {
        assert!(!check(name).is_empty(), "{name} needs a health check: web and worker wait for it");
    }
    // The stuck-propagation variant is for operators and alerts, not for the container health check:
    // while propagation is stuck the worker must keep running.
    assert!(
        !read(BASE)
            .unwrap()
            .contains(&format!("loupe-healthcheck\", \"3030\", \"{WORKER_HEALTH}?{STUCK_QUERY}"))
    );
}

#[test]
fn loupe_starts_after_its_stores_and_the_bucket() {
    let base = base();
    for (name, _) in LOUPE {
        let depends = service(&base, name).get("depends_on").unwrap();
        for (store, condition) in [
            ("postgres", "service_healthy"),
            ("clickhouse", "service_healthy"),
            ("redis", "service_healthy"),
            ("s3-init", "service_completed_successfully"),
        ] {
            let actual = depends.get(store).and_then(|d| d.get("condition")).and_then(scalar);
            assert_eq!(actual.as_deref(), Some(condition), "{name} depends on {store}");
        }
    }
    let init = service(&base, "s3-init");
    let init_env = merged_service_env(&[&base], "s3-init", &Env::new()).unwrap();
    assert_eq!(
        init_env["BUCKET"],
        env_of(None, "web")["LANGFUSE_S3_EVENT_UPLOAD_BUCKET"],
        "the bucket created is the one used"
    );
    let script = strings(init.get("command")).join("\n");
    assert!(script.contains("s3.bucket.create"), "s3-init creates the bucket");
    // SeaweedFS answers a PUT from the page cache unless the path is configured to sync: a payload
    // web acknowledged would not survive a power loss.
    assert!(
        script.contains("fs.configure -locationPrefix=/buckets/$$BUCKET/ -fsync -apply"),
        "s3-init has SeaweedFS sync the bucket's writes"
    );
    assert!(script.contains(r#"\"fsync\":true"#), "s3-init reads the setting back");
    assert_eq!(scalar(init.get("restart").unwrap()).as_deref(), Some("no"), "s3-init is a one-shot job");
}

#[test]
fn redis_keeps_acknowledged_payloads_across_a_crash() {
    let base = base();
    let command = strings(service(&base, "redis").get("command")).join(" ");
    assert!(command.contains("--appendonly yes"), "{command}");
    assert!(command.contains("--appendfsync always"), "{command}");
    assert!(command.contains("--maxmemory-policy noeviction"), "{command}");
    let volumes = strings(service(&base, "redis").get("volumes"));
    assert!(volumes.iter().any(|v| v.ends_with(":/data")), "Redis data on a volume: {volumes:?}");
}

#[test]
fn stateful_services_keep_their_data_on_named_volumes() {
    let base = base();
    let declared = base.get("volumes").and_then(Value::as_mapping).unwrap();
    for (name, path) in [
        ("clickhouse", "/var/lib/clickhouse"),
        ("postgres", "/var/lib/postgresql/data"),
        ("redis", "/data"),
        ("seaweedfs", "/data"),
    ] {
        let volumes = strings(service(&base, name).get("volumes"));
        let volume = volumes
            .iter()
            .find(|v| v.ends_with(&format!(":{path}")))
            .unwrap_or_else(|| panic!("{name}: {path}"));
        let volume_name = volume.split(':').next().unwrap();
        assert!(declared.contains_key(volume_name), "volume {volume_name} is declared");
    }
}

/// Decision: one shared block gives both services every setting (both binaries read and validate the
/// whole configuration; SALT, bootstrap and migration settings must agree), PORT is set per service and
/// LANGFUSE_OTEL_GRPC_PORT only on web, its only reader.
#[test]
fn every_setting_is_in_the_env_of_each_service_that_reads_it() {
    for (name, role) in LOUPE {
        let env = env_of(None, name);
        for setting in SETTINGS.iter().filter(|s| common::deployed(s)) {
            let reads = common::only_read_by(setting.name).is_none_or(|only| only == role);
            if reads {
                assert!(
                    env.contains_key(setting.name),
                    "compose.yaml: {name} does not list {}",
                    setting.name
                );
            }
        }
        let unknown: Vec<_> = env.keys().filter(|k| !SETTINGS.iter().any(|s| s.name == k.as_str())).collect();
        assert!(unknown.is_empty(), "{name} sets variables Loupe does not read: {unknown:?}");
    }
}

/// A setting left at its default is written as "" (unset) with the default named in its comment, and
/// that comment must agree with the settings catalogue.
#[test]
fn settings_left_at_their_default_name_it_in_a_comment() {
    let text = read(BASE).unwrap();
    let env = env_of(None, "web");
    for setting in SETTINGS.iter().filter(|s| !s.default.is_empty()) {
        if env.get(setting.name).is_some_and(|v| !v.is_empty()) {
            continue;
        }
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{}:", setting.name)))
            .unwrap_or_else(|| panic!("{} is not in compose.yaml", setting.name));
        let comment = deploy_check::trailing_comment(line.split_once(':').unwrap().1).unwrap_or_default();
        assert!(
            normalise(&comment).contains(&normalise(setting.default)),
            "compose.yaml: {} is left at its default, so its comment must say `default: {}`; it says {comment:?}",
            setting.name,
            setting.default
        );
    }
}

#[test]
fn web_and_worker_agree_on_every_shared_setting_in_every_mode() {
    for file in std::iter::once(None).chain(START_MODES.iter().map(|m| Some(m.compose))) {
        let (web, worker) = (env_of(file, "web"), env_of(file, "worker"));
        for setting in SETTINGS.iter().filter(|s| !common::per_binary(s.name)) {
            assert_eq!(web.get(setting.name), worker.get(setting.name), "{file:?}: {} differs", setting.name);
        }
    }
}

#[test]
fn each_start_mode_is_accepted_with_the_recommended_settings() {
    for mode in START_MODES {
        for (name, role) in LOUPE {
            let env = env_of(Some(mode.compose), name);
            let config = common::validate(role, &env)
                .unwrap_or_else(|e| panic!("{} refused for {name}: {e}", mode.compose));
            let m = &config.migration;
            let actual = (m.write_mode, m.otel_behaviour, m.allow_preview_opt_in, m.enable_historic_backfill);
            assert_eq!(actual, expected(mode.name), "{} ({name})", mode.compose);
            assert!(
                !m.drop_pid_tid_sorting_tables,
                "{}: dropping the scratch table is a later step",
                mode.compose
            );
        }
    }
}

#[test]
fn the_base_file_alone_is_the_default_start_mode() {
    for (name, role) in LOUPE {
        let config = common::validate(role, &env_of(None, name)).unwrap();
        let m = &config.migration;
        let actual = (m.write_mode, m.otel_behaviour, m.allow_preview_opt_in, m.enable_historic_backfill);
        assert_eq!(actual, expected("default"), "{name}");
        assert!(config.bootstrap.is_some(), "{name}: the placeholder project is bootstrapped");
        assert!(matches!(config.blob, domain::config::BlobSettings::S3(_)), "{name}: S3, shared by both");
    }
}

#[test]
fn wrong_combinations_over_the_overrides_are_refused() {
    // (override file, variables changed over it, the variables the refusal must name)
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [&'a str]);
    let cases: [Case; 3] = [
        (
            "deploy/compose.legacy.yaml",
            &[("LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL", "true")],
            &[
                "LANGFUSE_MIGRATION_V4_WRITE_MODE",
                "LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL",
            ],
        ),
        (
            "deploy/compose.default.yaml",
            &[("LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR", "dual_write")],
            &["LANGFUSE_MIGRATION_V4_WRITE_MODE", "LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR"],
        ),
        (
            "deploy/compose.dual.yaml",
            &[
                ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "events_only"),
                ("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN", "false"),
            ],
            &["LANGFUSE_MIGRATION_V4_WRITE_MODE", "LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN"],
        ),
    ];
    for (file, change, named) in cases {
        for (name, role) in LOUPE {
            let mut env = env_of(Some(file), name);
            env.extend(change.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
            let problems = common::refused_variables(role, &env);
            let named: Vec<String> = named.iter().map(|s| (*s).to_owned()).collect();
            assert!(problems.contains(&named), "{file} + {change:?} ({name}): {problems:?}");
        }
    }
}

#[test]
fn a_misspelled_override_is_refused() {
    let mut env = env_of(Some("deploy/compose.legacy.yaml"), "web");
    let value = env.remove("LANGFUSE_MIGRATION_V4_WRITE_MODE").unwrap();
    env.insert("LANGFUSE_MIGRATION_v4_WRITE_MODE".to_owned(), value);
    let problems = common::refused_variables(Role::Web, &env);
    assert!(problems.iter().any(|p| p == &["LANGFUSE_MIGRATION_v4_WRITE_MODE"]), "{problems:?}");
}

/// Values from deploy/.env reach both sides of each connection: Loupe and the store it talks to.
#[test]
fn credentials_from_the_env_file_reach_loupe_and_the_stores_alike() {
    let dotenv: Env = [
        ("POSTGRES_PASSWORD", "pg-pw"),
        ("CLICKHOUSE_USER", "ch-user"),
        ("CLICKHOUSE_PASSWORD", "ch-pw"),
        ("REDIS_PASSWORD", "redis-pw"),
        ("S3_BUCKET", "events"),
        ("S3_ACCESS_KEY_ID", "s3-id"),
        ("S3_SECRET_ACCESS_KEY", "s3-secret"),
        ("SALT", "salty"),
        ("ADMIN_API_KEY", "admin"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    let base = base();
    let loupe = merged_service_env(&[&base], "worker", &dotenv).unwrap();
    let store = |name| merged_service_env(&[&base], name, &dotenv).unwrap();
    assert_eq!(loupe["DATABASE_URL"], "postgres://loupe:pg-pw@postgres:5432/loupe");
    assert_eq!(store("postgres")["POSTGRES_PASSWORD"], "pg-pw");
    assert_eq!(
        (loupe["CLICKHOUSE_USER"].as_str(), loupe["CLICKHOUSE_PASSWORD"].as_str()),
        ("ch-user", "ch-pw")
    );
    assert_eq!(
        (
            store("clickhouse")["CLICKHOUSE_USER"].as_str(),
            store("clickhouse")["CLICKHOUSE_PASSWORD"].as_str()
        ),
        ("ch-user", "ch-pw")
    );
    assert_eq!(loupe["REDIS_CONNECTION_STRING"], "redis://:redis-pw@redis:6379/0");
    let redis_command: Vec<String> = strings(service(&base, "redis").get("command"))
        .iter()
        .map(|a| interpolate(a, &dotenv).unwrap())
        .collect();
    assert!(redis_command.windows(2).any(|w| w == ["--requirepass", "redis-pw"]), "{redis_command:?}");
    assert_eq!(store("redis")["REDISCLI_AUTH"], "redis-pw");
    assert_eq!(loupe["LANGFUSE_S3_EVENT_UPLOAD_BUCKET"], "events");
    assert_eq!(store("s3-init")["BUCKET"], "events");
    let s3_config = scalar(
        base.get("configs").and_then(|c| c.get("seaweedfs-s3")).and_then(|c| c.get("content")).unwrap(),
    )
    .unwrap();
    let s3_config = interpolate(&s3_config, &dotenv).unwrap();
    assert!(
        s3_config.contains(r#""accessKey": "s3-id""#) && s3_config.contains(r#""secretKey": "s3-secret""#),
        "{s3_config}"
    );
    assert_eq!(
        (
            loupe["LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID"].as_str(),
            loupe["LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY"].as_str()
        ),
        ("s3-id", "s3-secret")
    );
    assert_eq!((loupe["SALT"].as_str(), loupe["ADMIN_API_KEY"].as_str()), ("salty", "admin"));
    common::validate(Role::Worker, &loupe).unwrap();
}

#[test]
fn secrets_default_to_obvious_placeholders() {
    let env = env_of(None, "web");
    for setting in SETTINGS.iter().filter(|s| s.secret) {
        let value = &env[setting.name];
        let placeholder = value.contains("change-me") || value.is_empty();
        assert!(
            placeholder,
            "{} defaults to {value:?}, which does not look like a placeholder",
            setting.name
        );
    }
    assert!(env["DATABASE_URL"].contains("change-me"));
    assert_eq!(env["ADMIN_API_KEY"], "", "no well-known admin token: the admin API is off until set");
}

/// deploy/.env.example names every variable the compose files substitute, and its placeholder values
/// give a configuration both binaries accept.
#[test]
fn the_env_example_lists_every_substituted_variable() {
    let example = read("deploy/.env.example").unwrap();
    let vars: Env = example
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let files = std::iter::once(BASE).chain(START_MODES.iter().map(|m| m.compose));
    for file in files {
        // Compose substitutes in values, not in comments.
        let text: String = read(file)
            .unwrap()
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .map(|l| l.split_once(" # ").map_or(l, |(code, _)| code))
            .collect::<Vec<_>>()
            .join("\n");
        let mut rest = text.as_str();
        while let Some(at) = rest.find('$') {
            let after = &rest[at + 1..];
            if let Some(tail) = after.strip_prefix('$') {
                rest = tail;
                continue;
            }
            let name: String = after
                .trim_start_matches('{')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            assert!(vars.contains_key(&name), "{file} substitutes ${name}, which deploy/.env.example lacks");
            rest = after;
        }
    }
    let base = base();
    for (name, role) in LOUPE {
        let env = merged_service_env(&[&base], name, &vars).unwrap();
        common::validate(role, &env).unwrap_or_else(|e| panic!("{name} with .env.example: {e}"));
    }
    let ignored = read(".gitignore").unwrap();
    assert!(
        ignored.lines().any(|l| l == "deploy/.env"),
        "deploy/.env holds real secrets: git must ignore it"
    );
}
