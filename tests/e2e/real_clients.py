"""Sends a trace with the real Langfuse Python SDK and another with the plain OpenTelemetry OTLP
exporter to a running Loupe, then prints the trace ids as JSON for the Rust test to look up.

Usage: python real_clients.py  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY)
"""
import base64
import json
import os

from langfuse import Langfuse, propagate_attributes
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

url = os.environ["LOUPE_URL"]
public_key = os.environ["LOUPE_PUBLIC_KEY"]
secret_key = os.environ["LOUPE_SECRET_KEY"]

# 1. The Langfuse SDK: auth check (GET /api/public/projects), a span with a generation, a score.
langfuse = Langfuse(public_key=public_key, secret_key=secret_key, base_url=url)
assert langfuse.auth_check(), "auth_check against Loupe failed"
with propagate_attributes(user_id="e2e-user", session_id="e2e-session"):
    with langfuse.start_as_current_observation(name="e2e-root", input={"question": "hi"}) as root:
        with langfuse.start_as_current_observation(
            name="e2e-generation",
            as_type="generation",
            model="gpt-4o-mini",
            usage_details={"input": 10, "output": 5},
        ) as generation:
            generation.update(output="hello")
        root.update(output={"answer": "hello"})
        sdk_trace_id = langfuse.get_current_trace_id()
langfuse.create_score(name="e2e-quality", value=0.9, trace_id=sdk_trace_id)
langfuse.flush()
langfuse.shutdown()

# 2. A plain OpenTelemetry exporter, as any OTel-instrumented app would send.
auth = base64.b64encode(f"{public_key}:{secret_key}".encode()).decode()
provider = TracerProvider(resource=Resource.create({"service.name": "e2e-otel"}))
provider.add_span_processor(
    SimpleSpanProcessor(
        OTLPSpanExporter(endpoint=f"{url}/api/public/otel/v1/traces", headers={"Authorization": f"Basic {auth}"})
    )
)
tracer = provider.get_tracer("e2e-plain-otel")
with tracer.start_as_current_span("e2e-otel-chat") as span:
    span.set_attribute("gen_ai.request.model", "gpt-4o-mini")
    span.set_attribute("gen_ai.usage.input_tokens", 7)
    span.set_attribute("user.id", "e2e-otel-user")
    otel_trace_id = format(span.get_span_context().trace_id, "032x")
provider.shutdown()

print(json.dumps({"sdk_trace_id": sdk_trace_id, "otel_trace_id": otel_trace_id}))
