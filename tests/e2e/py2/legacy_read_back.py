"""The legacy v1 reads with the real Langfuse Python SDK 2.60.10 (the last generation that has them):
ingest a trace with a span, a generation and a score through the SDK's batch ingestion, then read it
all back with `fetch_trace`, `fetch_traces`, `fetch_observations`, `fetch_observation`,
`fetch_sessions` and the `client.score`, `client.sessions` and `client.metrics` resources, whose
pydantic models parse every answer strictly. Prints what it read as JSON.

Usage: python legacy_read_back.py  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY)
"""
import datetime as dt
import json
import os
import time

from langfuse import Langfuse

langfuse = Langfuse(
    public_key=os.environ["LOUPE_PUBLIC_KEY"],
    secret_key=os.environ["LOUPE_SECRET_KEY"],
    host=os.environ["LOUPE_URL"],
)
started = dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=5)

trace = langfuse.trace(
    name="legacy-trace",
    user_id="legacy-user",
    session_id="legacy-session",
    input={"question": "capital of France?"},
    output="Paris",
    metadata={"team": "search"},
    tags=["legacy", "py2"],
)
span = trace.span(name="retrieve", input={"query": "France"})
span.end(output={"documents": 2})
generation = trace.generation(
    name="answer",
    model="gpt-4o-mini",
    input=[{"role": "user", "content": "capital of France?"}],
    usage={"input": 10, "output": 5, "unit": "TOKENS"},
)
generation.end(output="Paris")
trace.score(name="legacy-quality", value=0.5, comment="fine")
langfuse.flush()


def until(what, fetch, ready):
    """Polls `fetch` until `ready` holds for what it returned; fails after a deadline."""
    deadline = time.monotonic() + 60
    while True:
        try:
            value = fetch()
        except Exception as error:  # 404 until the worker has written the rows
            value = error
        if not isinstance(value, Exception) and ready(value):
            return value
        if time.monotonic() > deadline:
            raise SystemExit(f"{what} never became ready; last seen: {value!r}")
        time.sleep(0.3)


full = until(
    "the trace with its observations and score",
    lambda: langfuse.fetch_trace(trace.id).data,
    lambda t: len(t.observations) == 2 and len(t.scores) == 1,
)
traces = langfuse.fetch_traces(user_id="legacy-user", from_timestamp=started)
observations = langfuse.fetch_observations(trace_id=trace.id)
one = langfuse.fetch_observation(generation.id).data
sessions = langfuse.fetch_sessions(from_timestamp=started)
session = langfuse.client.sessions.get("legacy-session")
scores = langfuse.client.score.get(name="legacy-quality")
daily = langfuse.client.metrics.daily(trace_name="legacy-trace")

print(
    json.dumps(
        {
            "trace": {
                "name": full.name,
                "user_id": full.user_id,
                "session_id": full.session_id,
                "tags": sorted(full.tags),
                "input": full.input,
                "output": full.output,
                "metadata": full.metadata,
                "observations": sorted(o.name for o in full.observations),
                "score": [full.scores[0].name, full.scores[0].value],
            },
            "listed_traces": [t.id for t in traces.data],
            "listed_total": traces.meta.total_items,
            "observations": sorted([o.name, o.type] for o in observations.data),
            "generation": {
                "model": one.model,
                "usage": [one.usage.input, one.usage.output, one.usage.total],
                "output": one.output,
            },
            "sessions": [s.id for s in sessions.data],
            "session_traces": [t.id for t in session.traces],
            "scores": [[s.name, s.value, s.trace_id] for s in scores.data],
            "daily": [[d.count_traces, d.count_observations] for d in daily.data],
            "trace_id": trace.id,
        }
    )
)
