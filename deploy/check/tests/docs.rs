//! docs/upgrade.md, the README's Deploy section and the code map: what they tell an operator matches
//! what the code does, and nothing planned is presented as existing.

#![allow(clippy::unwrap_used)]

mod common;

use deploy_check::{Env, read, repo_root};
use domain::config::{Role, SETTINGS};

const RUNBOOK: &str = "docs/upgrade.md";

#[test]
fn the_runbook_gives_the_health_check_command() {
    let runbook = read(RUNBOOK).unwrap();
    let ports = common::default_ports();
    let command = format!(
        "curl -fsS 'http://localhost:{}{}?{}'",
        ports.worker_http,
        common::WORKER_HEALTH,
        common::STUCK_QUERY
    );
    assert!(runbook.contains(&command), "{RUNBOOK} lacks {command}");
    assert!(runbook.contains(&format!("http://localhost:{}{}", ports.web_http, common::WEB_HEALTH)));
}

#[test]
fn the_runbook_commands_exist_in_the_worker() {
    let runbook = read(RUNBOOK).unwrap();
    let commands = read("bins/worker/src/commands.rs").unwrap();
    for command in ["migration-status", "verify-migration", "backfill-retry"] {
        assert!(
            runbook.contains(&format!("worker {command}")),
            "{RUNBOOK} does not explain `worker {command}`"
        );
        assert!(
            commands.contains(&format!("Some(\"{command}\")")),
            "the worker has no `{command}` subcommand"
        );
    }
    assert!(
        !runbook.contains("coming with the migration machinery"),
        "the machinery is here: update {RUNBOOK}"
    );
}

#[test]
fn failure_signs_in_the_runbook_match_the_code() {
    let runbook = read(RUNBOOK).unwrap();
    // Bad configuration: exit code 2 and the message's first line.
    assert!(read("crates/service/src/config.rs").unwrap().contains("std::process::exit(2)"));
    assert!(runbook.contains("code 2"));
    let env: Env = [
        ("LANGFUSE_MIGRATION_V4_WRITE_MODE", "legacy"),
        ("LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL", "true"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    let message = common::validate(Role::Worker, &env).unwrap_err().to_string();
    assert!(message.starts_with("invalid configuration:\n"), "{message}");
    assert!(runbook.contains("loupe worker: invalid configuration:"));
    let legacy_problem = message
        .lines()
        .find(|l| l.contains("LANGFUSE_MIGRATION_V4_WRITE_MODE + LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL"))
        .unwrap();
    let quoted = &legacy_problem[..legacy_problem.find(" (spec").unwrap()];
    assert!(runbook.contains(quoted), "the runbook quotes the real message: {quoted}");
    // The worker health body and the streams the runbook tells operators to look at.
    let health = read("bins/worker/src/health.rs").unwrap();
    // The body is a struct serialized in camelCase: its Rust field names are the wire names.
    assert!(
        health.contains("#[serde(rename_all = \"camelCase\")]\nstruct Readiness"),
        "worker health is camelCase"
    );
    for (field, wire) in [
        ("ingestion_backlog", "ingestionBacklog"),
        ("ingestion_lag_seconds", "ingestionLagSeconds"),
        ("dead_letters", "deadLetters"),
        ("write_mode", "writeMode"),
        ("dependencies", "dependencies"),
    ] {
        assert!(health.contains(&format!("    {field}: ")), "worker health has {wire}");
        assert!(runbook.contains(wire), "{RUNBOOK} mentions {wire}");
    }
    assert!(
        read("crates/service/src/stores.rs")
            .unwrap()
            .contains("format!(\"{}ingestion\", self.redis_key_prefix)")
    );
    let queue = read("crates/storage/src/queue.rs").unwrap();
    assert!(
        queue.contains("format!(\"{}:q:{project_id}\", self.base)")
            && queue.contains("format!(\"{}:queues\", self.base)")
            && queue.contains("format!(\"{}:inline\", self.base)")
    );
    assert!(runbook.contains("loupe:ingestion:q:<project id>") && runbook.contains("loupe:ingestion:queues"));
    assert!(runbook.contains("HGET loupe:ingestion:inline '*'"));
    assert!(
        runbook.contains("/api/admin/ingestion/dead-letters") && runbook.contains("ingestion_dead_letters")
    );
    assert!(
        runbook.contains("schema migrations done")
            && read("crates/storage/src/schema.rs").unwrap().contains("\"schema migrations done\"")
    );
}

#[test]
fn the_runbook_covers_the_steps_modes_and_rollback() {
    let runbook = read(RUNBOOK).unwrap();
    for heading in [
        "## Before you start",
        "## Choose the start mode",
        "## Step 1",
        "## Step 2",
        "## Step 3",
        "## Checking health",
        "## When something is wrong",
        "## Rollback (spec §9.6)",
    ] {
        assert!(runbook.contains(heading), "{RUNBOOK} lacks {heading}");
    }
    for row in ["| default | new deployment", "| dual | v3 upgrade", "| legacy | v3 upgrade"] {
        assert!(runbook.contains(row), "{RUNBOOK}: start-mode row {row}");
    }
    for mode in common::START_MODES {
        assert!(runbook.contains(mode.helm.trim_start_matches("deploy/helm/").split('/').next().unwrap()));
    }
    for fact in ["25.12", "26.4", "PostgreSQL 16", "Redis 7.2", "appendfsync always", "3×"] {
        assert!(runbook.contains(fact), "{RUNBOOK} states {fact}");
    }
}

/// Every Loupe-looking variable name in the runbook and in values.yaml is one Loupe reads (or the
/// deliberate misspelling the runbook warns about), so a copied name works.
#[test]
fn variable_names_in_the_docs_are_real() {
    let known =
        |name: &str| SETTINGS.iter().any(|s| s.name == name) || name == "LANGFUSE_MIGRATION_v4_WRITE_MODE";
    for file in [RUNBOOK, "deploy/helm/loupe/values.yaml", "deploy/helm/loupe/templates/configmap.yaml"] {
        let text = read(file).unwrap();
        let mut rest = text.as_str();
        while let Some(at) =
            ["LANGFUSE_", "CLICKHOUSE_", "REDIS_", "DATABASE_"].iter().filter_map(|p| rest.find(p)).min()
        {
            let token: String =
                rest[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            rest = &rest[at + token.len()..];
            let wildcard = token.ends_with('_') && rest.starts_with('*');
            assert!(known(&token) || wildcard, "{file}: {token} is not a Loupe setting");
        }
    }
}

#[test]
fn readme_has_a_deploy_section_whose_links_resolve() {
    let readme = read("README.md").unwrap();
    let deploy = readme.find("\n## Deploy\n").unwrap();
    let migrations = readme.find("\n## Schema migrations\n").unwrap();
    assert!(deploy < migrations, "Deploy comes right before Schema migrations");
    let section = &readme[deploy..migrations];
    let mut links = 0;
    for piece in section.split("](").skip(1) {
        let target = piece.split(')').next().unwrap();
        assert!(repo_root().join(target).exists(), "README Deploy links to missing {target}");
        links += 1;
    }
    assert!(links >= 6);
}

#[test]
fn the_code_map_has_the_deploy_rows() {
    let map = read("ARCHITECTURE.md").unwrap();
    for path in
        ["deploy/docker", "deploy/compose*.yaml", "deploy/helm/loupe", "deploy/check", "docs/upgrade.md"]
    {
        assert!(map.contains(&format!("| `{path}` |")), "ARCHITECTURE.md code map lacks {path}");
    }
}
