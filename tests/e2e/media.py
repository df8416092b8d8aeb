"""Media with the real Langfuse Python SDK: an observation's input holds an image; the SDK uploads
it (POST /media, PUT to the upload URL, PATCH the outcome) and leaves a reference string in the
input. Reading the observation back, the reference's media id gives a download URL that must
return the same bytes. Prints what it saw as JSON.

Usage: python media.py  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY)
"""
import datetime
import json
import os
import time

import httpx
from langfuse import Langfuse
from langfuse.media import LangfuseMedia

IMAGE = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4

langfuse = Langfuse(
    public_key=os.environ["LOUPE_PUBLIC_KEY"],
    secret_key=os.environ["LOUPE_SECRET_KEY"],
    base_url=os.environ["LOUPE_URL"],
)
started = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
with langfuse.start_as_current_observation(
    name="with-image",
    input={"question": "what is this?", "image": LangfuseMedia(content_bytes=IMAGE, content_type="image/png")},
) as span:
    trace_id = langfuse.get_current_trace_id()
langfuse.flush()

deadline = time.monotonic() + 90
reference = None
while reference is None:
    page = langfuse.api.observations.get_many(trace_id=trace_id, fields="core,io", from_start_time=started)
    for observation in page.data:
        text = json.dumps(observation.input)
        if "@@@langfuseMedia:" in text:
            start = text.index("@@@langfuseMedia:")
            reference = text[start : text.index("@@@", start + 3) + 3]
    if reference is None:
        if time.monotonic() > deadline:
            raise SystemExit(f"no media reference in the observation input of trace {trace_id}")
        time.sleep(0.3)

parsed = LangfuseMedia.parse_reference_string(reference)
media = langfuse.api.media.get(parsed["media_id"])
downloaded = httpx.get(media.url).content

# The server lists the reference with the observation too, once the upload is recorded.
http = langfuse.api._client_wrapper.httpx_client
query = {"traceId": trace_id, "fields": "core,io", "fromStartTime": started.isoformat()}
listed = []
while not listed:
    rows = http.request("api/public/v2/observations", method="GET", params=query).json()["data"]
    listed = [ref for row in rows for ref in row.get("mediaReferences", [])]
    if not listed:
        if time.monotonic() > deadline:
            raise SystemExit(f"no mediaReferences listed for trace {trace_id}: {rows}")
        time.sleep(0.3)

print(
    json.dumps(
        {
            "same_bytes": downloaded == IMAGE,
            "content_type": media.content_type,
            "listed": [
                {
                    "field": ref["field"],
                    "json_path": ref["jsonPath"],
                    "media_id": ref["media"]["mediaId"],
                    "is_the_reference": ref["referenceString"] == reference,
                    "same_bytes": httpx.get(ref["media"]["url"]).content == IMAGE,
                }
                for ref in listed
            ],
            "media_id": parsed["media_id"],
        }
    )
)
