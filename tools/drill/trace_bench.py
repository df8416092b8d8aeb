#!/usr/bin/env python3
"""`just bench trace`: how long the UI's trace panel takes to open a 10 000 and a 100 000 observation trace.

Fills a ClickHouse database of its own (dev stack) straight from SQL with one trace per size in
events_full (events_core follows through events_core_mv): a ten-way tree of spans, generations and
events with models, usage and cost. Starts a release web serving the built UI (`ui/dist`) with a first
user, then times the tree route (`GET /api/ui/projects/{id}/traces/{traceId}/tree`) over HTTP with the
session cookie (server time on loopback, p50 of the rounds, and the body's size), and the time from
navigation to the first rendered tree rows in Chromium (`ui/scripts/trace-open.mjs`).
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import time
import urllib.error
import urllib.request

from drill import wait_for

PROJECT = "trace-bench"
EMAIL = "bench@example.com"
PASSWORD = "bench password"
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def log(message):
    print(f"[trace-bench {time.strftime('%H:%M:%S')}] {message}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Bench:
    def __init__(self, args):
        self.args = args
        self.env = dict(line.split("=", 1) for line in open(args.env).read().split("\n") if "=" in line)
        self.web = None
        self.cookie = None

    def ch(self, sql, timeout=900):
        url = f"{self.env['CLICKHOUSE_URL']}/?database={self.args.database}"
        request = urllib.request.Request(url, data=sql.encode(), method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.read().decode().strip()
        except urllib.error.HTTPError as error:
            raise SystemExit(f"trace-bench: ClickHouse refused ({error.code}): {error.read().decode()[:2000]}")

    def postgres_url(self):
        server, name = self.env["DATABASE_URL"].rsplit("/", 1)[0], self.args.database
        psql = lambda sql: subprocess.run(["psql", f"{server}/postgres", "-qtAc", sql], check=True,
                                          capture_output=True, text=True).stdout.strip()
        if psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}'") != "1":
            psql(f"CREATE DATABASE {name}")
        return f"{server}/{name}"

    def start_web(self):
        dist = os.path.abspath(os.path.join(ROOT, "ui", "dist"))
        if not os.path.isfile(os.path.join(dist, "index.html")):
            raise SystemExit("trace-bench: build the UI first (cd ui && npm ci && npm run build)")
        self.port = free_port()
        env = dict(os.environ)
        env.update(self.env)
        env.update({
            "DATABASE_URL": self.postgres_url(),
            "CLICKHOUSE_DB": self.args.database,
            "LANGFUSE_LISTEN_ADDRESS": "127.0.0.1",
            "PORT": str(self.port),
            "LANGFUSE_OTEL_GRPC_PORT": str(free_port()),
            "LANGFUSE_INIT_ORG_ID": "trace-bench-org",
            "LANGFUSE_INIT_PROJECT_ID": PROJECT,
            "LANGFUSE_INIT_PROJECT_NAME": "Trace bench",
            "LANGFUSE_INIT_PROJECT_PUBLIC_KEY": "pk-lf-trace-bench",
            "LANGFUSE_INIT_PROJECT_SECRET_KEY": "sk-lf-trace-bench",
            "LANGFUSE_INIT_USER_EMAIL": EMAIL,
            "LANGFUSE_INIT_USER_PASSWORD": PASSWORD,
            "LANGFUSE_UI_DIR": dist,
            "SALT": "bench-salt",
            "LANGFUSE_LOG_LEVEL": "warn",
        })
        self.web = subprocess.Popen([os.path.join(self.args.bin_dir, "web")], env=env)

        def healthy():
            if self.web.poll() is not None:
                raise SystemExit(f"trace-bench: web exited with {self.web.returncode}")
            try:
                with urllib.request.urlopen(f"{self.base()}/api/public/health", timeout=2) as r:
                    return r.status == 200
            except OSError:
                return False

        wait_for("web to answer", healthy, 120)
        body = json.dumps({"email": EMAIL, "password": PASSWORD}).encode()
        request = urllib.request.Request(f"{self.base()}/api/ui/auth/sign-in", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as response:
            self.cookie = response.headers["Set-Cookie"].split(";")[0]

    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def stop_web(self):
        if self.web and self.web.poll() is None:
            self.web.terminate()
            try:
                self.web.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.web.kill()

    def fill(self, size):
        """Trace `tree-<size>`: span n's parent is span (n - 1) / 10; one in three a generation."""
        trace = f"tree-{size}"
        if self.ch(f"SELECT count() FROM events_core WHERE trace_id = '{trace}'") == str(size):
            return trace
        self.ch(f"ALTER TABLE events_full DELETE WHERE trace_id = '{trace}' SETTINGS mutations_sync = 2")
        self.ch(f"ALTER TABLE events_core DELETE WHERE trace_id = '{trace}' SETTINGS mutations_sync = 2")
        base = int(time.time() * 1000) - 3_600_000
        self.ch(f"""INSERT INTO events_full (project_id, trace_id, span_id, parent_span_id, start_time, end_time,
            name, type, level, provided_model_name, usage_details, cost_details, input, output, event_ts, is_deleted)
            SELECT '{PROJECT}', '{trace}', leftPad(lower(hex(cityHash64('{trace}', number))), 16, '0'),
            if(number = 0, '', leftPad(lower(hex(cityHash64('{trace}', intDiv(number - 1, 10)))), 16, '0')),
            fromUnixTimestamp64Milli(toInt64({base} + number * 3)),
            fromUnixTimestamp64Milli(toInt64({base} + number * 3 + 20 + number % 50)),
            ['plan', 'retrieve', 'tool:search', 'chat-completion', 'rerank', 'summarize'][number % 6 + 1],
            ['SPAN', 'GENERATION', 'EVENT'][number % 3 + 1], if(number % 97 = 0, 'ERROR', 'DEFAULT'),
            if(number % 3 = 1, 'gpt-4o-mini', ''),
            if(number % 3 = 1, map('input', 400, 'output', 120, 'total', 520), map()),
            if(number % 3 = 1, map('total', toDecimal64(0.00042, 12)), map()),
            '{{"role":"user","content":"a question"}}', '{{"role":"assistant","content":"an answer"}}', now64(6), 0
            FROM numbers({size})""")
        return trace

    def server_times(self, trace):
        url = f"{self.base()}/api/ui/projects/{PROJECT}/traces/{trace}/tree?model=v4"
        times, size = [], 0
        for _ in range(self.args.rounds + 1):
            started = time.perf_counter()
            with urllib.request.urlopen(urllib.request.Request(url, headers={"Cookie": self.cookie})) as response:
                body = response.read()
            times.append((time.perf_counter() - started) * 1000)
            size = len(body)
            count = json.loads(body)["count"]
        return times[1:], size, count  # the first read warms the engine's caches

    def browser(self, traces):
        env = dict(os.environ, LOUPE_BASE_URL=self.base(), LOUPE_USER_EMAIL=EMAIL, LOUPE_USER_PASSWORD=PASSWORD,
                   LOUPE_PROJECT_ID=PROJECT, LOUPE_ROUNDS=str(self.args.rounds))
        out = subprocess.run(["node", "scripts/trace-open.mjs", *traces], cwd=os.path.join(ROOT, "ui"), env=env,
                             check=True, capture_output=True, text=True).stdout
        return [json.loads(line) for line in out.splitlines() if line.startswith("{")]

    def run(self):
        self.start_web()
        try:
            traces = []
            for size in self.args.sizes:
                started = time.time()
                traces.append(self.fill(size))
                log(f"trace of {size} observations ready ({time.time() - started:.0f} s)")
            for trace, size in zip(traces, self.args.sizes):
                times, body, count = self.server_times(trace)
                assert count == size, f"the tree holds {count} of {size} observations"
                log(f"{size} observations: tree route p50 {statistics.median(times):.0f} ms "
                    f"(min {min(times):.0f}, max {max(times):.0f}), {body / 1e6:.2f} MB")
            for result in self.browser(traces):
                runs = result["runs"]
                p50 = lambda key: statistics.median(r[key] for r in runs)
                log(f"{result['traceId']}: first rows rendered in Chromium p50 {p50('rowsRendered'):.0f} ms after "
                    f"navigation (the app asks for the tree at {p50('treeSent'):.0f} ms, has it at "
                    f"{p50('treeAnswered'):.0f} ms; the rows {p50('rowsRendered') - p50('treeAnswered'):.0f} ms later: parse, "
                    f"build, render, and on a first visit React's reveal of the lazily loaded page); seen by the "
                    f"test at {p50('firstRows'):.0f} ms")
        finally:
            self.stop_web()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--env", default=".local/stack.env")
    parser.add_argument("--database", default="loupe_trace_bench")
    parser.add_argument("--sizes", default="10000,100000", type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--rounds", default=3, type=int)
    Bench(parser.parse_args()).run()


if __name__ == "__main__":
    main()
