#!/usr/bin/env python3
"""`just bench retention`: how fast the worker's retention job removes rows from a sizeable
`events_full` (and `events_core`, filled by its view), by lightweight deletes and by dropped months.

Generates R events of project `drill` spread evenly over the last 24 months straight into the
events table of a database of its own, plus K events of project `keeper` (no retention) in every
month, so that no month can be dropped. Phase 1 sets `drill`'s retention to 30 days and runs the
real worker: every month but the last holds rows of both projects, so all of `drill`'s old rows go
by lightweight `DELETE`, one month per statement. Phase 2 inserts `drill`'s rows again and gives
`keeper` a retention too: the old months now go as whole partitions. Each phase prints the rows
removed, the pass's duration (from `retention_passes`) and the rate.
"""
import argparse
import os
import subprocess

from drill import Drill, log, wait_for


def psql(bench, sql):
    out = subprocess.run(["psql", bench.env["DATABASE_URL"], "-qtAc", sql], check=True, capture_output=True)
    return out.stdout.decode().strip()


def insert(bench, project, rows, months=24):
    # Evenly over `months` months back from now; 30-day months are close enough for the spread.
    step = months * 30 * 86400 / rows
    bench.ch(
        "INSERT INTO events_full (project_id, trace_id, span_id, start_time, name, type, input, output, event_ts, is_deleted) "
        f"SELECT '{project}', concat('tr-', toString(intDiv(number, 10))), concat('{project}-', toString(number)), "
        f"now64(3) - toIntervalMillisecond(toUInt64(number * {step * 1000:.0f})), 'step', 'SPAN', "
        "repeat('x', 200), repeat('y', 200), now64(3), 0 "
        f"FROM numbers({rows})")


def live(bench, project):
    return int(bench.ch(f"SELECT count() FROM events_full WHERE project_id = '{project}'"))


def phase(bench, name):
    """Runs one pass with a fresh worker and prints what it removed and how fast."""
    psql(bench, "DELETE FROM retention_passes; DELETE FROM retention_progress")
    before = {p: live(bench, p) for p in ("drill", "keeper")}
    bench.worker = bench.start("worker", "events_only", {
        "LANGFUSE_RETENTION_PAUSE_MS": "0",
        "LANGFUSE_RETENTION_INTERVAL_SECONDS": "86400",
    })
    wait_for(f"the {name} pass", lambda: psql(bench, "SELECT finished_at IS NOT NULL FROM retention_passes") == "t",
             3600, every=1)
    bench.stop(bench.worker)
    seconds = float(psql(bench, "SELECT extract(epoch FROM finished_at - started_at) FROM retention_passes"))
    row = psql(bench, "SELECT last_removed, partitions_dropped FROM retention_progress "
                      "WHERE project_id = 'drill' AND target = 'clickhouse:events_full'").split("|")
    removed, dropped = int(row[0]), int(row[1])
    after = {p: live(bench, p) for p in ("drill", "keeper")}
    assert after["keeper"] == before["keeper"] or name == "drops", "keeper lost rows in the delete phase"
    # events_core holds the same rows (its view), so the pass removed twice this many.
    print(f"{name:<7} events_full rows removed {removed:>9}  (drill {before['drill']} → {after['drill']}, "
          f"keeper {before['keeper']} → {after['keeper']})  months dropped {dropped:>2}  "
          f"pass {seconds:6.1f} s  {removed / seconds:>10,.0f} rows/s of events_full (x2 with events_core)")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--keeper-rows", type=int, default=24_000)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--env", default=".local/stack.env")
    args = parser.parse_args()
    args.chunk_rows = 20_000
    bench = Drill(args)
    bench.worker_port = 3931
    bench.create_databases()
    try:
        bench.worker = bench.start("worker", "events_only")  # creates the schema and the project
        bench.stop(bench.worker)
        psql(bench, "INSERT INTO projects (id, org_id, name) VALUES ('keeper', 'drill-org', 'Keeper')")
        log(f"generating {args.rows} events of drill and {args.keeper_rows} of keeper over 24 months")
        insert(bench, "drill", args.rows)
        insert(bench, "keeper", args.keeper_rows)
        psql(bench, "UPDATE projects SET retention_days = 30 WHERE id = 'drill'")
        phase(bench, "deletes")
        bench.ch("DELETE FROM events_full WHERE project_id = 'drill'")
        bench.ch("DELETE FROM events_core WHERE project_id = 'drill'")
        insert(bench, "drill", args.rows)
        psql(bench, "UPDATE projects SET retention_days = 30 WHERE id = 'keeper'")
        phase(bench, "drops")
    finally:
        if bench.worker and bench.worker.poll() is None:
            bench.worker.kill()
        bench.ch(f"DROP DATABASE {bench.stamp}")
        server = bench.base_env["DATABASE_URL"].rsplit("/", 1)[0]
        subprocess.run(["psql", f"{server}/postgres", "-qc", f"DROP DATABASE IF EXISTS {bench.stamp}"], check=False)


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)) + "/../..")
    main()
