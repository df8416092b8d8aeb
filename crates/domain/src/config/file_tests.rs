//! The layers: built-in defaults < the TOML file named by `LANGFUSE_CONFIG_FILE` < the environment.
//! The file arrives as a string through the reader, as the binaries' `std::fs` read would give it.

use std::io;

use super::*;

const PATH: &str = "/etc/loupe.toml";

/// The settings every deployment needs, as a file holds them.
const BASE_FILE: &str = r#"
DATABASE_URL = "postgres://u:p@db:5432/loupe"
CLICKHOUSE_URL = "http://ch:8123"
REDIS_CONNECTION_STRING = "redis://redis:6379"
LANGFUSE_S3_EVENT_UPLOAD_BUCKET = "events"
"#;

fn env(extra: &[(&str, &str)]) -> Vec<(String, String)> {
    std::iter::once(("LANGFUSE_CONFIG_FILE", PATH))
        .chain(extra.iter().copied())
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// Loads with `file` (appended to the base settings) as the file's text and `extra` in the environment.
fn load(file: &str, extra: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let text = format!("{BASE_FILE}{file}");
    Config::from_env_and_file(Role::Web, env(extra), |path| {
        assert_eq!(path, PATH);
        Ok(text)
    })
}

fn problems(file: &str, extra: &[(&str, &str)]) -> Vec<Problem> {
    match load(file, extra) {
        Ok(_) => panic!("file {file:?} with {extra:?} was accepted"),
        Err(error) => error.problems,
    }
}

/// The setting as the startup log shows it.
fn shown(config: &Config, name: &str) -> String {
    config.redacted().into_iter().find(|(n, _)| *n == name).unwrap().1
}

#[test]
fn the_environment_overrides_the_file_which_overrides_the_defaults() {
    let config = load(
        "LANGFUSE_MIGRATION_V4_WRITE_MODE = \"dual\"\nLANGFUSE_LOG_LEVEL = \"debug\"\n",
        &[("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy")],
    )
    .unwrap();
    assert_eq!(config.migration.write_mode, WriteMode::Legacy);
    assert_eq!(config.log.filter, "debug");
    assert_eq!(config.clickhouse.database, "default");
    // The startup log names each value's source.
    assert_eq!(shown(&config, "LANGFUSE_MIGRATION_V4_WRITE_MODE"), "legacy (env)");
    assert_eq!(shown(&config, "LANGFUSE_LOG_LEVEL"), "debug (from /etc/loupe.toml)");
    assert_eq!(shown(&config, "CLICKHOUSE_DB"), "default (default)");
    assert_eq!(shown(&config, "DATABASE_URL"), "postgres://u:redacted@db:5432/loupe (from /etc/loupe.toml)");
    assert_eq!(shown(&config, "LANGFUSE_CONFIG_FILE"), "/etc/loupe.toml (env)");
}

#[test]
fn an_empty_variable_lets_the_file_value_through() {
    let config =
        load("LANGFUSE_MIGRATION_V4_WRITE_MODE = \"dual\"\n", &[("LANGFUSE_MIGRATION_V4_WRITE_MODE", " ")])
            .unwrap();
    assert_eq!(config.migration.write_mode, WriteMode::Dual);
}

#[test]
fn built_in_defaults_come_from_the_catalogue() {
    let config = load("", &[]).unwrap();
    for setting in SETTINGS.iter().filter(|s| s.built_in) {
        assert_eq!(shown(&config, setting.name), format!("{} (default)", setting.default));
    }
    assert_eq!(config.ingestion.max_body_bytes, 16 * 1024 * 1024);
    assert_eq!(config.backfill.chunk_rows, 20_000);
    assert_eq!(config.log.format, LogFormat::Text);
    // Defaults described in words are resolved by the code, and shown as described.
    assert_eq!(config.server.port, 3000);
    assert_eq!(shown(&config, "PORT"), "3000 (web), 3030 (worker) (default)");
    assert_eq!(config.migration.otel_behaviour, OtelBehaviour::Direct);
}

#[test]
fn integers_and_booleans_are_read_as_their_text() {
    let config = load(
        "LANGFUSE_BACKFILL_CHUNK_ROWS = 5000\nCLICKHOUSE_CLUSTER_ENABLED = true\nPORT = 4000\n\
         LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN = true\n",
        &[],
    )
    .unwrap();
    assert_eq!(config.backfill.chunk_rows, 5000);
    assert_eq!(config.clickhouse.cluster.as_deref(), Some("default"));
    assert_eq!(config.server.port, 4000);
    // The same rules as for the environment: a negative integer is refused as "-1" would be.
    let found = problems("LANGFUSE_BACKFILL_CHUNK_ROWS = -1\n", &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].to_string(),
        "LANGFUSE_BACKFILL_CHUNK_ROWS (from /etc/loupe.toml): must be a positive integer, got \"-1\""
    );
}

