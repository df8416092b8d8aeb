#!/usr/bin/env python3
"""The takeover drill (`just drill-takeover N`): the switch procedure of docs/takeover.md, end to end.

0. A Langfuse v3 database pair: v3's PostgreSQL database built from `tests/fixtures/langfuse-v3/`
   (the schema Langfuse's migrations leave, with a team's rows and bcrypt-hashed keys), and a
   ClickHouse database holding v3's tables.
1. v3 serves: N historic traces (spans, generations, events; trace, observation and session scores)
   arrive through the legacy batch API with v3's project key, and dataset run items point a tenth of
   them at v3's dataset run. "v3" is a stand-in: Loupe in `legacy` mode, which writes exactly v3's
   ClickHouse tables, over a PostgreSQL database of its own (v3's real database is only read).
   `import-langfuse --dry-run` runs while it serves.
2. Stop v3 (web first, its worker once drained), then `worker import-langfuse` (and a re-run, which
   must change nothing).
3. Loupe starts in `dual` with the historic backfill on. Traffic keeps flowing with v3's keys (the
   Python SDK and plain OTLP; `--old-sdk` adds legacy batches) while the backfill runs, and the worker
   is SIGKILLed mid-step `--kills` times. Then `worker migration-status`.
4. Cutover to `events_only`; `worker verify-migration` must report 0 mismatches in every check, every
   trace sent during the switch must be in the v4 tables, the v3 tables' historic rows unchanged, and
   v3's keys must read the history back through the v4 API.
Prints progress and a summary table with each phase's duration; exits non-zero on any failure.
Databases are created (and dropped when the drill passes) beside the ones `--env` names; with
`--given-databases` it uses `--env`'s own Loupe databases and `--v3-database-url` (the test harness's).
"""
import argparse
import base64
import os
import signal
import subprocess
import sys
import threading
import time

from drill import Drill, http, log, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "langfuse-v3")
# What tests/fixtures/langfuse-v3/seed.sql holds (also `test_support::langfuse_v3`).
V3_PROJECT, V3_ORG = "proj-v3", "org-v3"
V3_PUBLIC_KEY, V3_SECRET_KEY, V3_SALT = "pk-lf-v3-project", "sk-lf-v3-project-secret", "v3-salt"
V3_DATASET, V3_RUN, V3_RUN_NAME = "ds-qa", "run-1", "baseline"


