//! deploy/helm/loupe read as files: every setting Loupe reads can be set through values.yaml (ConfigMap,
//! per-container env, or the Secret by reference), every value is documented, probes ask the served
//! paths, and the start-mode values files say what the compose overrides say. The rendered chart is
//! checked in rendered.rs.

#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;

use common::{START_MODES, STUCK_QUERY, WEB_HEALTH, WORKER_HEALTH, WORKER_LIVE};
use deploy_check::{
    Env, Value, documented_keys, lookup, merged_service_env, normalise, read, scalar, yaml_file,
};
use domain::config::SETTINGS;

const CHART: &str = "deploy/helm/loupe";

/// Settings the catalogue does not mark secret whose value still holds a password.
const CREDENTIAL_URLS: [&str; 1] = ["DATABASE_URL"];

fn template(name: &str) -> String {
    read(&format!("{CHART}/templates/{name}")).unwrap()
}

fn values() -> Value {
    yaml_file(&format!("{CHART}/values.yaml")).unwrap()
}

/// How one environment variable is set by the chart.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    /// A ConfigMap entry from this values path.
    ConfigMap(String),
    /// A container `env` entry in this template, from this values path.
    Env(String, String),
    /// A secretKeyRef whose key name is at this values path.
    Secret(String),
}

impl Source {
    fn values_path(&self) -> &str {
        match self {
            Source::ConfigMap(p) | Source::Env(_, p) | Source::Secret(p) => p,
        }
    }
}

