#!/usr/bin/env python3
"""`just bench read`: latency of the read APIs on a filled database, and the web server's peak memory.

Fills a ClickHouse database of its own (dev stack) straight from SQL: N events over T traces in the last
24 h into events_full (events_core follows through events_core_mv), and the same traces and observations
into the v3 tables. A re-run reuses the data when it is still the requested size and recent. Then starts
the web server in `dual` mode (so both the v4 and the legacy reads answer) and times, with sequential
requests on a random generated trace each: v2 observations by trace id (without and with a time range),
a v2 metrics query, the legacy traces list, and the requests the web UI's Observations view makes
(`GET /api/ui/projects/{id}/observations` as a signed-in person: the first page, a filtered first
page, a search over names and one by trace id), and the UI's sessions pages (every fifth trace starts
a new session: 10 k sessions by default): the first page of the sessions list over the events and over
the v3 tables, and a random session's page. Exits non-zero on any failed or empty answer. `--only WORD`
runs the cases whose label contains it.
"""
import argparse
import base64
import json
import os
import random
import statistics
import time
import urllib.error
import urllib.parse
import urllib.request

from bench_web import BenchWeb, logger

AUTH = "Basic " + base64.b64encode(b"pk-lf-bench:sk-lf-bench").decode()
USER = ("bench@example.com", "bench user password")  # the first user, owner of the bench project
PROJECT = "bench-project"
TRACES_PER_SESSION = 5  # `session-{trace_no div 5}` in rows()
WARMUP = 5
PAGE = 50  # the default `limit` of both list endpoints
WORDS = ("the model answer context user query document retrieval token latency prompt cache vector search "
         "summary agent tool call result error retry stream chunk embedding score rank filter span trace").split()


log = logger("read-bench")


