//! Both binaries refuse a bad configuration with a non-zero exit and a message naming the variable.

use std::collections::BTreeMap;

use crate::apps::run_to_exit;

/// An environment that is complete except for what each case adds; nothing in it is reached,
/// because validation happens before any connection.
fn env(extra: &[(&str, &str)]) -> BTreeMap<String, String> {
    let mut env: BTreeMap<String, String> = [
        ("DATABASE_URL", "postgres://postgres@127.0.0.1:1/loupe"),
        ("CLICKHOUSE_URL", "http://127.0.0.1:1"),
        ("REDIS_CONNECTION_STRING", "redis://127.0.0.1:1"),
        ("LANGFUSE_EVENT_UPLOAD_LOCAL_DIR", "/tmp/loupe-blackbox-unused"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    env.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    env
}

/// Extra variables, and the texts the refusal must contain.
type Case = (&'static [(&'static str, &'static str)], &'static [&'static str]);

const CASES: &[Case] = &[
    (&[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "duall")], &["LANGFUSE_MIGRATION_V4_WRITE_MODE", "duall"]),
    (
        &[("LANGFUSE_MIGRATION_v4_WRITE_MODE", "legacy")],
        &["LANGFUSE_MIGRATION_v4_WRITE_MODE", "LANGFUSE_MIGRATION_V4_WRITE_MODE"],
    ),
    (
        &[("LANGFUSE_MIGRATION_V4_WRITE_MOD", "dual")],
        &["LANGFUSE_MIGRATION_V4_WRITE_MOD", "LANGFUSE_MIGRATION_V4_WRITE_MODE"],
    ),
    (
        &[
            ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "events_only"),
            ("LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR", "dual_write"),
        ],
        &["LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR"],
    ),
    (
        &[("LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN", "false")],
        &["LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN"],
    ),
    (
        &[
            ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy"),
            ("LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR", "direct"),
        ],
        &["LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR"],
    ),
    (
        &[
            ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy"),
            ("LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL", "true"),
        ],
        &["LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL"],
    ),
    (
        &[("LANGFUSE_EVENT_PROPAGATION_STUCK_THRESHOLD_MINUTES", "0")],
        &["LANGFUSE_EVENT_PROPAGATION_STUCK_THRESHOLD_MINUTES"],
    ),
    (&[("LANGFUSE_LOG_LEVEL", "info,[[[")], &["LANGFUSE_LOG_LEVEL"]),
];

#[tokio::test]
async fn both_binaries_refuse_each_bad_configuration() {
    for binary in ["web", "worker"] {
        for (extra, expected) in CASES {
            let (code, stderr) = run_to_exit(binary, &env(extra)).await;
            assert!(matches!(code, Some(c) if c != 0), "{binary} {extra:?} exited with {code:?}");
            for text in *expected {
                assert!(stderr.contains(text), "{binary} {extra:?}: stderr does not name {text}:\n{stderr}");
            }
        }
    }
}

#[tokio::test]
async fn missing_infrastructure_settings_are_all_named() {
    let (code, stderr) = run_to_exit("web", &BTreeMap::new()).await;
    assert_eq!(code, Some(2), "{stderr}");
    for name in
        ["DATABASE_URL", "CLICKHOUSE_URL", "REDIS_CONNECTION_STRING", "LANGFUSE_S3_EVENT_UPLOAD_BUCKET"]
    {
        assert!(stderr.contains(name), "{name} not named:\n{stderr}");
    }
}
