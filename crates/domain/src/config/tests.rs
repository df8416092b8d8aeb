//! Every startup rule of the configuration, at unit level.

use std::time::Duration;

use super::*;

/// The minimum environment a deployment needs.
pub(super) fn base() -> Vec<(String, String)> {
    [
        ("DATABASE_URL", "postgres://u:p@db:5432/loupe"),
        ("CLICKHOUSE_URL", "http://ch:8123"),
        ("REDIS_CONNECTION_STRING", "redis://redis:6379"),
        ("LANGFUSE_S3_EVENT_UPLOAD_BUCKET", "events"),
        ("SALT", "test-salt"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}

fn with(extra: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut env = base();
    env.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    env
}

fn load(extra: &[(&str, &str)]) -> Result<Config, ConfigError> {
    Config::from_env_vars(Role::Web, with(extra))
}

/// The variables named by the problems of a refused configuration.
fn refused(extra: &[(&str, &str)]) -> Vec<Vec<String>> {
    match load(extra) {
        Ok(_) => panic!("configuration {extra:?} was accepted"),
        Err(e) => e.problems.into_iter().map(|p| p.variables).collect(),
    }
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn defaults_follow_the_spec() {
    let config = load(&[]).unwrap();
    let m = &config.migration;
    assert_eq!(m.write_mode, WriteMode::EventsOnly);
    assert_eq!(m.otel_behaviour, OtelBehaviour::Direct);
    assert!(m.allow_preview_opt_in);
    assert!(m.enable_historic_backfill);
    assert!(!m.drop_pid_tid_sorting_tables);
    assert_eq!(m.propagation_stuck_threshold, Duration::from_secs(15 * 60));
    assert_eq!(config.server.port, 3000);
    assert_eq!(config.server.otel_grpc_port, 4317);
    assert!(config.server.metrics_enabled);
    assert_eq!(config.clickhouse.database, "default");
    assert_eq!(config.clickhouse.cluster, None);
    assert!(config.bootstrap.is_none());
}

#[test]
fn worker_port_defaults_to_3030_and_port_is_shared() {
    assert_eq!(Config::from_env_vars(Role::Worker, base()).unwrap().server.port, 3030);
    assert_eq!(Config::from_env_vars(Role::Worker, with(&[("PORT", "4000")])).unwrap().server.port, 4000);
}

#[test]
fn metrics_can_be_turned_off_and_a_wrong_value_is_named() {
    assert!(!load(&[("LANGFUSE_METRICS_ENABLED", "false")]).unwrap().server.metrics_enabled);
    assert_eq!(refused(&[("LANGFUSE_METRICS_ENABLED", "off")]), vec![names(&["LANGFUSE_METRICS_ENABLED"])]);
}

#[test]
fn unknown_write_mode_is_refused_with_the_allowed_values() {
    let err = load(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "duall")]).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("LANGFUSE_MIGRATION_V4_WRITE_MODE"), "{text}");
    assert!(text.contains("\"duall\"") && text.contains("events_only"), "{text}");
}

#[test]
fn unknown_otel_behaviour_and_booleans_are_refused() {
    assert_eq!(
        refused(&[("LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR", "sometimes")]),
        vec![names(&["LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR"])]
    );
    assert_eq!(
        refused(&[("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN", "yes")]),
        vec![names(&["LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN"])]
    );
}

#[test]
fn threshold_must_be_a_positive_integer() {
    for bad in ["0", "-5", "1.5", "fifteen"] {
        assert_eq!(
            refused(&[("LANGFUSE_EVENT_PROPAGATION_STUCK_THRESHOLD_MINUTES", bad)]),
            vec![names(&["LANGFUSE_EVENT_PROPAGATION_STUCK_THRESHOLD_MINUTES"])],
            "value {bad}"
        );
    }
    let config = load(&[("LANGFUSE_EVENT_PROPAGATION_STUCK_THRESHOLD_MINUTES", "40")]).unwrap();
    assert_eq!(config.migration.propagation_stuck_threshold, Duration::from_secs(2400));
}

#[test]
fn events_only_refuses_dual_write_otel() {
    assert_eq!(
        refused(&[
            ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "events_only"),
            ("LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR", "dual_write"),
        ]),
        vec![names(&["LANGFUSE_MIGRATION_V4_WRITE_MODE", "LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR"])]
    );
}

#[test]
fn events_only_refuses_opt_in_false() {
    // The default write mode is events_only, so the flag alone is enough to be refused.
    assert_eq!(
        refused(&[("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN", "false")]),
        vec![names(&["LANGFUSE_MIGRATION_V4_WRITE_MODE", "LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN"])]
    );
}

