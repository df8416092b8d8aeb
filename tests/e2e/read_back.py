"""Read-after-write with the real Langfuse Python SDK: ingest a trace, a generation and a score,
then read them back through the SDK's own API resources (v2 observations, v3 scores, v2 metrics),
which parse the responses with their strict pydantic models; then deletes the trace through the
SDK and reads again. Prints what it read as JSON.

Usage: python read_back.py  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY)
"""
import datetime
import json
import os
import time

from langfuse import Langfuse, propagate_attributes

from polling import until

langfuse = Langfuse(
    public_key=os.environ["LOUPE_PUBLIC_KEY"],
    secret_key=os.environ["LOUPE_SECRET_KEY"],
    base_url=os.environ["LOUPE_URL"],
)
started = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
with propagate_attributes(user_id="read-user", session_id="read-session", tags=["read-back"]):
    with langfuse.start_as_current_observation(name="read-root", input={"question": "hi"}) as root:
        with langfuse.start_as_current_observation(
            name="read-generation",
            as_type="generation",
            model="gpt-4o-mini",
            usage_details={"input": 10, "output": 5},
            cost_details={"input": 0.001, "output": 0.002},
        ) as generation:
            generation.update(output="hello")
        trace_id = langfuse.get_current_trace_id()
langfuse.create_score(name="read-quality", value=0.75, trace_id=trace_id)
langfuse.flush()


observations = until(
    "v2 observations",
    lambda: langfuse.api.observations.get_many(
        trace_id=trace_id, fields="core,basic,usage,io,trace_context", from_start_time=started
    ),
    lambda r: len(r.data) >= 2,
)
no_range = langfuse.api.observations.get_many(trace_id=trace_id)
scores = until(
    "v3 scores",
    lambda: langfuse.api.scores.get_many(trace_id=trace_id, fields="details,subject"),
    lambda r: len(r.data) >= 1,
)
query = {
    "view": "observations",
    "dimensions": [{"field": "name"}],
    "metrics": [{"measure": "count", "aggregation": "count"}, {"measure": "totalCost", "aggregation": "sum"}],
    "filters": [{"type": "string", "column": "name", "operator": "starts with", "value": "read-"}],
    "fromTimestamp": started.isoformat(),
    "toTimestamp": (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=5)).isoformat(),
}
metrics = langfuse.api.metrics.metrics(query=json.dumps(query))
# Deleting through the SDK's own resource: the answer parses, and the trace is gone at once.
deleted = langfuse.api.trace.delete(trace_id)
deleted_many = langfuse.api.trace.delete_multiple(trace_ids=[trace_id, "never-written"])
after_delete = langfuse.api.observations.get_many(trace_id=trace_id)
scores_after_delete = langfuse.api.scores.get_many(trace_id=trace_id)
langfuse.shutdown()

generation = next(o for o in observations.data if o.name == "read-generation")
print(
    json.dumps(
        {
            "trace_id": trace_id,
            "names": sorted(o.name for o in observations.data),
            "without_range": len(no_range.data),
            "generation_type": generation.type,
            "generation_usage": generation.usage_details,
            "generation_user": generation.user_id,
            "generation_tags": generation.tags,
            "score": {"name": scores.data[0].name, "value": scores.data[0].value, "kind": scores.data[0].subject.kind},
            "metrics": sorted(metrics.data, key=lambda row: row["name"]),
            "deleted": [deleted.message, deleted_many.message],
            "after_delete": [len(after_delete.data), len(scores_after_delete.data)],
        },
        default=str,
    )
)
