# Loupe's developer commands. `just run` and `just test` work on a fresh Debian machine: they start
# what they need (deploy/local/stack.sh) and build what they run.

set shell := ["bash", "-euo", "pipefail", "-c"]

target := env_var_or_default("CARGO_TARGET_DIR", justfile_directory() / "target")

# Show the recipes.
default:
    @just --list

# Start the local stack (PostgreSQL, Redis, ClickHouse engine, S3) for a profile: dev or test.
stack-up profile="dev":
    deploy/local/stack.sh up {{ profile }}

# Stop the local stack of a profile.
stack-down profile="dev":
    deploy/local/stack.sh down {{ profile }}

# Serve the API and the web UI (http://localhost:3000/, OTLP gRPC 4317) and run the worker (health 3030) on the dev stack.
run: (stack-up "dev") ui-build
    cargo build --bins
    deploy/local/run.sh

# The whole test suite on the test stack (separate from `just run`'s).
test: (stack-up "test") deploy-tools ui-build
    command -v cargo-nextest >/dev/null || cargo install cargo-nextest --locked
    cargo build --bins
    .local/venv/bin/python -m unittest discover -s deploy/local/chfront -p 'test_*.py'
    # Real client libraries for the end-to-end tests (pinned: what the fixtures recorded).
    .local/venv/bin/python -c 'import langfuse' 2>/dev/null || .local/venv/bin/pip install -q "langfuse==5.0.4" "opentelemetry-exporter-otlp-proto-http==1.45.2"
    # The last Python SDK generation with the legacy v1 read resources, for `tests/e2e/py2`.
    [ -x .local/venv-py2/bin/python ] || python3 -m venv .local/venv-py2
    .local/venv-py2/bin/python -c 'import langfuse' 2>/dev/null || .local/venv-py2/bin/pip install -q --disable-pip-version-check "langfuse==2.60.10"
    command -v npm >/dev/null || apt-get install -y -q --no-install-recommends nodejs npm
    cd tests/e2e/js && { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error; }
    # The web UI's component tests; its browser tests run in Debian's chromium from tests/blackbox/ui.rs.
    [ -x /usr/bin/chromium ] || apt-get install -y -q --no-install-recommends chromium
    cd ui && npm test
    set -a && source .local/stack-test.env && set +a && cargo nextest run --workspace --no-fail-fast

# Build the web UI (ui/ → ui/dist) when its sources are newer than the build; `npm ci` first when the lock file changed.
ui-build:
    #!/usr/bin/env bash
    set -euo pipefail
    command -v npm >/dev/null || apt-get install -y -q --no-install-recommends nodejs npm
    node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' \
        || { echo "the web UI needs Node.js 20.19 or newer (found $(node --version))" >&2; exit 1; }
    cd ui
    if [ ! node_modules/.package-lock.json -nt package-lock.json ]; then
        PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
    fi
    if [ ! -f dist/index.html ] || [ -n "$(find index.html package-lock.json vite.config.ts tsconfig.json src public scripts -newer dist/index.html -print -quit)" ]; then
        npm run build
    fi

# Fuzz the ingestion decoders and span conversion (fuzz/, libFuzzer on the stable toolchain): every target, or one, for SECONDS each; more arguments go to libFuzzer (`just fuzz otlp_json 600 -seed=7`).
fuzz target="all" seconds="60" *args:
    scripts/fuzz.sh {{ target }} {{ seconds }} {{ args }}

# Benchmarks against the dev stack with release builds; prints its figures. `just bench ingest`, `just bench backfill`, `just bench read`, `just bench prompts`, `just bench fairness`, `just bench freshness`, `just bench identity`, `just bench trace`, `just bench retention`, `just bench monitors`, `just bench evaluators`.
bench what *args: (stack-up "dev")
    cargo build --release -p web -p worker -p loadgen
    if [ "{{ what }}" = backfill ]; then \
        .local/venv/bin/python tools/drill/backfill_bench.py --bin-dir {{ target }}/release {{ args }}; \
    elif [ "{{ what }}" = retention ]; then \
        .local/venv/bin/python tools/drill/retention_bench.py --bin-dir {{ target }}/release {{ args }}; \
    elif [ "{{ what }}" = read ]; then \
        .local/venv/bin/python tools/drill/read_bench.py --bin-dir {{ target }}/release {{ args }}; \
    elif [ "{{ what }}" = trace ]; then \
        (cd ui && npm ci && npm run build) && \
        .local/venv/bin/python tools/drill/trace_bench.py --bin-dir {{ target }}/release {{ args }}; \
    else \
        {{ target }}/release/loupe-bench {{ what }} --bin-dir {{ target }}/release {{ args }}; \
    fi

# Format check (the fuzz crate too), no module loop in any crate, and clippy with warnings as errors.
lint:
    cargo fmt --all -- --check
    cargo fmt --manifest-path fuzz/Cargo.toml -- --check
    python3 scripts/module_loops.py
    cargo clippy --workspace --all-targets -- -D warnings

# Format the code.
fmt:
    cargo fmt --all

# Regenerate the README configuration table from the settings catalogue.
docs:
    python3 scripts/config_table.py

# Install the deployment checks' tools (Helm's Go SDK, Kubernetes and compose-spec schemas) into .local/deploy-venv.
deploy-tools:
    #!/usr/bin/env bash
    set -euo pipefail
    venv=.local/deploy-venv
    if ! cmp -s deploy/check/requirements.txt "$venv/.installed"; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q --disable-pip-version-check -r deploy/check/requirements.txt
        cp deploy/check/requirements.txt "$venv/.installed"
    fi

# The deployment checks alone: Dockerfile, compose files, Helm chart (rendered), upgrade runbook.
deploy-check: deploy-tools
    cargo test -p deploy-check

# The migration drill on the dev stack: N legacy traces, dual write with worker kills during the backfill, cutover, verify.
drill n="2000": (stack-up "dev")
    cargo build --bins
    .local/venv/bin/python tools/drill/drill.py --traces {{ n }} --bin-dir {{ target }}/debug --env .local/stack.env

# The takeover drill on the dev stack (docs/takeover.md, "The switch"): a v3 database pair with N traces, stop v3,
# import, dual under traffic with v3's keys and worker kills during the backfill, events_only, verify, read back.
drill-takeover n="2000" *args="": (stack-up "dev")
    cargo build --bins
    .local/venv/bin/python tools/drill/takeover.py --traces {{ n }} --bin-dir {{ target }}/debug --env .local/stack.env {{ args }}