#[test]
fn legacy_refuses_explicit_direct_and_explicit_backfill() {
    assert_eq!(
        refused(&[
            ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy"),
            ("LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR", "direct"),
        ]),
        vec![names(&["LANGFUSE_MIGRATION_V4_WRITE_MODE", "LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR"])]
    );
    assert_eq!(
        refused(&[
            ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy"),
            ("LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL", "true"),
        ]),
        vec![names(&[
            "LANGFUSE_MIGRATION_V4_WRITE_MODE",
            "LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL"
        ])]
    );
}

#[test]
fn legacy_resolves_unset_values_to_dual_write_and_no_backfill() {
    let config = load(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy")]).unwrap();
    assert_eq!(config.migration.write_mode, WriteMode::Legacy);
    assert_eq!(config.migration.otel_behaviour, OtelBehaviour::DualWrite);
    assert!(!config.migration.enable_historic_backfill);
    // Explicit values that agree with legacy are fine.
    let config = load(&[
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy"),
        ("LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR", "dual_write"),
        ("LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL", "false"),
        ("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN", "false"),
    ])
    .unwrap();
    assert!(!config.migration.allow_preview_opt_in);
}

#[test]
fn dual_accepts_every_otel_behaviour() {
    for otel in ["direct", "dual_write"] {
        let config = load(&[
            ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "dual"),
            ("LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR", otel),
            ("LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL", "false"),
        ])
        .unwrap();
        assert_eq!(config.migration.otel_behaviour.as_str(), otel);
        assert!(!config.migration.enable_historic_backfill);
    }
}

#[test]
fn misspelled_names_stop_startup_with_the_intended_name() {
    for (name, meant) in [
        ("LANGFUSE_MIGRATION_v4_WRITE_MODE", "LANGFUSE_MIGRATION_V4_WRITE_MODE"),
        ("LANGFUSE_MIGRATION_V4_WRITE_MOD", "LANGFUSE_MIGRATION_V4_WRITE_MODE"),
        (
            "langfuse_event_propagation_stuck_threshold_minutes",
            "LANGFUSE_EVENT_PROPAGATION_STUCK_THRESHOLD_MINUTES",
        ),
        ("CLICKHOUSE_PASWORD", "CLICKHOUSE_PASSWORD"),
    ] {
        let err = load(&[(name, "dual")]).unwrap_err();
        assert_eq!(err.problems.len(), 1, "{err}");
        assert_eq!(err.problems[0].variables, vec![name.to_owned()]);
        assert!(err.problems[0].message.contains(meant), "{err}");
    }
}

#[test]
fn unknown_migration_variables_are_refused_but_upstream_ones_only_warn() {
    assert_eq!(
        refused(&[("LANGFUSE_MIGRATION_V4_FAST_MODE", "true")]),
        vec![names(&["LANGFUSE_MIGRATION_V4_FAST_MODE"])]
    );
    let config = load(&[
        ("LANGFUSE_EXPERIMENT_BACKFILL_THROTTLE_MS", "1000"),
        ("LANGFUSE_S3_MEDIA_UPLOAD_BUCKET", "m"),
    ])
    .unwrap();
    assert_eq!(config.warnings.len(), 2, "{:?}", config.warnings);
}

#[test]
fn every_problem_is_reported_at_once() {
    let err = Config::from_env_vars(
        Role::Web,
        [("LANGFUSE_MIGRATION_V4_WRITE_MODE", "duall"), ("PORT", "http"), ("LANGFUSE_LOG_FORMAT", "xml")],
    )
    .unwrap_err();
    let named: Vec<String> = err.problems.iter().flat_map(|p| p.variables.clone()).collect();
    for expected in [
        "LANGFUSE_MIGRATION_V4_WRITE_MODE",
        "PORT",
        "LANGFUSE_LOG_FORMAT",
        "DATABASE_URL",
        "CLICKHOUSE_URL",
        "REDIS_CONNECTION_STRING",
        "LANGFUSE_S3_EVENT_UPLOAD_BUCKET",
    ] {
        assert!(named.iter().any(|n| n == expected), "{expected} missing from {err}");
    }
}

