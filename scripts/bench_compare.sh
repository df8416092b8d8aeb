#!/usr/bin/env bash
# Measures two builds back to back on the running test stack, for a before/after note: three ingest
# pairs (CPU per span, end to end), the engine's own insert rate (the ceiling), idle freshness per
# write mode, `dual` with every read polled, freshness under 5,000 spans/s, three pairs at 1,000
# requests/s (acknowledgement latency), then the after side once more with every payload written to
# the object store first (what carrying small payloads in their queue entries saves). Each side runs with its own stack env file, so a
# build whose migrations differ can have a PostgreSQL database of its own.
#
#   scripts/bench_compare.sh BEFORE_BIN_DIR BEFORE_ENV AFTER_BIN_DIR AFTER_ENV > figures.txt
#
# A bin dir holds release `web`, `worker` and `loupe-bench` (the AFTER dir's bench drives both sides).
set -uo pipefail
if [ $# -ne 4 ]; then
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
BEFORE=$1 ENV_A=$2 AFTER=$3 ENV_B=$4
LB=$AFTER/loupe-bench
cd "$(dirname "$0")/.."
echo "== start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for pair in 1 2 3; do
  echo "== ingest pair $pair: before"; $LB ingest --bin-dir "$BEFORE" --stack-env "$ENV_A" --requests 3000 --spans 100 --rate 200 --seconds 2
  echo "== ingest pair $pair: after";  $LB ingest --bin-dir "$AFTER" --stack-env "$ENV_B" --requests 3000 --spans 100 --rate 200 --seconds 2
done
echo "== engine ceiling $(date -u +%T)"; .local/venv/bin/python tools/loadgen/engine_bench.py
for mode in events_only dual legacy; do
  echo "== freshness $mode before"; $LB freshness --bin-dir "$BEFORE" --stack-env "$ENV_A" --samples 15 --env LANGFUSE_MIGRATION_V4_WRITE_MODE=$mode
  echo "== freshness $mode after";  $LB freshness --bin-dir "$AFTER" --stack-env "$ENV_B" --samples 40 --env LANGFUSE_MIGRATION_V4_WRITE_MODE=$mode
done
echo "== freshness dual after, every read polled together"; $LB freshness --bin-dir "$AFTER" --stack-env "$ENV_B" --samples 30 --poll all --env LANGFUSE_MIGRATION_V4_WRITE_MODE=dual
echo "== freshness under 5k load after"; $LB freshness --bin-dir "$AFTER" --stack-env "$ENV_B" --samples 40 --load 5000
for pair in 1 2 3; do
  echo "== ack pair $pair before"; $LB ingest --bin-dir "$BEFORE" --stack-env "$ENV_A" --requests 200 --spans 5 --rate 1000 --seconds 5
  echo "== ack pair $pair after";  $LB ingest --bin-dir "$AFTER" --stack-env "$ENV_B" --requests 200 --spans 5 --rate 1000 --seconds 5
done
# The same with every payload through the object store: what its PUT adds to the acknowledgement.
echo "== ack after, every payload as a blob"; $LB ingest --bin-dir "$AFTER" --stack-env "$ENV_B" --requests 200 --spans 5 --rate 1000 --seconds 5 --env LANGFUSE_INGESTION_QUEUE_INLINE_MAX_BYTES=0
echo "== end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
