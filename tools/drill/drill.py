#!/usr/bin/env python3
"""The migration drill (`just drill N`): a v3 deployment moved to v4 under load, with the worker
killed during the backfill, and a check that nothing was lost.

1. legacy: N historic traces (nested spans, generations, events; scores on traces, observations and
   sessions) through the legacy batch API; dataset run items for a tenth of them.
2. dual: the backfill runs while old-SDK batches and v4 OTel spans keep arriving; the worker is
   SIGKILLed at random points at least three times and restarted.
3. events_only: staging drains; `worker verify-migration` must report `mismatches: 0`, every
   acknowledged live trace must be in the v4 tables, and the old tables' historic rows unchanged.
Exits non-zero on any loss. Runs against the dev stack in databases of its own.
"""
import argparse
import base64
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

PUBLIC_KEY, SECRET_KEY, ADMIN_KEY = "pk-lf-drill", "sk-lf-drill", "drill-admin-key"
AUTH = "Basic " + base64.b64encode(f"{PUBLIC_KEY}:{SECRET_KEY}".encode()).decode()
OLD_TABLES = {
    "traces": "startsWith(id, 'hist-')",
    "observations": "startsWith(trace_id, 'hist-')",
    "scores": "startsWith(id, 'hist-')",
    "dataset_run_items_rmt": "1",
}


def log(message):
    print(f"[drill {time.strftime('%H:%M:%S')}] {message}", flush=True)


def http(method, url, body=None, headers=None, timeout=30):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def wait_for(what, condition, timeout, every=0.5):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise SystemExit(f"drill: timed out after {timeout}s waiting for {what}")


