//! deploy/docker/Dockerfile and .dockerignore, read as text (no Docker engine here): the two targets,
//! the dependency-caching layer, a non-root user, and ports and health checks that match what the
//! binaries serve.

#![allow(clippy::unwrap_used)]

mod common;

use common::{WEB_HEALTH, WORKER_HEALTH};
use deploy_check::read;

const DOCKERFILE: &str = "deploy/docker/Dockerfile";

/// One build stage: its base, its name and its instructions (continuation lines joined).
#[derive(Debug)]
struct Stage {
    from: String,
    name: String,
    instructions: Vec<String>,
}

impl Stage {
    fn all(&self, keyword: &str) -> Vec<&str> {
        let prefix = format!("{keyword} ");
        self.instructions.iter().filter_map(|i| i.strip_prefix(&prefix)).collect()
    }

    fn one(&self, keyword: &str) -> &str {
        match self.all(keyword).as_slice() {
            [only] => only,
            other => panic!("stage {}: expected one {keyword}, found {other:?}", self.name),
        }
    }
}

fn instructions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || (line.is_empty() && current.is_empty()) {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(part) => current.push_str(part),
            None => {
                current.push_str(line);
                if !current.trim().is_empty() {
                    out.push(current.split_whitespace().collect::<Vec<_>>().join(" "));
                }
                current.clear();
            }
        }
    }
    out
}

/// The stages, with `ARG` defaults substituted into `FROM`.
fn stages() -> Vec<Stage> {
    let text = read(DOCKERFILE).unwrap();
    let mut args: Vec<(String, String)> = Vec::new();
    let mut stages: Vec<Stage> = Vec::new();
    for instruction in instructions(&text) {
        if let Some(from) = instruction.strip_prefix("FROM ") {
            let (image, name) = from.split_once(" AS ").unwrap_or_else(|| panic!("unnamed stage: {from}"));
            let mut image = image.to_owned();
            for (arg, value) in &args {
                image = image.replace(&format!("${{{arg}}}"), value);
            }
            stages.push(Stage { from: image, name: name.to_owned(), instructions: Vec::new() });
        } else if let Some(stage) = stages.last_mut() {
            stage.instructions.push(instruction);
        } else if let Some(arg) = instruction.strip_prefix("ARG ") {
            let (name, value) = arg.split_once('=').unwrap();
            args.push((name.to_owned(), value.to_owned()));
        }
    }
    stages
}

fn stage(name: &str) -> Stage {
    stages().into_iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no stage {name}"))
}

#[test]
fn images_build_on_the_agreed_bases() {
    let builder = stage("builder");
    assert_eq!(builder.from, "rust:1.95-bookworm");
    assert_eq!(stage("runtime").from, "debian:bookworm-slim", "the binaries link glibc: a Debian runtime");
    assert_eq!(stage("web").from, "runtime");
    assert_eq!(stage("worker").from, "runtime");
}

#[test]
fn dependencies_are_compiled_in_their_own_cached_layer() {
    let builder = stage("builder");
    let build = "cargo build --release --locked -p web -p worker";
    let steps = &builder.instructions;
    let first_build = steps.iter().position(|i| i.starts_with("RUN ") && i.contains(build)).unwrap();
    let sources = steps.iter().position(|i| i == "COPY . .").unwrap();
    assert!(first_build < sources, "dependencies build before the sources are copied: {steps:?}");
    assert!(steps[first_build - 1].starts_with("COPY --from=planner"), "…from the manifests-only tree");
    assert!(steps[sources + 1].contains(build), "then the real build");
    assert!(steps[sources + 1].contains("touch"), "the copied sources are touched, or cargo keeps the stubs");
    let planner = stage("planner");
    assert!(
        planner
            .instructions
            .iter()
            .any(|i| i.contains("Cargo.toml") && i.contains("Cargo.lock") && i.contains("-delete"))
    );
}

#[test]
fn the_binaries_copied_are_the_packages_built() {
    for name in ["web", "worker"] {
        let manifest = read(&format!("bins/{name}/Cargo.toml")).unwrap();
        assert!(manifest.contains(&format!("name = \"{name}\"")), "bins/{name} builds the binary {name}");
        assert!(!manifest.contains("[[bin]]"), "bins/{name}: a [[bin]] section may rename the binary");
        let target = stage(name);
        let binaries: Vec<&str> =
            target.all("COPY").into_iter().filter(|c| c.starts_with("--from=builder ")).collect();
        assert_eq!(binaries, [format!("--from=builder /out/{name} /usr/local/bin/{name}")]);
        assert_eq!(target.one("ENTRYPOINT"), format!("[\"/usr/local/bin/{name}\"]"));
    }
    assert!(
        stage("builder")
            .instructions
            .iter()
            .any(|i| i.contains("cp target/release/web target/release/worker /out/"))
    );
}