class Takeover(Drill):
    def __init__(self, args):
        super().__init__(args)
        self.stamp = f"takeover_{int(time.time())}"
        self.auth = "Basic " + base64.b64encode(f"{V3_PUBLIC_KEY}:{V3_SECRET_KEY}".encode()).decode()
        self.timings = []
        self.created_pg = []
        self.sdk_sent = 0
        self.old_sdk_batches = 0

    # --- databases ---
    def psql(self, url, *args):
        subprocess.run(["psql", "-v", "ON_ERROR_STOP=1", "-q", url, *args], check=True, capture_output=True)

    def create_pg(self, server, name):
        self.psql(f"{server}/postgres", "-c", f"CREATE DATABASE {name}")
        self.created_pg.append(name)
        return f"{server}/{name}"

    def create_databases(self):
        server = self.base_env["DATABASE_URL"].rsplit("/", 1)[0]
        self.env = dict(self.base_env)
        if not self.args.given_databases:
            self.env["DATABASE_URL"] = self.create_pg(server, self.stamp)
            self.env["CLICKHOUSE_DB"] = self.stamp
        self.stamp = self.env.get("CLICKHOUSE_DB", "default")
        if self.args.v3_database_url:
            self.v3_url = self.args.v3_database_url
        else:
            self.v3_url = self.create_pg(server, f"{self.stamp}_v3")
            for part in ("schema.sql", "seed.sql"):
                self.psql(self.v3_url, "-f", os.path.join(FIXTURE, part))
        self.standin_url = self.create_pg(server, f"{self.stamp}_standin")
        prefix = self.env.get("LANGFUSE_REDIS_KEY_PREFIX", "")
        self.env.update({
            "LANGFUSE_REDIS_KEY_PREFIX": f"{prefix}{self.stamp}:",
            # Loupe's own salt, not v3's: imported keys verify by their bcrypt hash (docs/takeover.md).
            **self.process_settings(salt="loupe-takeover-salt"),
        })
        # The v3 stand-in: its own PostgreSQL database and queue, bootstrapped with v3's project and key.
        self.standin = {
            "DATABASE_URL": self.standin_url,
            "LANGFUSE_REDIS_KEY_PREFIX": f"{prefix}{self.stamp}-v3:",
            "LANGFUSE_INIT_ORG_ID": V3_ORG,
            "LANGFUSE_INIT_PROJECT_ID": V3_PROJECT,
            "LANGFUSE_INIT_PROJECT_PUBLIC_KEY": V3_PUBLIC_KEY,
            "LANGFUSE_INIT_PROJECT_SECRET_KEY": V3_SECRET_KEY,
        }

    def drop_databases(self):
        server = self.base_env["DATABASE_URL"].rsplit("/", 1)[0]
        for name in self.created_pg:
            self.psql(f"{server}/postgres", "-c", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        if not self.args.given_databases:
            self.ch(f"DROP DATABASE {self.stamp}")

    # --- steps ---
    def timed(self, phase, work):
        started = time.time()
        result = work()
        self.timings.append((phase, time.time() - started, result or ""))
        return result

    def import_langfuse(self, *extra):
        run = self.worker_command("import-langfuse", "--from", self.v3_url, "--salt", V3_SALT, *extra, mode="dual")
        if run.returncode != 0:
            raise SystemExit(f"drill: import-langfuse failed ({run.returncode}):\n{run.stdout}\n{run.stderr}")
        return run.stdout

    def v3_serves(self, n):
        self.switch("legacy", self.standin)
        for first in range(0, n, 50):
            self.legacy_batch("hist", first, min(50, n - first))
        wait_for("historic traces in v3's tables",
                 lambda: self.ch(f"SELECT count() FROM traces FINAL WHERE project_id = '{V3_PROJECT}'") == str(n), 300)
        # As v3 writes a run item: a row per item in `dataset_run_items_rmt`, denormalized run and item.
        experiments = list(range(0, n, 10))
        rows = ", ".join(
            f"('tk-ri-{i}', '{V3_PROJECT}', '{V3_RUN}', 'item-{1 + i % 3}', '{V3_DATASET}', 'hist-{i}', "
            f"{'NULL' if i % 20 == 0 else repr(f'hist-{i}-g')}, now64(3) - INTERVAL {i} SECOND, '{V3_RUN_NAME}', "
            f"map('model', 'gpt-4o'), now64(3), '\"expected\"', map(), now64(3), 0)" for i in experiments)
        self.ch("INSERT INTO dataset_run_items_rmt (id, project_id, dataset_run_id, dataset_item_id, dataset_id, trace_id, "
                "observation_id, created_at, dataset_run_name, dataset_run_metadata, dataset_run_created_at, "
                f"dataset_item_expected_output, dataset_item_metadata, event_ts, is_deleted) VALUES {rows}")
        self.experiments = len(experiments)
        dry = self.import_langfuse("--dry-run")
        if "dry run: nothing was written" not in dry:
            raise SystemExit(f"drill: the dry run did not say it wrote nothing:\n{dry}")
        return f"{n} traces, {self.experiments} run items; dry run ok"

    def stop_v3_and_import(self):
        self.stop(self.web)
        self.web = None
        wait_for("v3's queue to drain", lambda: http(
            "GET", f"http://127.0.0.1:{self.worker_port}/api/health")[1].get("ingestionBacklog") == 0, 120)
        self.stop(self.worker)
        self.worker = None
        started = time.time()
        report = self.import_langfuse()
        took = time.time() - started
        print(report, end="")
        again = self.import_langfuse()
        changed = [line for line in again.splitlines() if " read, " in line and " 0 new, 0 changed," not in line]
        if changed:
            raise SystemExit("drill: a re-run of the import changed rows:\n" + "\n".join(changed))
        return f"import {took:.1f} s; re-run changed nothing"

    def old_key_works(self):
        status, body = http("GET", f"http://127.0.0.1:{self.web_port}/api/public/projects",
                            headers={"Authorization": self.auth})
        if status != 200 or body["data"][0]["id"] != V3_PROJECT:
            raise SystemExit(f"drill: v3's key does not open Loupe ({status}): {body}")

    def sdk_traffic(self):
        """The real Python SDK with v3's key, one trace per round, each flushed (so it was acknowledged)."""
        from langfuse import Langfuse
        client = Langfuse(public_key=V3_PUBLIC_KEY, secret_key=V3_SECRET_KEY,
                          base_url=f"http://127.0.0.1:{self.web_port}")
        n = 0
        while not self.stop_traffic.is_set():
            with client.start_as_current_observation(name="switch-request", input={"n": n}) as root:
                with client.start_as_current_observation(name="llm", as_type="generation", model="gpt-4o",
                                                         usage_details={"input": 10, "output": 5}) as generation:
                    generation.update(output="ok")
                root.update(output="done")
                trace_id = client.get_current_trace_id()
            client.flush()
            self.acked.append(trace_id)
            self.sdk_sent += 1
            n += 1
            time.sleep(0.2)
        client.shutdown()

    def live_traffic(self):
        n = 0
        while not self.stop_traffic.is_set():
            try:
                self.acked.append(self.otel_trace(n))
                if self.args.old_sdk:
                    self.acked += self.legacy_batch("live", n, 5)
                    self.old_sdk_batches += 1
                n += 5
            except (OSError, SystemExit) as error:
                log(f"live traffic: {error}")
            time.sleep(0.3)

    def dual_with_backfill(self):
        self.switch("dual", {"LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL": "true"})
        self.old_key_works()
        threads = [threading.Thread(target=t, daemon=True) for t in (self.live_traffic, self.sdk_traffic)]
        for thread in threads:
            thread.start()
        self.backfill_with_kills()
        # A small backfill can end before the SDK's first round (its import and client take seconds).
        wait_for("a trace sent by the Python SDK", lambda: self.sdk_sent > 0, 60)
        self.stop_traffic.set()
        for thread in threads:
            thread.join(timeout=60)
        wait_for("the ingestion backlog to drain", lambda: http(
            "GET", f"http://127.0.0.1:{self.worker_port}/api/health")[1].get("ingestionBacklog") == 0, 120)
        status = self.worker_command("migration-status", mode="dual").stdout
        ready = next((line.strip() for line in status.splitlines() if "ready for cutover" in line), "?")
        log(f"migration-status: {ready}")
        return f"{len(self.acked)} traces sent with v3's key, {self.kills} worker kills; {ready}"

    def read_back(self):
        """v3's key reads the history back from the v4 tables (no v3 table is read in `events_only`)."""
        self.old_key_works()
        base = f"http://127.0.0.1:{self.web_port}"
        auth = {"Authorization": self.auth}
        status, body = http("GET", f"{base}/api/public/v2/observations?traceId=hist-1&limit=50", headers=auth)
        names = sorted(o.get("name") or "" for o in (body or {}).get("data", []))
        if status != 200 or not {"agent", "llm", "tool", "log"} <= set(names):
            raise SystemExit(f"drill: historic trace hist-1 does not read back ({status}): {body}")
        status, prompt = http("GET", f"{base}/api/public/v2/prompts/greeting", headers=auth)
        if status != 200 or prompt.get("id") != "pr-greet-2":
            raise SystemExit(f"drill: the imported prompt does not read back ({status}): {prompt}")
        return f"hist-1: {len(names)} observations; prompt greeting v{prompt['version']}"

    def run(self):
        n = self.args.traces
        self.create_databases()
        log(f"databases {self.stamp}; phase 1: v3 serves, {n} historic traces")
        self.timed("1. v3 serves: history, dry-run import", lambda: self.v3_serves(n))
        before = self.checksums()
        log("phase 2: stop v3, import its PostgreSQL database")
        self.timed("2. stop v3, import (+ re-run)", self.stop_v3_and_import)
        log("phase 3: Loupe in dual, traffic with v3's keys, backfill with worker kills")
        self.timed("3. dual: traffic + backfill", self.dual_with_backfill)
        log("phase 4: cutover to events_only, verify-migration")
        verify = self.timed("4. events_only: drain, verify", self.cutover_and_verify)
        self.timings[-1] = self.timings[-1][:2] + (next(
            (line for line in verify.stdout.splitlines() if line.startswith("mismatches:")), "mismatches: ?"),)
        self.timed("5. read back with v3's key", self.read_back)
        after = self.checksums()
        in_v4 = set(self.ch("SELECT DISTINCT trace_id FROM events_full").split())
        missing = [t for t in self.acked if t not in in_v4]
        self.stop(self.web)
        self.stop(self.worker)

        print("\nphase                                      seconds  result")
        for phase, seconds, result in self.timings:
            print(f"{phase:<42} {seconds:>7.1f}  {result}")
        print(f"{'total':<42} {sum(t[1] for t in self.timings):>7.1f}")
        print(f"\nhistoric traces: {n}, dataset run items: {self.experiments}")
        print(f"traces sent during the switch: {len(self.acked)} ({self.sdk_sent} by the Python SDK), "
              f"missing from v4: {len(missing)} {missing[:5]}")
        print(f"worker kills during the backfill: {self.kills}")
        print(f"v3 tables' historic rows unchanged: {'yes' if after == before else 'no'}")
        ok = (verify.returncode == 0 and not missing and after == before and self.kills >= self.args.kills
              and self.sdk_sent > 0)
        print("takeover drill: " + ("passed" if ok else "FAILED"))
        if ok:
            self.drop_databases()
        else:
            print(f"databases kept for inspection: {self.stamp} (+ _v3, _standin)")
        return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", type=int, default=2000)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--env", default=".local/stack.env")
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--chunk-rows", type=int, default=100)
    parser.add_argument("--ports", default="3911,4911,3931", help="web HTTP, web OTLP gRPC and worker ports")
    parser.add_argument("--old-sdk", action="store_true",
                        help="also send legacy batches during the switch (staged: adds the ~4-minute propagation delay)")
    parser.add_argument("--given-databases", action="store_true",
                        help="use --env's DATABASE_URL and CLICKHOUSE_DB as Loupe's (empty) databases")
    parser.add_argument("--v3-database-url", help="an existing v3 database (default: one built from the fixture)")
    drill = Takeover(parser.parse_args())
    # `timeout` (the black-box test) ends the drill with SIGTERM: exit through `finally`, which stops
    # the web and worker it started instead of leaving them running.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        sys.exit(drill.run())
    finally:
        drill.stop_traffic.set()
        for process in (drill.web, drill.worker):
            if process and process.poll() is None:
                process.send_signal(signal.SIGKILL)


if __name__ == "__main__":
    main()