#[test]
fn a_wrong_value_in_the_file_is_named_with_the_file() {
    let found = problems("LANGFUSE_MIGRATION_V4_WRITE_MODE = \"duall\"\n", &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].variables, ["LANGFUSE_MIGRATION_V4_WRITE_MODE"]);
    assert_eq!(found[0].files, [Some(PATH.to_owned())]);
    let text = found[0].to_string();
    assert!(
        text.starts_with("LANGFUSE_MIGRATION_V4_WRITE_MODE (from /etc/loupe.toml): unknown value"),
        "{text}"
    );
    // A combination names each variable with its own source.
    let found = problems(
        "LANGFUSE_MIGRATION_V4_WRITE_MODE = \"legacy\"\n",
        &[("LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR", "direct")],
    );
    assert!(
        found[0].to_string().starts_with(
            "LANGFUSE_MIGRATION_V4_WRITE_MODE (from /etc/loupe.toml) + LANGFUSE_MIGRATION_V4_NATIVE_OTEL_BEHAVIOUR: "
        ),
        "{}",
        found[0]
    );
}

#[test]
fn a_misspelled_key_in_the_file_names_the_key_the_file_and_the_setting_meant() {
    for (key, meant) in [
        ("LANGFUSE_MIGRATION_v4_WRITE_MODE", "LANGFUSE_MIGRATION_V4_WRITE_MODE"),
        ("LANGFUSE_LOG_LEVLE", "LANGFUSE_LOG_LEVEL"),
        ("langfuse_log_format", "LANGFUSE_LOG_FORMAT"),
    ] {
        let found = problems(&format!("{key} = \"x\"\n"), &[]);
        assert_eq!(found.len(), 1, "{found:?}");
        let text = found[0].to_string();
        assert!(text.starts_with(&format!("{key} (from /etc/loupe.toml): not a known setting")), "{text}");
        assert!(text.contains(meant), "{text}");
    }
    let found = problems("LANGFUSE_MIGRATION_V4_FAST_MODE = true\n", &[]);
    assert_eq!(found[0].files, [Some(PATH.to_owned())]);
}

#[test]
fn a_file_holds_only_settings() {
    // The environment carries other programs' variables; a Loupe file has no other reader.
    let found = problems("HOME = \"/root\"\n", &[("HOME", "/root")]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].to_string(), "HOME (from /etc/loupe.toml): not a Loupe setting");
    // Upstream names Loupe ignores only warn, wherever they are.
    let config = load("LANGFUSE_EXPERIMENT_BACKFILL_THROTTLE_MS = 1000\n", &[("SALT", "s")]).unwrap();
    assert_eq!(config.warnings.len(), 1);
    assert!(config.warnings[0].contains("(in /etc/loupe.toml)"), "{:?}", config.warnings);
    // The file cannot name another file.
    let found = problems("LANGFUSE_CONFIG_FILE = \"/etc/other.toml\"\n", &[]);
    assert_eq!(found[0].variables, ["LANGFUSE_CONFIG_FILE"]);
    assert!(found[0].message.contains("environment only"), "{}", found[0]);
}

#[test]
fn nested_tables_arrays_floats_and_dates_are_refused() {
    let found = problems(
        "LANGFUSE_BACKFILL_PAUSE_MS = 1.5\nLANGFUSE_EVENT_PROPAGATION_EXCLUDE_PROJECT_IDS = [\"a\"]\n\
         LANGFUSE_INIT_ORG_ID = 1979-05-27\n[database]\nurl = \"postgres://x\"\n",
        &[],
    );
    let text: Vec<String> = found.iter().map(ToString::to_string).collect();
    let from = "(from /etc/loupe.toml)";
    assert_eq!(
        text,
        [
            format!("LANGFUSE_BACKFILL_PAUSE_MS {from}: must be a string, integer or boolean, not a float"),
            format!(
                "LANGFUSE_EVENT_PROPAGATION_EXCLUDE_PROJECT_IDS {from}: is an array; a setting is a string, integer or boolean"
            ),
            format!("LANGFUSE_INIT_ORG_ID {from}: must be a string, integer or boolean, not a date"),
            format!(
                "database {from}: is a table, but the file is flat: each setting sits at the top level under its environment variable's name"
            ),
        ]
    );
}