/// The web image carries the built UI (ui/, `npm ci` from the lock file, `npm run build`) in the directory
/// its `LANGFUSE_UI_DIR` names, and compose and the chart name the same one (an empty value there would
/// mean Loupe's default, `ui/dist`, which the image does not have).
#[test]
fn the_web_image_ships_the_ui_where_its_setting_points() {
    let ui = stage("ui");
    assert!(ui.from.starts_with("node:"), "the UI is built with Node: {}", ui.from);
    let runs = ui.all("RUN");
    let install = runs.iter().position(|r| r.contains("npm ci")).expect("the UI stage runs npm ci");
    let build = runs.iter().position(|r| r.contains("npm run build")).expect("…and npm run build");
    assert!(install < build);
    assert!(
        ui.all("COPY").contains(&"ui/package.json ui/package-lock.json ./"),
        "dependencies cached by the lock"
    );

    let web = stage("web");
    let copy = web.all("COPY").into_iter().find(|c| c.starts_with("--from=ui ")).expect("web copies the UI");
    let (source, dir) = copy.trim_start_matches("--from=ui ").split_once(' ').unwrap();
    assert_eq!(source, "/ui/dist");
    assert!(web.all("ENV").contains(&format!("LANGFUSE_UI_DIR={dir}").as_str()), "{:?}", web.all("ENV"));
    assert!(
        stage("worker").all("COPY").iter().all(|c| !c.starts_with("--from=ui")),
        "the worker serves no UI"
    );

    let compose = read("deploy/compose.yaml").unwrap();
    assert!(
        compose.contains(&format!("LANGFUSE_UI_DIR: {dir}\n")),
        "compose.yaml sets LANGFUSE_UI_DIR to {dir}"
    );
    let values = read("deploy/helm/loupe/values.yaml").unwrap();
    assert!(values.contains(&format!("uiDir: \"{dir}\"\n")), "values.yaml sets uiDir to {dir}");
}

#[test]
fn images_run_as_a_non_root_user_and_listen_on_every_address() {
    let runtime = stage("runtime");
    let user = runtime.one("USER");
    let uid = user.split(':').next().unwrap();
    assert!(
        uid.parse::<u32>().is_ok_and(|uid| uid != 0),
        "numeric non-root USER (runAsNonRoot can check it): {user}"
    );
    assert!(runtime.all("ENV").contains(&"LANGFUSE_LISTEN_ADDRESS=0.0.0.0"));
    assert!(
        runtime.all("ENV").contains(&"MIMALLOC_PURGE_DELAY=10000"),
        "both binaries keep freed memory for reuse"
    );
    assert!(runtime.all("RUN").iter().any(|r| r.contains("useradd") && r.contains(uid)));
    for name in ["web", "worker"] {
        assert!(stage(name).all("USER").is_empty(), "{name} keeps the runtime's non-root user");
    }
    let values = read("deploy/helm/loupe/values.yaml").unwrap();
    assert!(values.contains(&format!("runAsUser: {uid}")), "the chart runs as the image's user");
}

#[test]
fn exposed_ports_and_health_checks_match_what_the_binaries_serve() {
    let ports = common::default_ports();
    let web = stage("web");
    assert_eq!(web.one("EXPOSE"), format!("{} {}", ports.web_http, ports.web_grpc));
    assert!(
        web.one("HEALTHCHECK")
            .ends_with(&format!("CMD loupe-healthcheck \"${{PORT:-{}}}\" {WEB_HEALTH}", ports.web_http)),
        "{}",
        web.one("HEALTHCHECK")
    );
    let worker = stage("worker");
    assert_eq!(worker.one("EXPOSE"), ports.worker_http.to_string());
    assert!(
        worker.one("HEALTHCHECK").ends_with(&format!(
            "CMD loupe-healthcheck \"${{PORT:-{}}}\" {WORKER_HEALTH}",
            ports.worker_http
        )),
        "{}",
        worker.one("HEALTHCHECK")
    );
}

#[test]
fn the_health_check_script_needs_nothing_beyond_bash() {
    let path = deploy_check::repo_root().join("deploy/docker/loupe-healthcheck");
    let script = std::fs::read_to_string(&path).unwrap();
    assert!(script.starts_with("#!/bin/bash\n"));
    assert!(script.contains("/dev/tcp/127.0.0.1/"));
    let code: String =
        script.lines().filter(|l| !l.trim_start().starts_with('#')).collect::<Vec<_>>().join("\n");
    assert!(!code.contains("curl") && !code.contains("wget"), "the runtime image has neither");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert!(mode & 0o111 != 0, "loupe-healthcheck must be executable (git keeps the bit)");
    assert!(
        stage("runtime")
            .all("COPY")
            .contains(&"deploy/docker/loupe-healthcheck /usr/local/bin/loupe-healthcheck")
    );
}

#[test]
fn the_build_context_leaves_out_build_output_and_local_state() {
    let ignore = read(".dockerignore").unwrap();
    let entries: Vec<&str> =
        ignore.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    for needed in ["target/", ".local/"] {
        assert!(entries.contains(&needed), ".dockerignore lacks {needed}");
    }
    for kept in ["migrations", "Cargo.lock", "deploy", "crates", "bins"] {
        assert!(!entries.iter().any(|e| e.trim_end_matches('/') == kept), ".dockerignore must keep {kept}");
    }
}

#[test]
fn the_build_command_is_documented() {
    let dockerfile = read(DOCKERFILE).unwrap();
    for target in ["web", "worker"] {
        assert!(dockerfile.contains(&format!("docker build -f deploy/docker/Dockerfile --target {target}")));
    }
    let readme = read("README.md").unwrap();
    assert!(readme.contains("docker build -f deploy/docker/Dockerfile --target web"));
}