#[test]
fn empty_values_count_as_unset() {
    let config = load(&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", ""), ("PORT", " ")]).unwrap();
    assert_eq!(config.migration.write_mode, WriteMode::EventsOnly);
    assert_eq!(config.server.port, 3000);
}

#[test]
fn infrastructure_urls_are_checked() {
    assert_eq!(refused(&[("DATABASE_URL", "mysql://x")]), vec![names(&["DATABASE_URL"])]);
    assert_eq!(refused(&[("CLICKHOUSE_URL", "tcp://ch:9000")]), vec![names(&["CLICKHOUSE_URL"])]);
    assert_eq!(refused(&[("CLICKHOUSE_DB", "a;drop")]), vec![names(&["CLICKHOUSE_DB"])]);
}

#[test]
fn redis_can_be_given_as_host_port_auth() {
    let env: Vec<_> = base().into_iter().filter(|(k, _)| k != "REDIS_CONNECTION_STRING").collect();
    let mut env_with_host = env.clone();
    env_with_host
        .extend([("REDIS_HOST".to_owned(), "cache".to_owned()), ("REDIS_AUTH".to_owned(), "pw".to_owned())]);
    let config = Config::from_env_vars(Role::Web, env_with_host).unwrap();
    use secrecy::ExposeSecret;
    assert_eq!(config.redis.url.expose_secret(), "redis://:pw@cache:6379");
    let err = Config::from_env_vars(Role::Web, env).unwrap_err();
    assert_eq!(err.problems[0].variables, names(&["REDIS_CONNECTION_STRING"]));
}

#[test]
fn blob_store_is_s3_or_an_explicit_local_dir() {
    let env: Vec<_> = base().into_iter().filter(|(k, _)| !k.starts_with("LANGFUSE_S3")).collect();
    assert!(Config::from_env_vars(Role::Web, env.clone()).is_err());
    let mut local = env;
    local.push(("LANGFUSE_EVENT_UPLOAD_LOCAL_DIR".to_owned(), "/data/events".to_owned()));
    let config = Config::from_env_vars(Role::Web, local).unwrap();
    assert!(matches!(config.blob, BlobSettings::LocalDir(ref d) if d.as_os_str() == "/data/events"));
    assert_eq!(
        refused(&[("LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID", "k")]),
        vec![names(&[
            "LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID",
            "LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY"
        ])]
    );
}

#[test]
fn bootstrap_needs_ids_and_well_formed_keys() {
    let full = [
        ("LANGFUSE_INIT_ORG_ID", "org"),
        ("LANGFUSE_INIT_PROJECT_ID", "proj"),
        ("LANGFUSE_INIT_PROJECT_PUBLIC_KEY", "pk-lf-1"),
        ("LANGFUSE_INIT_PROJECT_SECRET_KEY", "sk-lf-1"),
    ];
    let bootstrap = load(&full).unwrap().bootstrap.unwrap();
    assert_eq!((bootstrap.org_name.as_str(), bootstrap.project_name.as_str()), ("org", "proj"));
    assert_eq!(
        refused(&full[..2]),
        vec![names(&["LANGFUSE_INIT_PROJECT_PUBLIC_KEY", "LANGFUSE_INIT_PROJECT_SECRET_KEY"])]
    );
    let mut bad_key = full.to_vec();
    bad_key[2].1 = "public";
    assert_eq!(refused(&bad_key), vec![names(&["LANGFUSE_INIT_PROJECT_PUBLIC_KEY"])]);
}

#[test]
fn cluster_switch_carries_the_cluster_name() {
    let config =
        load(&[("CLICKHOUSE_CLUSTER_ENABLED", "true"), ("CLICKHOUSE_CLUSTER_NAME", "main")]).unwrap();
    assert_eq!(config.clickhouse.cluster.as_deref(), Some("main"));
}

#[test]
fn redacted_view_hides_secrets_and_url_passwords() {
    let config = load(&[("CLICKHOUSE_PASSWORD", "hunter2"), ("ADMIN_API_KEY", "admin-secret")]).unwrap();
    let text = format!("{:?}", config.redacted());
    assert!(!text.contains("hunter2") && !text.contains("admin-secret"), "{text}");
    assert!(!text.contains("u:p@"), "{text}");
    assert!(text.contains("events_only (default)"), "{text}");
    // Every catalogue entry is shown.
    assert_eq!(config.redacted().len(), SETTINGS.len());
}

#[test]
fn catalogue_names_are_unique_and_have_meaning() {
    let mut seen = std::collections::HashSet::new();
    for setting in SETTINGS {
        assert!(seen.insert(setting.name), "{} listed twice", setting.name);
        assert!(!setting.meaning.is_empty());
    }
}

#[test]
fn readme_documents_every_setting() {
    let readme = include_str!("../../../../README.md");
    for setting in SETTINGS {
        assert!(
            readme.contains(&format!("| `{}` |", setting.name)),
            "README lacks a row for {}",
            setting.name
        );
    }
}

#[test]
fn web_server_limits_have_documented_defaults_and_refuse_nonsense() {
    let config = load(&[]).unwrap();
    let limits = config.server.limits;
    assert_eq!(limits.header_read_timeout, Duration::from_secs(10));
    assert_eq!(limits.body_read_timeout, Duration::from_secs(60));
    assert_eq!(limits.max_concurrent_requests, 256);
    assert_eq!(limits.concurrency_wait, Duration::from_secs(1));
    assert_eq!(config.ingestion.otel_resource_attributes_max_copied_bytes, 64 * 1024 * 1024);
    let zero_wait = load(&[("LANGFUSE_HTTP_CONCURRENCY_WAIT_MS", "0")]).unwrap();
    assert_eq!(zero_wait.server.limits.concurrency_wait, Duration::ZERO);
    for (name, value) in [
        ("LANGFUSE_HTTP_HEADER_READ_TIMEOUT_MS", "0"),
        ("LANGFUSE_HTTP_BODY_READ_TIMEOUT_MS", "soon"),
        ("LANGFUSE_HTTP_MAX_CONCURRENT_REQUESTS", "0"),
        ("LANGFUSE_HTTP_MAX_CONCURRENT_REQUESTS", "1000001"),
        ("LANGFUSE_HTTP_CONCURRENCY_WAIT_MS", "-1"),
        ("LANGFUSE_OTEL_RESOURCE_ATTRIBUTES_MAX_COPIED_BYTES", "0"),
    ] {
        assert_eq!(refused(&[(name, value)]), [names(&[name])], "{name}={value}");
    }
}

#[test]
fn a_public_salt_only_warns_so_keys_hashed_under_it_keep_working() {
    assert!(load(&[]).unwrap().warnings.is_empty());
    for (salt, says) in [("", "SALT is unset"), ("change-me-salt", "SALT is a published placeholder")] {
        let config = load(&[("SALT", salt)]).unwrap();
        assert_eq!(config.warnings.len(), 1, "{:?}", config.warnings);
        assert!(config.warnings[0].starts_with(says), "{:?}", config.warnings);
        assert!(config.warnings[0].contains("media URLs stay unforgeable"));
    }
    let without: Vec<_> = base().into_iter().filter(|(k, _)| k != "SALT").collect();
    let config = Config::from_env_vars(Role::Worker, without).unwrap();
    assert!(config.warnings[0].starts_with("SALT is unset"), "{:?}", config.warnings);
}

#[test]
fn encryption_key_is_optional_and_checked_when_set() {
    assert!(load(&[]).unwrap().auth.encryption_key.is_none());
    assert!(load(&[("ENCRYPTION_KEY", "")]).unwrap().auth.encryption_key.is_none());
    let key = "ab".repeat(32);
    let config = load(&[("ENCRYPTION_KEY", &key)]).unwrap();
    let sealed = config.auth.encryption_key.as_ref().unwrap().encrypt("x");
    assert_eq!(config.auth.encryption_key.unwrap().decrypt(&sealed).unwrap(), "x");
    assert_eq!(refused(&[("ENCRYPTION_KEY", "not-hex")]), vec![names(&["ENCRYPTION_KEY"])]);
    assert_eq!(refused(&[("ENCRYPTION_KEY", &"zz".repeat(32))]), vec![names(&["ENCRYPTION_KEY"])]);
}

#[test]
fn outbound_allowed_hosts_are_parsed_and_a_wrong_entry_stops_startup() {
    let loopback: std::net::IpAddr = "127.0.0.1".parse().unwrap();
    assert!(!load(&[]).unwrap().auth.outbound.permits("localhost", loopback));
    let config = load(&[("LANGFUSE_OUTBOUND_ALLOWED_HOSTS", "127.0.0.1, *.svc.cluster.local")]).unwrap();
    assert!(config.auth.outbound.permits("localhost", loopback));
    assert_eq!(
        refused(&[("LANGFUSE_OUTBOUND_ALLOWED_HOSTS", "10.0.0.0/40")]),
        vec![names(&["LANGFUSE_OUTBOUND_ALLOWED_HOSTS"])]
    );
}

#[test]
fn blob_writers_default_to_four_and_refuse_zero() {
    assert_eq!(load(&[]).unwrap().ingestion.blob_writers, 4);
    assert_eq!(load(&[("LANGFUSE_INGESTION_BLOB_WRITERS", "2")]).unwrap().ingestion.blob_writers, 2);
    for bad in ["0", "-1", "two"] {
        assert_eq!(
            refused(&[("LANGFUSE_INGESTION_BLOB_WRITERS", bad)]),
            [names(&["LANGFUSE_INGESTION_BLOB_WRITERS"])],
            "value {bad}"
        );
    }
}