fn values_path_in(text: &str) -> Option<String> {
    let at = text.find(".Values.")? + ".Values.".len();
    let path: String =
        text[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_').collect();
    Some(path)
}

/// Every variable the templates set, and from where.
fn sources() -> BTreeMap<String, Vec<Source>> {
    let mut map: BTreeMap<String, Vec<Source>> = BTreeMap::new();
    for line in template("configmap.yaml").lines() {
        let Some((name, rest)) = line.trim_start().split_once(": ") else { continue };
        if name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            && let Some(path) = values_path_in(rest)
        {
            map.entry(name.to_owned()).or_default().push(Source::ConfigMap(path));
        }
    }
    for file in ["web-deployment.yaml", "worker-deployment.yaml"] {
        for line in template(file).lines() {
            let Some(entry) = line.trim_start().strip_prefix("- { name: ") else { continue };
            let (name, rest) = entry.split_once(", value: ").unwrap();
            let path = values_path_in(rest).unwrap_or_else(|| panic!("{file}: {name} is not from values"));
            map.entry(name.to_owned()).or_default().push(Source::Env(file.to_owned(), path));
        }
    }
    let helpers = template("_helpers.tpl");
    for line in helpers.lines() {
        let Some(entry) = line.trim_start().strip_prefix("(list \"") else { continue };
        let (name, rest) = entry.split_once('"').unwrap();
        let key = rest.trim().strip_prefix("$keys.").unwrap().split(' ').next().unwrap();
        map.entry(name.to_owned()).or_default().push(Source::Secret(format!("secrets.keys.{key}")));
    }
    map
}

#[test]
fn chart_metadata_is_a_helm_3_application_chart() {
    let chart = yaml_file(&format!("{CHART}/Chart.yaml")).unwrap();
    assert_eq!(scalar(chart.get("apiVersion").unwrap()).as_deref(), Some("v2"));
    assert_eq!(scalar(chart.get("name").unwrap()).as_deref(), Some("loupe"));
    assert_eq!(scalar(chart.get("type").unwrap()).as_deref(), Some("application"));
    let workspace = read("Cargo.toml").unwrap();
    let app_version = scalar(chart.get("appVersion").unwrap()).unwrap();
    assert!(
        workspace.contains(&format!("version = \"{app_version}\"")),
        "appVersion follows the workspace version"
    );
    for file in [
        "_helpers.tpl",
        "configmap.yaml",
        "web-deployment.yaml",
        "worker-deployment.yaml",
        "web-service.yaml",
        "worker-service.yaml",
        "NOTES.txt",
    ] {
        template(file);
    }
    let schema: serde_json::Value =
        serde_json::from_str(&read(&format!("{CHART}/values.schema.json")).unwrap()).unwrap();
    assert_eq!(schema["additionalProperties"], false, "misspelled values keys are refused at install");
}

#[test]
fn every_setting_can_be_set_through_values() {
    let sources = sources();
    let values = values();
    for setting in SETTINGS.iter().filter(|s| common::deployed(s)) {
        let found =
            sources.get(setting.name).unwrap_or_else(|| panic!("the chart never sets {}", setting.name));
        for source in found {
            let path = source.values_path();
            assert!(
                lookup(&values, path).is_some(),
                "{} comes from {path}, which values.yaml lacks",
                setting.name
            );
            match (setting.secret, source) {
                (true, Source::Secret(_)) | (false, Source::ConfigMap(_) | Source::Env(..)) => {}
                (true, _) => {
                    panic!("{} is a secret: only by reference to a Secret, never from values", setting.name)
                }
                // Not a secret in the catalogue, but its URL carries the PostgreSQL password.
                (false, Source::Secret(_)) if CREDENTIAL_URLS.contains(&setting.name) => {}
                (false, Source::Secret(_)) => panic!("{} is not a secret", setting.name),
            }
        }
    }
    let unknown: Vec<_> = sources.keys().filter(|k| !SETTINGS.iter().any(|s| s.name == k.as_str())).collect();
    assert!(unknown.is_empty(), "the chart sets variables Loupe does not read: {unknown:?}");
}

#[test]
fn per_container_settings_are_set_in_each_deployment_that_reads_them() {
    let sources = sources();
    let env_files = |name: &str| -> Vec<String> {
        sources[name]
            .iter()
            .filter_map(|s| match s {
                Source::Env(f, _) => Some(f.clone()),
                _ => None,
            })
            .collect()
    };
    assert_eq!(env_files("PORT"), ["web-deployment.yaml", "worker-deployment.yaml"]);
    assert_eq!(env_files("LANGFUSE_OTEL_GRPC_PORT"), ["web-deployment.yaml"]);
    assert_eq!(sources["PORT"][0].values_path(), "web.port");
    assert_eq!(sources["PORT"][1].values_path(), "worker.port");
    assert_eq!(sources["LANGFUSE_OTEL_GRPC_PORT"][0].values_path(), "web.grpcPort");
    for file in ["web-deployment.yaml", "worker-deployment.yaml"] {
        let text = template(file);
        assert!(text.contains("include \"loupe.secretEnv\""), "{file} reads the secrets");
        assert!(text.contains("configMapRef"), "{file} reads the ConfigMap");
        assert!(
            text.contains("enableServiceLinks: false"),
            "{file}: service links would inject REDIS_PORT=tcp://…"
        );
    }
}

#[test]
fn the_secret_is_referenced_never_created() {
    for name in [
        "configmap.yaml",
        "web-deployment.yaml",
        "worker-deployment.yaml",
        "web-service.yaml",
        "worker-service.yaml",
    ] {
        assert!(!template(name).contains("kind: Secret"), "{name}");
    }
    let helpers = template("_helpers.tpl");
    for required in ["DATABASE_URL\" $keys.databaseUrl false", "SALT\" $keys.salt false"] {
        assert!(helpers.contains(required), "{required}: a pod without it must not start");
    }
    assert!(helpers.contains("default (include \"loupe.fullname\" .) .Values.secrets.existingSecret"));
}

#[test]
fn every_value_is_documented() {
    let text = read(&format!("{CHART}/values.yaml")).unwrap();
    let undocumented: Vec<String> = documented_keys(&text)
        .into_iter()
        .filter(|k| k.comment.is_empty())
        .map(|k| format!("{} (line {})", k.path, k.line))
        .collect();
    assert!(undocumented.is_empty(), "values.yaml keys without a comment: {undocumented:?}");
}

/// The comment of each values key that feeds a setting names that setting, and when the value is left
/// empty (Loupe's default applies) it states the catalogue's default.
#[test]
fn value_comments_name_their_variable_and_its_default() {
    let text = read(&format!("{CHART}/values.yaml")).unwrap();
    let keys = documented_keys(&text);
    let values = values();
    for (name, found) in sources() {
        let setting = SETTINGS.iter().find(|s| s.name == name).unwrap();
        for source in found {
            let path = source.values_path();
            let key =
                keys.iter().find(|k| k.path == path).unwrap_or_else(|| panic!("{path} not in block style"));
            assert!(
                key.comment.contains(&name),
                "values.yaml {path}: the comment should name {name}: {:?}",
                key.comment
            );
            let unset = lookup(&values, path).and_then(scalar).is_none_or(|v| v.is_empty());
            if unset && !setting.default.is_empty() && !matches!(source, Source::Secret(_)) {
                assert!(
                    normalise(&key.comment).contains(&normalise(setting.default)),
                    "values.yaml {path} is empty, so its comment must give {name}'s default {:?}: {:?}",
                    setting.default,
                    key.comment
                );
            }
        }
    }
}

#[test]
fn probes_ask_the_paths_the_binaries_serve() {
    let web = template("web-deployment.yaml");
    assert_eq!(web.matches(&format!("path: {WEB_HEALTH}\n")).count(), 3, "startup, readiness and liveness");
    for probe in ["startupProbe:", "readinessProbe:", "livenessProbe:"] {
        assert!(web.contains(probe), "web: {probe}");
    }
    let worker = template("worker-deployment.yaml");
    assert_eq!(worker.matches(&format!("path: {WORKER_HEALTH}\n")).count(), 2, "startup and readiness");
    assert_eq!(worker.matches(&format!("path: {WORKER_LIVE}\n")).count(), 1, "liveness");
    let stuck = format!("path: {WORKER_HEALTH}?{STUCK_QUERY}\n");
    assert_eq!(worker.matches(&stuck).count(), 1);
    let guard = worker.find("{{- if .Values.worker.propagationStuckProbe.enabled }}").unwrap();
    assert!(worker.find(&stuck).unwrap() > guard, "the stuck probe is behind its switch");
    let values = values();
    let switch = lookup(&values, "worker.propagationStuckProbe.enabled").unwrap();
    assert_eq!(switch, &Value::Bool(false), "the stuck-propagation probe is off by default");
}

#[test]
fn default_ports_are_what_the_binaries_serve() {
    let ports = common::default_ports();
    let values = values();
    let port = |path| lookup(&values, path).and_then(Value::as_u64).unwrap();
    assert_eq!(port("web.port"), u64::from(ports.web_http));
    assert_eq!(port("web.grpcPort"), u64::from(ports.web_grpc));
    assert_eq!(port("worker.port"), u64::from(ports.worker_http));
    assert_eq!(port("web.service.port"), u64::from(ports.web_http));
    assert_eq!(port("web.service.grpcPort"), u64::from(ports.web_grpc));
    assert_eq!(port("worker.service.port"), u64::from(ports.worker_http));
}

#[test]
fn helpers_define_names_and_labels() {
    let helpers = template("_helpers.tpl");
    for name in [
        "loupe.name",
        "loupe.fullname",
        "loupe.chart",
        "loupe.labels",
        "loupe.selectorLabels",
        "loupe.secretName",
        "loupe.secretEnv",
    ] {
        assert!(helpers.contains(&format!("{{{{- define \"{name}\" -}}}}")), "_helpers.tpl defines {name}");
    }
}

/// The Helm start-mode files give the same migration environment as the compose overrides.
#[test]
fn helm_start_modes_match_the_compose_overrides() {
    let sources = sources();
    let variable_of = |path: &str| -> String {
        sources
            .iter()
            .find(|(_, s)| s.iter().any(|s| s.values_path() == path))
            .map(|(name, _)| name.clone())
            .unwrap_or_else(|| panic!("{path} feeds no variable"))
    };
    for mode in START_MODES {
        let helm = yaml_file(mode.helm).unwrap();
        let migration = helm.get("migration").and_then(Value::as_mapping).unwrap();
        assert_eq!(helm.as_mapping().unwrap().len(), 1, "{}: migration settings only", mode.helm);
        let from_helm: Env = migration
            .iter()
            .map(|(k, v)| (variable_of(&format!("migration.{}", scalar(k).unwrap())), scalar(v).unwrap()))
            .collect();
        let compose = yaml_file(mode.compose).unwrap();
        let from_compose = merged_service_env(&[&compose], "web", &Env::new()).unwrap();
        assert_eq!(from_helm, from_compose, "{} and {}", mode.helm, mode.compose);
    }
}