class Drill:
    def __init__(self, args):
        self.args = args
        self.stamp = f"drill_{int(time.time())}"
        self.base_env = dict(line.split("=", 1) for line in open(args.env).read().split("\n") if "=" in line)
        self.ch_url = self.base_env["CLICKHOUSE_URL"]
        # The benches (`exports_bench.py`, `retention_bench.py`, `backfill_bench.py`) build a Drill
        # without a `--ports` flag: they get the drill's defaults and move single ports themselves.
        ports = getattr(args, "ports", "3910,4910,3930")
        self.web_port, self.grpc_port, self.worker_port = (int(p) for p in ports.split(","))
        self.auth = AUTH
        self.web = self.worker = None
        self.acked = []
        self.kills = 0
        self.stop_traffic = threading.Event()

    # --- stores ---
    def ch(self, sql):
        url = f"{self.ch_url}/?database={self.stamp}"
        request = urllib.request.Request(url, data=sql.encode(), method="POST")
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.read().decode().strip()

    def create_databases(self):
        server = self.base_env["DATABASE_URL"].rsplit("/", 1)[0]
        subprocess.run(["psql", f"{server}/postgres", "-qc", f"CREATE DATABASE {self.stamp}"], check=True)
        self.env = dict(self.base_env)
        self.env.update({
            "DATABASE_URL": f"{server}/{self.stamp}",
            "CLICKHOUSE_DB": self.stamp,
            "LANGFUSE_REDIS_KEY_PREFIX": f"{self.stamp}:",
            "LANGFUSE_INIT_ORG_ID": "drill-org",
            "LANGFUSE_INIT_PROJECT_ID": "drill",
            "LANGFUSE_INIT_PROJECT_PUBLIC_KEY": PUBLIC_KEY,
            "LANGFUSE_INIT_PROJECT_SECRET_KEY": SECRET_KEY,
            **self.process_settings(salt="drill-salt"),
        })

    def process_settings(self, salt):
        """What every web and worker of a drill gets beside its databases (`takeover.py` too): blobs
        under the run's prefix, loopback, the drill's gRPC port and admin key, quiet logs, and the
        small chunks and short intervals that let a drill watch a backfill and propagation within minutes."""
        return {
            "LANGFUSE_S3_EVENT_UPLOAD_PREFIX": f"{self.stamp}/",
            "LANGFUSE_LISTEN_ADDRESS": "127.0.0.1",
            "LANGFUSE_OTEL_GRPC_PORT": str(self.grpc_port),
            "ADMIN_API_KEY": ADMIN_KEY,
            "SALT": salt,
            "LANGFUSE_LOG_LEVEL": "warn",
            "LANGFUSE_BACKFILL_CHUNK_ROWS": str(self.args.chunk_rows),
            "LANGFUSE_BACKFILL_EXPERIMENT_BATCH_TRACES": "20",
            "LANGFUSE_EXPERIMENT_EVENT_PROPAGATION_PARTITION_DELAY_MINUTES": "4",
            "LANGFUSE_EVENT_PROPAGATION_INTERVAL_SECONDS": "5",
            "LANGFUSE_INGESTION_FLUSH_INTERVAL_MS": "200",
        }

    # --- processes ---
    def start(self, name, mode, extra=None):
        env = dict(os.environ)
        env.update(self.env)
        env["LANGFUSE_MIGRATION_V4_WRITE_MODE"] = mode
        env["PORT"] = str(self.web_port if name == "web" else self.worker_port)
        env.update(extra or {})
        process = subprocess.Popen([os.path.join(self.args.bin_dir, name)], env=env)
        port = env["PORT"]
        path = "/api/public/health" if name == "web" else "/api/live"
        wait_for(f"{name} to answer", lambda: self.alive(f"http://127.0.0.1:{port}{path}"), 120)
        return process

    @staticmethod
    def alive(url):
        try:
            return http("GET", url, timeout=2)[0] == 200
        except OSError:
            return False

    def stop(self, process, sig=signal.SIGTERM):
        if process and process.poll() is None:
            process.send_signal(sig)
            process.wait(timeout=60)

    def switch(self, mode, extra=None):
        self.stop(self.web)
        self.stop(self.worker)
        self.web = self.start("web", mode, extra)
        self.worker = self.start("worker", mode, extra)
        self.mode, self.extra = mode, extra
        log(f"web and worker running in {mode}")

    # --- traffic ---
    def legacy_batch(self, prefix, first, count):
        now = time.time()
        batch = []
        for n in range(first, first + count):
            trace = f"{prefix}-{n}"
            at = lambda s: time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now - 3600 * (n % 48) + s)) + ".000Z"
            event = lambda kind, body: batch.append(
                {"id": f"{trace}-{kind}-{len(batch)}", "type": kind, "timestamp": at(0), "body": body})
            event("trace-create", {"id": trace, "name": f"chat-{n % 7}", "userId": f"user-{n % 13}",
                                   "sessionId": f"session-{n % 17}", "tags": ["drill"], "timestamp": at(0),
                                   "metadata": {"batch": prefix}})
            event("span-create", {"id": f"{trace}-s", "traceId": trace, "name": "agent", "startTime": at(1), "endTime": at(9)})
            event("generation-create", {"id": f"{trace}-g", "traceId": trace, "parentObservationId": f"{trace}-s",
                                        "name": "llm", "startTime": at(2), "endTime": at(5), "model": "gpt-4o",
                                        "usage": {"input": 10, "output": 20}})
            event("span-create", {"id": f"{trace}-t", "traceId": trace, "parentObservationId": f"{trace}-g",
                                  "name": "tool", "startTime": at(3), "endTime": at(4)})
            event("event-create", {"id": f"{trace}-e", "traceId": trace, "parentObservationId": f"{trace}-s",
                                   "name": "log", "startTime": at(6)})
            event("score-create", {"id": f"{trace}-score-t", "traceId": trace, "name": "quality", "value": 0.5})
            event("score-create", {"id": f"{trace}-score-o", "traceId": trace, "observationId": f"{trace}-g",
                                   "name": "accuracy", "value": 1})
            if n % 5 == 0:
                event("score-create", {"id": f"{trace}-score-s", "sessionId": f"session-{n % 17}", "name": "csat", "value": 4})
        status, body = http("POST", f"http://127.0.0.1:{self.web_port}/api/public/ingestion", {"batch": batch},
                            {"Authorization": self.auth, "x-langfuse-sdk-name": "python", "x-langfuse-sdk-version": "2.60.0"})
        errors = (body or {}).get("errors", [])
        if status != 207 or errors:
            raise SystemExit(f"drill: batch refused ({status}): {errors[:3]}")
        return [f"{prefix}-{n}" for n in range(first, first + count)]

    def otel_trace(self, n):
        trace_id = os.urandom(16).hex()
        start = time.time_ns()
        attrs = lambda: [{"key": "user.id", "value": {"stringValue": f"otel-user-{n % 5}"}},
                         {"key": "session.id", "value": {"stringValue": f"otel-session-{n % 3}"}}]
        root, child = os.urandom(8).hex(), os.urandom(8).hex()
        spans = [
            {"traceId": trace_id, "spanId": root, "name": "request", "startTimeUnixNano": str(start),
             "endTimeUnixNano": str(start + 5_000_000), "attributes": attrs()},
            {"traceId": trace_id, "spanId": child, "parentSpanId": root, "name": "llm", "startTimeUnixNano": str(start + 1000),
             "endTimeUnixNano": str(start + 4_000_000),
             "attributes": attrs() + [{"key": "langfuse.observation.type", "value": {"stringValue": "generation"}}]},
        ]
        body = {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "langfuse-sdk"}, "spans": spans}]}]}
        status, _ = http("POST", f"http://127.0.0.1:{self.web_port}/api/public/otel/v1/traces", body,
                         {"Authorization": self.auth, "x-langfuse-ingestion-version": "4", "x-langfuse-sdk-name": "python",
                          "x-langfuse-sdk-version": "4.7.0"})
        if status != 200:
            raise SystemExit(f"drill: OTel export refused ({status})")
        return trace_id

    def live_traffic(self):
        n = 0
        while not self.stop_traffic.is_set():
            try:
                self.acked += self.legacy_batch("live", n, 5)
                self.acked.append(self.otel_trace(n))
                n += 5
            except (OSError, SystemExit) as error:
                log(f"live traffic: {error} (web restarting?)")
            time.sleep(0.3)

    # --- checks ---
    def checksums(self):
        return {t: self.ch(f"SELECT count(), groupBitXor(cityHash64(toString(tuple(*)))) FROM {t} FINAL WHERE {w}")
                for t, w in OLD_TABLES.items()}

    def steps(self):
        _, body = http("GET", f"http://127.0.0.1:{self.web_port}/api/admin/background-migrations",
                       headers={"Authorization": f"Bearer {ADMIN_KEY}"})
        return (body or {}).get("data", [])

    def backfill_done(self):
        steps = self.steps()
        failed = [s for s in steps if s["status"] == "failed"]
        if failed:
            raise SystemExit(f"drill: backfill step failed: {failed[0]['name']}: {failed[0]['lastError']}")
        return steps and all(s["status"] == "succeeded" for s in steps[:4])

    def backfill_with_kills(self):
        """Waits for M1–M4 to succeed, SIGKILLing the worker mid-step `--kills` times (then restarting it)."""
        deadline = time.time() + 600
        while not self.backfill_done():
            if time.time() > deadline:
                raise SystemExit("drill: backfill did not finish in 10 minutes")
            running = [s for s in self.steps() if s["status"] == "running"]
            if running and self.kills < self.args.kills:
                time.sleep(random.uniform(0.2, 2.0))
                if self.backfill_done():
                    break
                step = running[0]
                self.stop(self.worker, signal.SIGKILL)
                self.kills += 1
                log(f"SIGKILL worker #{self.kills} during step {step['position']} ({step['rowsDone']}/{step['rowsEstimated']} {step['unit']})")
                self.worker = self.start("worker", "dual", self.extra)
            else:
                time.sleep(0.5)

    def worker_command(self, *args, mode="events_only"):
        """A worker subcommand (`verify-migration`, `import-langfuse`, …) with this drill's configuration."""
        env = dict(os.environ)
        env.update(self.env)
        env["LANGFUSE_MIGRATION_V4_WRITE_MODE"] = mode
        return subprocess.run([os.path.join(self.args.bin_dir, "worker"), *args], env=env, capture_output=True, text=True)

    def cutover_and_verify(self):
        """Restarts web and worker in `events_only`, waits for staging to drain, runs `verify-migration`."""
        self.switch("events_only")
        health = http("GET", f"http://127.0.0.1:{self.worker_port}/api/health")[1]["eventPropagation"]
        log(f"staging at cutover: {health['pendingPartitions']} partitions pending, {health['rowsPropagated']} rows "
            f"propagated so far")
        wait_for("propagation of every staged partition", lambda: http(
            "GET", f"http://127.0.0.1:{self.worker_port}/api/health")[1]["eventPropagation"]["pendingPartitions"] == 0,
            600, every=2)
        verify = self.worker_command("verify-migration")
        print(verify.stdout, end="")
        return verify

    def run(self):
        n = self.args.traces
        self.create_databases()
        log(f"databases {self.stamp}; phase 1: legacy, {n} historic traces")
        self.switch("legacy")
        for first in range(0, n, 50):
            self.legacy_batch("hist", first, min(50, n - first))
        wait_for("historic traces in v3", lambda: self.ch("SELECT count() FROM traces FINAL") == str(n), 300)
        experiments = list(range(0, n, 10))
        rows = ", ".join(
            f"('dri-{i}', 'drill', 'run-{i % 3}', 'item-{i}', 'dataset', 'hist-{i}', "
            f"{'NULL' if i % 20 == 0 else repr(f'hist-{i}-g')}, now64(3) - INTERVAL {i} SECOND, 'run {i % 3}', "
            f"map('model', 'gpt'), now64(3), '\"expected\"', map(), now64(3), 0)" for i in experiments)
        self.ch("INSERT INTO dataset_run_items_rmt (id, project_id, dataset_run_id, dataset_item_id, dataset_id, trace_id, "
                "observation_id, created_at, dataset_run_name, dataset_run_metadata, dataset_run_created_at, "
                f"dataset_item_expected_output, dataset_item_metadata, event_ts, is_deleted) VALUES {rows}")
        before = self.checksums()
        log(f"historic data written: {before['traces'].split()[0]} traces, {before['observations'].split()[0]} "
            f"observations, {len(experiments)} dataset run items")

        log("phase 2: dual write, backfill on, live traffic, worker kills")
        self.switch("dual", {"LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL": "true"})
        traffic = threading.Thread(target=self.live_traffic, daemon=True)
        traffic.start()
        self.backfill_with_kills()
        self.stop_traffic.set()
        traffic.join()
        log(f"backfill done; {len(self.acked)} live traces acknowledged")
        wait_for("the ingestion backlog to drain", lambda: http(
            "GET", f"http://127.0.0.1:{self.worker_port}/api/health")[1].get("ingestionBacklog") == 0, 120)

        log("phase 3: cutover to events_only; waiting for staging to drain (up to ~4 minutes)")
        verify = self.cutover_and_verify()
        after = self.checksums()
        in_v4 = set(self.ch("SELECT DISTINCT trace_id FROM events_full").split())
        missing = [t for t in self.acked if t not in in_v4]
        unchanged = after == before
        self.stop(self.web)
        self.stop(self.worker)
        print(f"live traces acknowledged: {len(self.acked)}, missing from v4: {len(missing)} {missing[:5]}")
        print(f"worker kills during the backfill: {self.kills}")
        print(f"old tables unchanged: {'yes' if unchanged else 'no'} " + json.dumps(after if unchanged else {"before": before, "after": after}))
        mismatches = next((l for l in verify.stdout.splitlines() if l.startswith("mismatches:")), "mismatches: ?")
        print(mismatches)
        ok = verify.returncode == 0 and not missing and unchanged and self.kills >= self.args.kills
        if ok:
            self.ch(f"DROP DATABASE {self.stamp}")
        else:
            print(f"databases kept for inspection: {self.stamp}")
        return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", type=int, default=2000)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--env", default=".local/stack.env")
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--chunk-rows", type=int, default=100)
    parser.add_argument("--ports", default="3910,4910,3930", help="web HTTP, web OTLP gRPC and worker ports")
    drill = Drill(parser.parse_args())
    try:
        sys.exit(drill.run())
    finally:
        drill.stop_traffic.set()
        for process in (drill.web, drill.worker):
            if process and process.poll() is None:
                process.kill()


if __name__ == "__main__":
    main()