def ms(at):
    """Milliseconds since the epoch as the ISO 8601 the API takes."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(at / 1000)) + f".{int(at % 1000):03d}Z"


class Bench:
    def __init__(self, args):
        self.args = args
        self.server = BenchWeb("read-bench", args.env, args.database, args.bin_dir)
        self.ch = self.server.ch
        self.peak_rss_mb = self.server.peak_rss_mb
        self.stop_web = self.server.stop

    # --- the web server ---
    def start_web(self):
        self.server.start({
            "LANGFUSE_INIT_ORG_ID": "bench-org",
            "LANGFUSE_INIT_PROJECT_ID": PROJECT,
            "LANGFUSE_INIT_PROJECT_NAME": "Bench",
            "LANGFUSE_INIT_PROJECT_PUBLIC_KEY": "pk-lf-bench",
            "LANGFUSE_INIT_PROJECT_SECRET_KEY": "sk-lf-bench",
            "LANGFUSE_INIT_USER_EMAIL": USER[0],
            "LANGFUSE_INIT_USER_PASSWORD": USER[1],
            "LANGFUSE_MIGRATION_V4_WRITE_MODE": "dual",
            "LANGFUSE_MIGRATION_V4_ALLOW_PREVIEW_OPT_IN": "true",
        })
        self.port = self.server.port

    # --- data ---
    def fill(self):
        n, t = self.args.events, self.args.traces
        full = self.ch("SELECT count() FROM events_full")
        v3 = self.ch("SELECT (SELECT count() FROM traces), (SELECT count() FROM observations)").split()
        # Older data would fall out of the metrics query's 24 h window.
        fresh = self.ch("SELECT max(start_time) > now() - INTERVAL 6 HOUR FROM events_full") == "1"
        if [full, *v3] == [str(n), str(t), str(n)] and fresh:
            log(f"reusing {n} events and {t} traces in {self.args.database}")
            return
        for table in ("events_full", "events_core", "traces", "observations"):
            self.ch(f"TRUNCATE TABLE {table}")
        # One timestamp base for all tables, so that the v3 and v4 rows agree.
        base = int(time.time() * 1000) - 60_000
        started = time.time()
        for first in range(0, n, 250_000):
            count = min(250_000, n - first)
            self.ch(self.events_sql(first, count, base))
            self.ch(self.observations_sql(first, count, base))
            log(f"  {first + count}/{n} events and v3 observations ({time.time() - started:.0f} s)")
        self.ch(self.traces_sql(base))
        log(f"generated {n} events, {n} v3 observations and {t} traces in {time.time() - started:.0f} s")

    def rows(self, first, count, base):
        """Every generated field of events first … first+count-1. Event `number` belongs to trace
        number % T as its (number div T)-th span; span 0 is the trace's root and parent of the others."""
        t = self.args.traces
        words = "[" + ", ".join(f"'{w}'" for w in WORDS) + "]"
        text = lambda salt: (f"arrayStringConcat(arrayMap(i -> {words}[cityHash64(number, i, {salt}) % "
                             f"{len(WORDS)} + 1], range(70)), ' ')")  # ~500 characters of varied words
        return f"""(SELECT number, number % {t} AS trace_no, intDiv(number, {t}) AS seq,
            concat(leftPad(lower(hex(cityHash64(trace_no))), 16, '0'), leftPad(lower(hex(trace_no)), 16, '0')) AS g_trace_id,
            leftPad(lower(hex(cityHash64('span', number))), 16, '0') AS g_span_id,
            if(seq = 0, '', leftPad(lower(hex(cityHash64('span', trace_no))), 16, '0')) AS g_parent,
            if(seq = 0, 'SPAN', ['GENERATION', 'SPAN', 'EVENT'][seq % 3 + 1]) AS g_type,
            multiIf(seq = 0, 'agent-run', g_type = 'GENERATION', ['chat-completion', 'summarize'][number % 2 + 1],
                    g_type = 'SPAN', ['retrieve', 'tool:search', 'rerank'][number % 3 + 1], 'feedback') AS g_name,
            fromUnixTimestamp64Milli(toInt64({base} - intDiv(trace_no * 86000000, {t}) + seq * 100)) AS g_start,
            if(g_type = 'EVENT', NULL, g_start + toIntervalMillisecond(50 + number % 40 * 10)) AS g_end,
            concat('trace-', toString(trace_no % 10)) AS g_trace_name,
            concat('user-', toString(trace_no % 1000)) AS g_user, concat('session-', toString(intDiv(trace_no, 5))) AS g_session,
            ['bench', if(trace_no % 2 = 0, 'even', 'odd')] AS g_tags,
            100 + cityHash64(number, 1) % 2000 AS x, 20 + cityHash64(number, 2) % 500 AS y,
            if(g_type = 'GENERATION', map('input', x, 'output', y, 'total', x + y), map()) AS g_usage,
            toDecimal64(x * 25, 12) / 10000000 AS in_cost, toDecimal64(y, 12) / 100000 AS out_cost,
            if(g_type = 'GENERATION', map('input', in_cost, 'output', out_cost, 'total', in_cost + out_cost), map()) AS g_cost,
            if(g_type = 'GENERATION', 'gpt-4o-mini', '') AS g_model,
            concat('{{"role":"user","content":"', {text(1)}, '"}}') AS g_input,
            concat('{{"role":"assistant","content":"', {text(2)}, '"}}') AS g_output
            FROM numbers({first}, {count}))"""

    def events_sql(self, first, count, base):
        return f"""INSERT INTO events_full (project_id, trace_id, span_id, parent_span_id, start_time, end_time, name, type,
            environment, trace_name, user_id, session_id, tags, level, provided_model_name, provided_usage_details,
            usage_details, provided_cost_details, cost_details, input, output, metadata_names, metadata_values,
            event_ts, is_deleted)
            SELECT '{PROJECT}', g_trace_id, g_span_id, g_parent, g_start, g_end, g_name, g_type, 'default', g_trace_name,
            g_user, g_session, g_tags, 'DEFAULT', g_model, g_usage, g_usage, g_cost, g_cost, g_input, g_output,
            ['source', 'step'], ['bench', toString(seq)], now64(6), 0 FROM {self.rows(first, count, base)}"""

    def observations_sql(self, first, count, base):
        return f"""INSERT INTO observations (id, trace_id, project_id, environment, type, parent_observation_id, start_time,
            end_time, name, metadata, level, input, output, provided_model_name, provided_usage_details, usage_details,
            provided_cost_details, cost_details, total_cost, event_ts, is_deleted)
            SELECT g_span_id, g_trace_id, '{PROJECT}', 'default', g_type, nullIf(g_parent, ''), g_start, g_end, g_name,
            map('source', 'bench', 'step', toString(seq)), 'DEFAULT', g_input, g_output, nullIf(g_model, ''), g_usage,
            g_usage, g_cost, g_cost, if(g_type = 'GENERATION', g_cost['total'], NULL), now64(3), 0
            FROM {self.rows(first, count, base)}"""

    def traces_sql(self, base):
        # The traces are the events' root spans (seq 0 = the first T numbers).
        return f"""INSERT INTO traces (id, timestamp, name, user_id, metadata, project_id, environment, public,
            bookmarked, tags, input, output, session_id, event_ts, is_deleted)
            SELECT g_trace_id, g_start, g_trace_name, g_user, map('source', 'bench'), '{PROJECT}', 'default', false,
            false, g_tags, g_input, g_output, g_session, now64(3), 0 FROM {self.rows(0, self.args.traces, base)}"""

    def trace_sample(self):
        """(trace id, span count, first and last start in ms) of every generated trace."""
        out = self.ch("SELECT trace_id, count(), toUnixTimestamp64Milli(min(start_time)), "
                      "toUnixTimestamp64Milli(max(start_time)) FROM events_full GROUP BY trace_id FORMAT TabSeparated")
        return [(i, int(c), int(a), int(b)) for i, c, a, b in (line.split("\t") for line in out.splitlines())]

    # --- requests ---
    def sign_in(self):
        """The session cookie of the first user, for the UI's routes."""
        self.cookie = self.server.sign_in(*USER)

    def get(self, path, params):
        url = f"http://127.0.0.1:{self.port}{path}?{urllib.parse.urlencode(params)}"
        ui = path.startswith("/api/ui/")
        request = urllib.request.Request(url, headers={"Cookie": self.cookie} if ui else {"Authorization": AUTH})
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                body = response.read()
        except urllib.error.HTTPError as error:
            raise SystemExit(f"read-bench: GET {url} answered {error.code}: {error.read().decode()[:2000]}")
        elapsed = (time.perf_counter() - started) * 1000
        try:
            return elapsed, json.loads(body)
        except ValueError:
            raise SystemExit(f"read-bench: GET {url} answered 200 with no JSON: {body[:2000]!r}")

    def measure(self, label, request, check):
        """`request()` -> (path, params, expectation); `check(body, expectation)` -> problem or None."""
        times = []
        for round_ in range(WARMUP + self.args.rounds):
            path, params, expected = request()
            elapsed, body = self.get(path, params)
            problem = check(body, expected)
            if problem:
                raise SystemExit(f"read-bench: {label}: {problem}; request {path}?{urllib.parse.urlencode(params)}; "
                                 f"body {json.dumps(body)[:2000]}")
            if round_ >= WARMUP:
                times.append(elapsed)
        p99 = statistics.quantiles(times, n=100, method="inclusive")[98] if len(times) > 1 else times[0]
        figures = (statistics.median(times), p99, statistics.fmean(times))
        log(f"{label}: p50 {figures[0]:.1f} ms, p99 {figures[1]:.1f} ms, mean {figures[2]:.1f} ms")
        return label, figures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--env", default=".local/stack.env")
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--traces", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--database", default="loupe_read_bench")
    parser.add_argument("--only", default="", help="run only the cases whose label contains this")
    args = parser.parse_args()
    if not 0 < args.traces <= args.events:
        parser.error("need 0 < --traces <= --events")
    bench = Bench(args)
    try:
        bench.start_web()  # first: it creates the database and its tables
        bench.fill()
        sample = bench.trace_sample()
        log(f"{len(sample)} traces with {sum(s[1] for s in sample)} events in events_full")
        pick = random.Random(1).choice

        def by_trace(window):
            def request():
                trace, count, first, last = pick(sample)
                params = {"traceId": trace}
                if window:  # the hours the trace's spans start in
                    params["fromStartTime"] = ms(first - first % 3_600_000)
                    params["toStartTime"] = ms(last - last % 3_600_000 + 3_600_000)
                return "/api/public/v2/observations", params, min(count, PAGE)
            return request

        def observations(body, expected):
            got = len(body.get("data") or [])
            return None if got == expected > 0 else f"{got} observations, expected {expected}"

        def metrics():
            now = time.time() * 1000
            query = {"view": "observations", "dimensions": [{"field": "name"}],
                     "metrics": [{"measure": "count", "aggregation": "count"},
                                 {"measure": "totalCost", "aggregation": "sum"}],
                     "filters": [], "timeDimension": {"granularity": "hour"},
                     "fromTimestamp": ms(now - 86_400_000), "toTimestamp": ms(now)}
            return "/api/public/v2/metrics", {"query": json.dumps(query)}, None

        def traces(body, _):
            data = body.get("data") or []
            if len(data) != min(PAGE, len(sample)):
                return f"{len(data)} traces on the page"
            if not all(trace.get("observations") for trace in data):
                return "a trace without observation ids"
            return None

        # The Observations view's requests, as the page sends them (ui/src/features/observations/api.ts).
        bench.sign_in()
        ui_path = f"/api/ui/projects/{PROJECT}/observations"

        def ui_page(**extra):
            def request():
                params = {"fields": "basic,model,usage,metrics,scores", "limit": PAGE, "scoreLimit": 10,
                          "fromStartTime": ms(time.time() * 1000 - 86_400_000), **extra}
                return ui_path, params, PAGE
            return request

        def ui_trace_search():
            trace, count, _, _ = pick(sample)
            _, params, _ = ui_page(search=trace)()
            return ui_path, params, min(count, PAGE)

        generations = json.dumps([{"type": "stringOptions", "column": "type", "operator": "any of",
                                   "value": ["GENERATION"]}])
        sessions_total = -(-args.traces // TRACES_PER_SESSION)
        sessions_path = f"/api/ui/projects/{PROJECT}/sessions"

        def sessions(model):
            return lambda: (sessions_path, {"model": model, "page": 1, "limit": PAGE}, None)

        def session_page(body, _):
            data = body.get("data") or []
            if len(data) != min(PAGE, sessions_total) or body["meta"]["totalItems"] != sessions_total:
                return f"{len(data)} sessions of {body['meta']['totalItems']}, expected {sessions_total}"
            if not all(s["traces"] > 0 and s["observations"] > 0 and s["userIds"] for s in data):
                return "a session without traces, observations or users"
            return None

        def one_session():
            number = pick(range(sessions_total))
            expected = min(TRACES_PER_SESSION, args.traces - number * TRACES_PER_SESSION)
            return f"{sessions_path}/session-{number}", {"model": "v4"}, expected

        def session_traces(body, expected):
            traces = body["traces"]["data"]
            if len(traces) != expected or not all(t["input"] and t["rootObservationId"] for t in traces):
                return f"{len(traces)} traces, expected {expected}, each with its root's input"
            return None

        cases = [
            ("UI observations: first page", ui_page(), observations),
            ("UI observations: generations only", ui_page(filter=generations), observations),
            ("UI observations: search 'summarize'", ui_page(search="summarize"), observations),
            ("UI observations: search a trace id", ui_trace_search, observations),
            ("UI observations: oldest first", ui_page(order="asc"), observations),
            ("UI observations: input/output words 'retry embedding'",
             ui_page(search="retry embedding", searchIn="io"), observations),
            ("v2 observations ?traceId", by_trace(False), observations),
            ("v2 observations ?traceId + time range", by_trace(True), observations),
            ("v2 metrics (name x hour, count + cost)", metrics, lambda body, _: None if body.get("data") else "no rows"),
            ("legacy traces list (page 1, limit 50)",
             lambda: ("/api/public/traces", {"page": 1, "limit": PAGE}, None), traces),
            ("UI sessions list v4 (page 1, limit 50)", sessions("v4"), session_page),
            ("UI sessions list v3 (page 1, limit 50)", sessions("v3"), session_page),
            ("UI session page v4 (5 traces)", one_session, session_traces),
        ]
        results = [bench.measure(*case) for case in cases if args.only in case[0]]
        peak = bench.peak_rss_mb()
        print(f"\nread bench: {args.events:,} events over {args.traces:,} traces (v3: the same {args.events:,} "
              f"observations), {args.rounds} requests each after {WARMUP} warm-up, web from {args.bin_dir}")
        print(f"{'query':<42} {'p50 ms':>8} {'p99 ms':>8} {'mean ms':>8}")
        for label, (p50, p99, mean) in results:
            print(f"{label:<42} {p50:>8.1f} {p99:>8.1f} {mean:>8.1f}")
        print(f"web peak RSS: {peak} MB")
    finally:
        bench.stop_web()


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)) + "/../..")
    main()
