#!/usr/bin/env bash
# `just run`: web and worker in the foreground on the dev stack, with a bootstrapped default
# project. Ctrl-C stops both. Any LANGFUSE_* / PORT setting already in the environment wins over
# the local defaults below.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin="${CARGO_TARGET_DIR:-$root/target}/debug"

set -a
# shellcheck disable=SC1091
source "$root/.local/stack.env"
: "${LANGFUSE_LISTEN_ADDRESS:=127.0.0.1}"
: "${LANGFUSE_INIT_ORG_ID:=local-org}"
: "${LANGFUSE_INIT_ORG_NAME:=Local}"
: "${LANGFUSE_INIT_PROJECT_ID:=local-project}"
: "${LANGFUSE_INIT_PROJECT_NAME:=Local project}"
: "${LANGFUSE_INIT_PROJECT_PUBLIC_KEY:=pk-lf-local}"
: "${LANGFUSE_INIT_PROJECT_SECRET_KEY:=sk-lf-local}"
: "${ADMIN_API_KEY:=local-admin-key}"
: "${LANGFUSE_INIT_USER_EMAIL:=you@example.com}"
: "${LANGFUSE_INIT_USER_PASSWORD:=loupe-local-password}"
: "${LANGFUSE_UI_DIR:=$root/ui/dist}"
: "${SALT:=local-salt}"
set +a
web_port="${LOUPE_WEB_PORT:-3000}"
worker_port="${LOUPE_WORKER_PORT:-3030}"

PORT="$worker_port" "$bin/worker" &
worker=$!
PORT="$web_port" "$bin/web" &
web=$!

stop() {
    kill -TERM "$web" "$worker" 2>/dev/null || true
    wait "$web" "$worker" 2>/dev/null || true
}
trap 'stop; exit 0' INT TERM

url="http://$LANGFUSE_LISTEN_ADDRESS:$web_port"
for _ in $(seq 1 600); do
    if curl -fsS "$url/api/public/health" >/dev/null 2>&1; then
        cat <<MSG

  Loupe is up
    web UI         $url/   (sign in as $LANGFUSE_INIT_USER_EMAIL / $LANGFUSE_INIT_USER_PASSWORD)
    API            $url   (LANGFUSE_HOST / LANGFUSE_BASE_URL for the SDKs)
    public key     $LANGFUSE_INIT_PROJECT_PUBLIC_KEY
    secret key     $LANGFUSE_INIT_PROJECT_SECRET_KEY
    admin key      $ADMIN_API_KEY   (Authorization: Bearer …, /api/admin/*)
    OTLP           $url/api/public/otel/v1/traces, gRPC $LANGFUSE_LISTEN_ADDRESS:${LANGFUSE_OTEL_GRPC_PORT:-4317}
    worker health  http://$LANGFUSE_LISTEN_ADDRESS:$worker_port/api/health
  Ctrl-C stops web and worker; \`just stack-down\` stops the stack.

MSG
        break
    fi
    if ! kill -0 "$web" 2>/dev/null; then break; fi
    sleep 0.1
done

# Whichever exits first takes the other down with it.
set +e
wait -n "$web" "$worker"
status=$?
stop
exit "$status"