#[test]
fn a_file_that_is_not_toml_is_one_problem_naming_the_file() {
    let found = problems("LANGFUSE_LOG_LEVEL = debug\n", &[("LANGFUSE_LOG_LEVLE", "info")]);
    let text: Vec<String> = found.iter().map(ToString::to_string).collect();
    // The file's problem, and the environment's names; no rule judges the settings the file would
    // have supplied, so no "DATABASE_URL is required".
    assert_eq!(text.len(), 2, "{text:#?}");
    assert!(text[0].starts_with("LANGFUSE_LOG_LEVLE: not a known setting"), "{}", text[0]);
    assert!(text[1].starts_with("LANGFUSE_CONFIG_FILE: /etc/loupe.toml is not valid TOML: "), "{}", text[1]);
    assert!(text[1].contains("line 6"), "the parser's position is kept: {}", text[1]);
    // Its excerpt of the file stays indented under the problem in the startup message.
    let message = load("LANGFUSE_LOG_LEVEL = debug\n", &[]).unwrap_err().to_string();
    assert!(message.lines().skip(2).all(|line| line.starts_with("    ")), "{message}");
}

#[test]
fn a_missing_file_is_a_problem_of_the_variable_that_names_it() {
    let err = Config::from_env_and_file(Role::Worker, env(&[]), |_| Err(io::ErrorKind::NotFound.into()))
        .unwrap_err();
    assert_eq!(err.problems.len(), 1, "{err}");
    assert_eq!(err.problems[0].variables, ["LANGFUSE_CONFIG_FILE"]);
    assert!(err.problems[0].message.starts_with("cannot read /etc/loupe.toml: "), "{err}");
}

#[test]
fn every_problem_is_reported_at_once_across_file_and_environment() {
    let found = problems(
        "LANGFUSE_LOG_FORMT = \"json\"\nLANGFUSE_EVENT_PROPAGATION_STUCK_THRESHOLD_MINUTES = 0\n",
        &[("LANGFUSE_INGESTION_MAX_BODY_BYTE", "1"), ("PORT", "http")],
    );
    let named: Vec<(String, Option<String>)> =
        found.iter().map(|p| (p.variables[0].clone(), p.files[0].clone())).collect();
    let file = Some(PATH.to_owned());
    for expected in [
        ("LANGFUSE_LOG_FORMT".to_owned(), file.clone()),
        ("LANGFUSE_EVENT_PROPAGATION_STUCK_THRESHOLD_MINUTES".to_owned(), file),
        ("LANGFUSE_INGESTION_MAX_BODY_BYTE".to_owned(), None),
        ("PORT".to_owned(), None),
    ] {
        assert!(named.contains(&expected), "{expected:?} missing from {named:?}");
    }
    assert_eq!(named.len(), 4, "{named:?}");
}

#[test]
fn the_reader_is_used_only_when_a_file_is_named() {
    let env = [
        ("DATABASE_URL", "postgres://u:p@db:5432/loupe"),
        ("CLICKHOUSE_URL", "http://ch:8123"),
        ("REDIS_CONNECTION_STRING", "redis://redis:6379"),
        ("LANGFUSE_S3_EVENT_UPLOAD_BUCKET", "events"),
        ("LANGFUSE_CONFIG_FILE", ""),
    ];
    Config::from_env_and_file(Role::Web, env, |_| panic!("no file is named")).unwrap();
}

#[test]
fn the_environment_only_entry_point_refuses_a_file() {
    let mut env = env(&[]);
    env.extend(BASE_FILE.lines().filter_map(|l| {
        let (k, v) = l.split_once(" = ")?;
        Some((k.to_owned(), v.trim_matches('"').to_owned()))
    }));
    let err = Config::from_env_vars(Role::Web, env).unwrap_err();
    assert_eq!(err.problems.len(), 1, "{err}");
    assert_eq!(err.problems[0].variables, ["LANGFUSE_CONFIG_FILE"]);
}
