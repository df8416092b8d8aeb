"""Trace attributes with the real Langfuse Python SDK 5, in both arrival orders.

In each of two traces a child span states the trace's name, user, session, version, tags, public
flag and metadata through the SDK's attribute propagation, while the root only has its own name,
its own tags and its observation metadata. In `child-first` the child is flushed, and stored,
before the root is sent; in `root-first` the other way round. Both traces are then read back
through every read the deployment answers: the legacy trace, trace list, session and observation
reads, and, when the write mode has them, v2 observations through the SDK's own typed resource.
Prints what it read as JSON.

Usage: python trace_attributes.py  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY)
"""
import datetime
import json
import os
import time
import uuid

from langfuse import Langfuse, propagate_attributes
from opentelemetry import trace as otel_trace

from polling import until

langfuse = Langfuse(
    public_key=os.environ["LOUPE_PUBLIC_KEY"],
    secret_key=os.environ["LOUPE_SECRET_KEY"],
    base_url=os.environ["LOUPE_URL"],
)
http = langfuse.api._client_wrapper.httpx_client
RUN = uuid.uuid4().hex[:8]
SESSION = f"attr-session-{RUN}"
STARTED = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
# Metadata as the SDK sends it: every value JSON-encoded, strings included.
TRACE_METADATA = {"batchIndex": 0, "config": {"k": [1, 2]}, "label": "plain", "quoted": "123"}
CHILD_METADATA = {"nested": {"a": [1, 2]}, "flag": True, "label": "plain", "quoted": "123"}


def get(path, **params):
    response = http.request(path, method="GET", params=params)
    return response.status_code, (response.json() if response.content else None)


def legacy_observations(trace_id):
    status, body = get("api/public/observations", traceId=trace_id)
    return body["data"] if status == 200 else []


def state_trace_attributes(span, name):
    """The SDK's attribute propagation entered inside `span`: it sets them on the span itself."""
    with otel_trace.use_span(span._otel_span, end_on_exit=False):
        with propagate_attributes(
            trace_name=name,
            user_id="attr-user",
            session_id=SESSION,
            version="attr-v2",
            tags=["child-tag"],
            metadata=TRACE_METADATA,
        ):
            pass
    span.set_trace_as_public()


def send(order):
    """One trace whose child states the trace's attributes; `order` says which span goes first."""
    root = langfuse.start_observation(name=f"root-{order}", metadata={"batchIndex": "root", "route": "/chat"})
    with otel_trace.use_span(root._otel_span, end_on_exit=False):
        with propagate_attributes(tags=["root-tag"]):
            pass
    child = root.start_observation(name=f"child-{order}", metadata=CHILD_METADATA)
    name = f"explicit-{order}-{RUN}"
    first, second = (child, root) if order == "child-first" else (root, child)
    if first is child:
        state_trace_attributes(child, name)
    first.end()
    langfuse.flush()
    # The first span is stored before the second one is even sent.
    until(f"{order}: the first span", lambda: legacy_observations(root.trace_id), lambda rows: len(rows) == 1)
    if second is child:
        state_trace_attributes(child, name)
    second.end()
    langfuse.flush()
    until(f"{order}: both spans", lambda: legacy_observations(root.trace_id), lambda rows: len(rows) == 2)
    return root.trace_id, name


def picked(metadata, keys):
    return {key: metadata.get(key) for key in keys}


def read(trace_id, name, order):
    _, trace = get(f"api/public/traces/{trace_id}")
    _, listed = get("api/public/traces", name=name)
    child = next(o for o in legacy_observations(trace_id) if o["name"] == f"child-{order}")
    seen = {
        "trace_id": trace_id,
        "name": name,
        "v1_trace": {
            **{key: trace[key] for key in ["name", "userId", "sessionId", "version", "public", "tags"]},
            "metadata": picked(trace["metadata"], [*TRACE_METADATA, "route"]),
        },
        "v1_listed_by_name": [t["id"] for t in listed["data"]],
        "v1_child_metadata": picked(child["metadata"], CHILD_METADATA),
    }
    status, _ = get("api/public/v2/observations", traceId=trace_id, fields="core")
    if status == 200:
        rows = until(
            f"{order}: v2 observations",
            lambda: langfuse.api.observations.get_many(
                trace_id=trace_id, fields="core,basic,trace_context,metadata", from_start_time=STARTED
            ).data,
            lambda rows: len(rows) == 2,
        )
        seen["v2"] = {
            row.name: {
                "trace_name": row.trace_name,
                "tags": row.tags,
                "metadata": picked(row.metadata or {}, CHILD_METADATA if row.name.startswith("child") else []),
            }
            for row in rows
        }
    return seen


traces = {order: send(order) for order in ["child-first", "root-first"]}
langfuse.shutdown()
seen = {order: read(trace_id, name, order) for order, (trace_id, name) in traces.items()}
_, session = get(f"api/public/sessions/{SESSION}")
seen["session"] = SESSION
seen["session_trace_names"] = sorted(t["name"] for t in session["traces"])
print(json.dumps(seen, default=str))
