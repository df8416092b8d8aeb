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
import statistics
import subprocess
import time
import urllib.request

from bench_web import BenchWeb, logger

PROJECT = "trace-bench"
EMAIL = "bench@example.com"
PASSWORD = "bench password"
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")

log = logger("trace-bench")


class Bench:
    def __init__(self, args):
        self.args = args
        self.server = BenchWeb("trace-bench", args.env, args.database, args.bin_dir)
        self.ch = self.server.ch
        self.base = self.server.base

    def start_web(self):
        dist = os.path.abspath(os.path.join(ROOT, "ui", "dist"))
        if not os.path.isfile(os.path.join(dist, "index.html")):
            raise SystemExit("trace-bench: build the UI first (cd ui && npm ci && npm run build)")
        self.server.start({
            "LANGFUSE_INIT_ORG_ID": "trace-bench-org",
            "LANGFUSE_INIT_PROJECT_ID": PROJECT,
            "LANGFUSE_INIT_PROJECT_NAME": "Trace bench",
            "LANGFUSE_INIT_PROJECT_PUBLIC_KEY": "pk-lf-trace-bench",
            "LANGFUSE_INIT_PROJECT_SECRET_KEY": "sk-lf-trace-bench",
            "LANGFUSE_INIT_USER_EMAIL": EMAIL,
            "LANGFUSE_INIT_USER_PASSWORD": PASSWORD,
            "LANGFUSE_UI_DIR": dist,
        })
        self.cookie = self.server.sign_in(EMAIL, PASSWORD)

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
            self.server.stop()


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
