#!/usr/bin/env python3
"""`just bench backfill`: each historic-backfill step's rate (M1–M4), in rows/s and traces/s, beside a raw
INSERT … SELECT of the same rows on the same engine, and the worker's peak memory.

Generates P plain traces and E experiment traces (O observations each, nested as a chain, spread over
six months) straight into the v3 tables of a database of its own, with one trace-level dataset run
item per experiment trace and, on every fourth one, a second item of another run rooted at its second
span. Times raw copies (all observations into events_full and into a copy without the events_core
view: M3's ceiling; the experiment traces' roots and observations with their run into events_full:
M4's ceiling), empties events_full again, then runs the real worker in `dual` mode with the backfill
on and reads each step's rows, start and end from the admin API. `--max-seconds` stops waiting and
reports the step in progress from its rows so far.
"""
import argparse
import datetime
import os
import time

from drill import ADMIN_KEY, Drill, http, log, wait_for

SPREAD_SECONDS = 180 * 86400  # traces spread over six months: several month partitions


def generate(bench, plain, experiments, per):
    total = plain + experiments
    step = max(1, SPREAD_SECONDS // max(total, 1))
    # Trace n: 'ex-n' for n < experiments, else 'pl-n'; the same for its observations 'ob-n-k'.
    trace_id = f"concat(if(number < {experiments}, 'ex-', 'pl-'), toString(number))"
    bench.ch(
        "INSERT INTO traces (id, timestamp, name, user_id, session_id, project_id, tags, metadata, event_ts, is_deleted) "
        f"SELECT {trace_id}, now64(3) - toIntervalSecond(number * {step}), 'chat', "
        f"concat('u', toString(number % 100)), concat('s', toString(number % 1000)), 'drill', ['x'], map('k', 'v'), "
        f"now64(3), 0 FROM numbers({total})")
    trace_of = f"intDiv(number, {per})"
    trace_id = f"concat(if({trace_of} < {experiments}, 'ex-', 'pl-'), toString({trace_of}))"
    span = f"concat('ob-', toString({trace_of}), '-', toString(number % {per}))"
    parent = f"concat('ob-', toString({trace_of}), '-', toString(number % {per} - 1))"
    bench.ch(
        "INSERT INTO observations (id, trace_id, project_id, type, parent_observation_id, start_time, end_time, name, "
        "metadata, level, input, output, usage_details, event_ts, is_deleted) "
        f"SELECT {span}, {trace_id}, 'drill', if(number % 3 = 0, 'GENERATION', 'SPAN'), "
        f"if(number % {per} = 0, NULL, {parent}), "
        f"now64(3) - toIntervalSecond({trace_of} * {step}) + toIntervalMillisecond(number % {per}), NULL, "
        "'step', map('a', 'b'), 'DEFAULT', repeat('x', 200), repeat('y', 200), map('input', 10), now64(3), 0 "
        f"FROM numbers({total * per})")
    item = ("INSERT INTO dataset_run_items_rmt (id, project_id, dataset_run_id, dataset_item_id, dataset_id, trace_id, "
            "observation_id, created_at, dataset_run_name, dataset_run_metadata, dataset_run_created_at, "
            "dataset_item_expected_output, dataset_item_metadata, event_ts, is_deleted) ")
    bench.ch(item + f"SELECT concat('dri-', toString(number)), 'drill', concat('run-', toString(number % 3)), "
             f"concat('item-', toString(number)), 'dataset', concat('ex-', toString(number)), NULL, "
             f"now64(3) - toIntervalSecond(number * {step}), concat('run ', toString(number % 3)), map('model', 'gpt'), "
             f"now64(3), '\"expected\"', map('i', 'v'), now64(3), 0 FROM numbers({experiments})")
    if per > 1:
        bench.ch(item + "SELECT concat('dri-sub-', toString(number)), 'drill', 'run-sub', "
                 "concat('item-', toString(number)), 'dataset', concat('ex-', toString(number)), "
                 f"concat('ob-', toString(number), '-1'), now64(3) - toIntervalSecond(number * {step}) + 1, 'sub run', "
                 f"map(), now64(3), NULL, map(), now64(3), 0 FROM numbers({experiments}) WHERE number % 4 = 0")


def raw_copies(bench, plain, experiments, per):
    """Times the raw copies; returns {name: (rows, seconds)}. events_full is emptied after."""
    columns = ("(project_id, trace_id, span_id, parent_span_id, start_time, name, type, level, input, output, "
               "usage_details, metadata_names, metadata_values, experiment_id, event_ts, is_deleted)")
    observations = ("SELECT o.project_id, o.trace_id, o.id, coalesce(o.parent_observation_id, ''), o.start_time, "
                    "o.name, o.type, o.level, coalesce(o.input, ''), coalesce(o.output, ''), o.usage_details, "
                    "mapKeys(o.metadata), mapValues(o.metadata), {experiment}, o.event_ts, o.is_deleted "
                    "FROM observations AS o {join}")
    # M4's rows: the experiment traces' roots and observations, each with its trace's run id.
    runs = ("(SELECT project_id, trace_id, any(dataset_run_id) AS run FROM dataset_run_items_rmt "
            "GROUP BY project_id, trace_id)")
    roots = (f"SELECT t.project_id, t.id, concat('t-', t.id), '', t.timestamp, t.name, 'SPAN', 'DEFAULT', "
             f"coalesce(t.input, ''), coalesce(t.output, ''), map(), mapKeys(t.metadata), mapValues(t.metadata), r.run, "
             f"t.event_ts, t.is_deleted FROM traces AS t INNER JOIN {runs} AS r "
             f"ON t.project_id = r.project_id AND t.id = r.trace_id")
    copies = {
        "all observations -> events_full (M3 ceiling)": (
            "events_full", observations.format(experiment="''", join=""), (plain + experiments) * per),
        "all observations -> copy without the events_core view": (
            "events_raw", observations.format(experiment="''", join=""), (plain + experiments) * per),
        "experiment roots + observations -> events_full (M4 ceiling)": (
            "events_full", None, experiments * (per + 1)),
    }
    bench.ch("CREATE TABLE events_raw AS events_full")
    figures = {}
    for name, (target, select, rows) in copies.items():
        started = time.time()
        if select is None:
            bench.ch(f"INSERT INTO {target} {columns} {roots}")
            joined = observations.format(
                experiment="r.run", join=f"INNER JOIN {runs} AS r ON o.project_id = r.project_id AND o.trace_id = r.trace_id")
            bench.ch(f"INSERT INTO {target} {columns} {joined}")
        else:
            bench.ch(f"INSERT INTO {target} {columns} {select}")
        figures[name] = (rows, time.time() - started)
        bench.ch("TRUNCATE TABLE events_full")
        bench.ch("TRUNCATE TABLE events_core")
        log(f"raw {name}: {rows} rows in {figures[name][1]:.1f} s")
    bench.ch("DROP TABLE events_raw")
    return figures


def seconds_between(start, end):
    parse = lambda s: datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    return (parse(end) - parse(start)).total_seconds() if start and end else None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", type=int, default=20_000, help="experiment traces (with dataset run items)")
    parser.add_argument("--plain-traces", type=int, default=None, help="traces without run items (default: --traces)")
    parser.add_argument("--observations-per-trace", type=int, default=5)
    # The product's default: larger chunks of M3 outgrow the 1 GiB query memory cap on this engine.
    parser.add_argument("--chunk-rows", type=int, default=20_000)
    parser.add_argument("--batch-traces", type=int, default=None,
                        help="LANGFUSE_BACKFILL_EXPERIMENT_BATCH_TRACES (default: the product's)")
    parser.add_argument("--max-seconds", type=int, default=3600, help="stop waiting for the backfill after this")
    parser.add_argument("--skip-raw", action="store_true", help="skip the raw copies")
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--env", default=".local/stack.env")
    args = parser.parse_args()
    args.kills = 0
    experiments, per = args.traces, args.observations_per_trace
    plain = experiments if args.plain_traces is None else args.plain_traces
    bench = Drill(args)
    bench.create_databases()
    bench.env["LANGFUSE_LOG_LEVEL"] = "warn"
    bench.env.pop("LANGFUSE_BACKFILL_EXPERIMENT_BATCH_TRACES")
    if args.batch_traces:
        bench.env["LANGFUSE_BACKFILL_EXPERIMENT_BATCH_TRACES"] = str(args.batch_traces)
    try:
        bench.switch("legacy")  # creates the schema
        bench.stop(bench.web)
        bench.stop(bench.worker)
        log(f"generating {plain} plain and {experiments} experiment traces, {per} observations each")
        generate(bench, plain, experiments, per)
        raw = {} if args.skip_raw else raw_copies(bench, plain, experiments, per)

        bench.switch("dual", {"LANGFUSE_BACKGROUND_MIGRATION_V4_ENABLE_HISTORIC_BACKFILL": "true"})
        peak = 0
        pid = bench.worker.pid
        started = time.time()

        def done():
            nonlocal peak
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) // 1024
            return bench.backfill_done() or time.time() - started > args.max_seconds

        wait_for("the backfill", done, args.max_seconds + 60, every=1)
        waited = time.time() - started
        _, body = http("GET", f"http://127.0.0.1:{bench.web_port}/api/admin/background-migrations",
                       headers={"Authorization": f"Bearer {ADMIN_KEY}"})
        now = datetime.datetime.now(datetime.timezone.utc).isoformat()
        print(f"data: {plain} plain + {experiments} experiment traces, {(plain + experiments) * per} observations; "
              f"worker bin {args.bin_dir}")
        print(f"{'':62} {'rows':>9} {'s':>7} {'rows/s':>9} {'traces/s':>9}")
        for name, (rows, seconds) in raw.items():
            traces = rows / (per + 1 if "M4" in name else per)
            print(f"raw {name:<58} {rows:>9} {seconds:7.1f} {rows / seconds:>9,.0f} {traces / seconds:>9,.0f}")
        for step in body["data"][:4]:
            seconds = seconds_between(step["startedAt"], step["finishedAt"] or now)
            rows = step["rowsDone"]
            traces = rows / per if step["unit"] == "observations" else rows
            state = "" if step["status"] == "succeeded" else f" ({step['status']}, {rows}/{step['rowsEstimated']})"
            label = f"M{step['position']} ({step['unit']}){state}"
            if seconds:
                print(f"{label:<62} {rows:>9} {seconds:7.1f} {rows / seconds:>9,.0f} {traces / seconds:>9,.0f}")
            else:
                print(f"{label:<62} {rows:>9}       -         -         -")
        if not bench.backfill_done():
            print(f"stopped waiting after {waited:.0f} s (--max-seconds)")
        print(f"worker peak RSS: {peak} MB (LANGFUSE_BACKFILL_MAX_MEMORY_MB=1024 caps the engine's queries)")
    finally:
        for process in (bench.web, bench.worker):
            if process and process.poll() is None:
                process.kill()
        bench.ch(f"DROP DATABASE {bench.stamp}")


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)) + "/../..")
    main()
