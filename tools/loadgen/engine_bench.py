"""How fast the local ClickHouse engine (chdb) itself ingests rows shaped like Loupe's events,
with and without events_full's skip indexes and the events_core materialized view: the ceiling
the ingestion benchmark runs into on one machine.

Usage (from the repo root): .local/venv/bin/python tools/loadgen/engine_bench.py

What the first figure (the issue's ceiling) leaves out, compared with what `loupe-bench ingest` makes
the same engine do (measured 2026-11-26 on the test stack, per-thread CPU of the front's process):
* Merges. It times one INSERT of 20,000 rows into empty tables: one part each, nothing to merge. A
  sustained ingest writes one part per insert into events_full and events_core, and chdb merges them
  in the background on the same two cores: 7.1-8.4 CPU s of the front's 18.6-20.4 over 300,000 spans
  with 20,000-row inserts (3.2 s with 50,000-row inserts), as much as the inserts themselves.
* Parsing. Its rows come from a Memory table by INSERT ... SELECT; Loupe's come as RowBinary over
  HTTP, which the engine parses (the same 20,600 captured rows: 0.54 s by INSERT ... SELECT from
  memory, 0.60-0.70 s streamed as RowBinary).
* Its rows are synthetic (about 1.1 KB each), Loupe's benchmark rows about 1.5 KB of RowBinary.
* It runs alone; the ingest benchmark shares the two cores with web, worker, SeaweedFS and Redis.
So the ratio compares a sustained rate, merges included, with a burst that pays none of them.
"""
import pathlib
import tempfile
import time

import chdb.session as cs

ROOT = pathlib.Path(__file__).resolve().parents[2]
s = cs.Session(tempfile.mkdtemp())
s.query("SET async_insert=0")
def render(p):
    t = open(p).read().replace('{ON_CLUSTER}','').replace('{REPLICATED}','')
    out=[]; cur=[]
    for line in t.splitlines():
        if line.strip().startswith('--'): continue
        cur.append(line)
        if line.rstrip().endswith(';'):
            out.append('\n'.join(cur).rstrip().rstrip(';')); cur=[]
    return out
for f in ['0005_events_full','0006_events_core','0007_events_core_mv']:
    for st in render(ROOT / f'migrations/clickhouse/{f}.sql'):
        s.query(st)
N=20000
src = f"""SELECT 'p' project_id, hex(intDiv(number,5)) trace_id, hex(number) span_id, '' parent_span_id,
 now64(6) start_time, CAST(NULL, 'Nullable(DateTime64(6))') end_time, 'llm-call' name, 'GENERATION' type, 'bench' environment, '' version, '' release, 'bench-trace' trace_name,
 concat('user-', toString(number%1000)) user_id, 'session-1' session_id, CAST([], 'Array(String)') tags, 'DEFAULT' level, '' status_message, CAST(NULL, 'Nullable(DateTime64(6))') completion_start_time,
 '' prompt_id, '' prompt_name, CAST(NULL, 'Nullable(UInt16)') prompt_version, '' model_id, 'gpt-4o-mini' provided_model_name, '{{}}' model_parameters,
 map('input', 420) provided_usage_details, map('input',420) usage_details, CAST(map(), 'Map(String, Decimal(18,12))') provided_cost_details, CAST(map(), 'Map(String, Decimal(18,12))') cost_details,
 CAST(NULL, 'Nullable(String)') usage_pricing_tier_id, CAST(NULL, 'Nullable(String)') usage_pricing_tier_name, CAST(map(), 'Map(String,String)') tool_definitions, CAST([], 'Array(String)') tool_calls, CAST([], 'Array(String)') tool_call_names,
 repeat('You are a helpful assistant answer the question ', 14) input, repeat('lorem ipsum ', 20) output,
 ['k1','k2'] metadata_names, ['v1','v2'] metadata_values, '' experiment_id
 FROM numbers({N})"""
cols = "project_id, trace_id, span_id, parent_span_id, start_time, end_time, name, type, environment, version, release, trace_name, user_id, session_id, tags, level, status_message, completion_start_time, prompt_id, prompt_name, prompt_version, model_id, provided_model_name, model_parameters, provided_usage_details, usage_details, provided_cost_details, cost_details, usage_pricing_tier_id, usage_pricing_tier_name, tool_definitions, tool_calls, tool_call_names, input, output, metadata_names, metadata_values, experiment_id"
s.query(f"CREATE TABLE src ENGINE=Memory AS {src}")
for label, table in [('events_full (+MV to events_core, all indexes)', 'events_full')]:
    t=time.time(); s.query(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM src"); d=time.time()-t
    print(f"{label}: {N} rows in {d:.2f}s = {N/d:.0f} rows/s")
s.query("CREATE TABLE plain AS events_full")
for idx in ['idx_span_id','idx_trace_id','idx_user_id','idx_session_id','idx_created_at','idx_updated_at','idx_fts_input_low','idx_fts_output_low','idx_fts_metadata_values','idx_fts_metadata_names','idx_ngram_metadata_values','idx_ngram_name','idx_ngram_trace_name','idx_ngram_user_id','idx_ngram_session_id']:
    try: s.query(f"ALTER TABLE plain DROP INDEX {idx}")
    except Exception as e: pass
t=time.time(); s.query(f"INSERT INTO plain ({cols}) SELECT {cols} FROM src"); d=time.time()-t
print(f"same table without skip indexes or MV: {N} rows in {d:.2f}s = {N/d:.0f} rows/s")
