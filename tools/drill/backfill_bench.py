#!/usr/bin/env python3
"""`just bench backfill`: the historic backfill's rate against a raw INSERT … SELECT of the same
observations on the same engine, and the worker's peak memory.

Generates T traces with O observations each straight into the v3 tables of a database of its own
(dev stack), times one raw copy of all observations into events_full (emptied again after), then runs
the real worker in `dual` mode with the backfill on and reads each step's duration and rows from
the admin API. Prints the figures; the target is M3 at >= 50 % of the raw rate.
"""
import argparse
import os
import time

from drill import ADMIN_KEY, Drill, http, log, wait_for


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument("--observations-per-trace", type=int, default=10)
    # The product's default: larger chunks of M3 outgrow the 1 GiB query memory cap on this engine.
    parser.add_argument("--chunk-rows", type=int, default=20_000)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--env", default=".local/stack.env")
    args = parser.parse_args()
    args.kills = 0
    bench = Drill(args)
    bench.create_databases()
    bench.env["LANGFUSE_LOG_LEVEL"] = "warn"
    try:
        bench.switch("legacy")  # creates the schema
        bench.stop(bench.web)
        bench.stop(bench.worker)
        t, per = args.traces, args.observations_per_trace
        log(f"generating {t} traces and {t * per} observations")
        bench.ch(
            "INSERT INTO traces (id, timestamp, name, user_id, session_id, project_id, tags, metadata, event_ts, is_deleted) "
            f"SELECT concat('tr-', toString(number)), now64(3) - toIntervalSecond(number * 40), 'chat', "
            f"concat('u', toString(number % 100)), concat('s', toString(number % 1000)), 'drill', ['x'], map('k', 'v'), "
            f"now64(3), 0 FROM numbers({t})")
        bench.ch(
            "INSERT INTO observations (id, trace_id, project_id, type, parent_observation_id, start_time, end_time, name, "
            "metadata, level, input, output, usage_details, event_ts, is_deleted) "
            f"SELECT concat('ob-', toString(number)), concat('tr-', toString(intDiv(number, {per}))), 'drill', "
            f"if(number % 3 = 0, 'GENERATION', 'SPAN'), if(number % {per} = 0, NULL, concat('ob-', toString(number - 1))), "
            f"now64(3) - toIntervalSecond(intDiv(number, {per}) * 40) + toIntervalMillisecond(number % {per}), NULL, "
            "'step', map('a', 'b'), 'DEFAULT', repeat('x', 200), repeat('y', 200), map('input', 10), now64(3), 0 "
            f"FROM numbers({t * per})")
        # The raw rate: the same rows copied in one statement into the same table M3 writes,
        # events_full, whose skip indexes and events_core materialized view are most of the cost;
        # then emptied again for the backfill. A copy into a table without the view is printed
        # beside it, to show what the view costs.
        copy = ("SELECT project_id, trace_id, id, coalesce(parent_observation_id, ''), start_time, name, type, level, "
                "coalesce(input, ''), coalesce(output, ''), usage_details, mapKeys(metadata), mapValues(metadata), "
                "event_ts, is_deleted FROM observations")
        columns = ("(project_id, trace_id, span_id, parent_span_id, start_time, name, type, level, input, output, "
                   "usage_details, metadata_names, metadata_values, event_ts, is_deleted)")
        rates = {}
        bench.ch("CREATE TABLE events_raw AS events_full")
        for target in ("events_full", "events_raw"):
            started = time.time()
            bench.ch(f"INSERT INTO {target} {columns} {copy}")
            seconds = time.time() - started
            rates[target] = (seconds, t * per / seconds)
            log(f"raw INSERT … SELECT into {target}: {t * per} rows in {seconds:.1f} s = {rates[target][1]:,.0f} rows/s")
        bench.ch("TRUNCATE TABLE events_full")
        bench.ch("TRUNCATE TABLE events_core")
        raw_seconds, raw_rate = rates["events_full"]

        bench.switch("dual", {"LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL": "true"})
        peak = 0
        pid = bench.worker.pid

        def done():
            nonlocal peak
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) // 1024
            return bench.backfill_done()

        wait_for("the backfill", done, 3600, every=1)
        _, body = http("GET", f"http://127.0.0.1:{bench.web_port}/api/admin/background-migrations",
                       headers={"Authorization": f"Bearer {ADMIN_KEY}"})
        print(f"raw copy (events_full)   {t * per:>10} rows  {raw_seconds:7.1f} s  {raw_rate:>10,.0f} rows/s")
        no_view_seconds, no_view_rate = rates["events_raw"]
        print(f"raw copy (no MV)         {t * per:>10} rows  {no_view_seconds:7.1f} s  {no_view_rate:>10,.0f} rows/s")
        for step in body["data"][:4]:
            print(f"step {step['position']} ({step['unit']:<17}) {step['rowsDone']:>10} rows  "
                  f"{step['rowsPerSecond'] and step['rowsDone'] / step['rowsPerSecond'] or 0:7.1f} s  "
                  f"{step['rowsPerSecond'] or 0:>10,.0f} rows/s")
        m3 = body["data"][2]
        print(f"M3 vs raw: {100 * (m3['rowsPerSecond'] or 0) / raw_rate:.0f} % (target >= 50 %)")
        print(f"worker peak RSS: {peak} MB (cap LANGFUSE_BACKFILL_MAX_MEMORY_MB=1024 for the engine's queries)")
    finally:
        for process in (bench.web, bench.worker):
            if process and process.poll() is None:
                process.kill()
        bench.ch(f"DROP DATABASE {bench.stamp}")


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)) + "/../..")
    main()
