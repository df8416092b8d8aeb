"""The real Langfuse Python SDK 5 for the SDK-parity items of issue 17 it exposes:

- generations whose usage details use OpenAI's key names: `prompt_tokens`/`completion_tokens`
  alone are kept as sent (a total added), while the complete OpenAI usage object (with
  `total_tokens`) is mapped to input/output/total, as upstream's schema does;
- a dataset item holding media in a list, read back through `get_dataset`, which puts a resolved
  media reference at the JSONPath the server reports only when the path is in the normalized form
  the SDK parses (`$['gallery'][0]`).

The Python SDK's experiment runner does not post run items itself (SDK 5 records experiments from
spans only), so the duplicate run item case of issue 17 is exercised with the JS SDK's runner.
Prints what it saw as JSON; the black-box test checks the stored rows.

Usage: python sdk5_parity.py  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY)
"""
import json
import os

from langfuse import Langfuse
from langfuse.media import LangfuseMedia, LangfuseMediaReference

IMAGE = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 2

langfuse = Langfuse(
    public_key=os.environ["LOUPE_PUBLIC_KEY"],
    secret_key=os.environ["LOUPE_SECRET_KEY"],
    base_url=os.environ["LOUPE_URL"],
)

as_sent = langfuse.start_observation(
    name="py-usage-as-sent",
    as_type="generation",
    model="py-parity-model",
    usage_details={"prompt_tokens": 10, "completion_tokens": 5},
)
as_sent.end()
openai_object = langfuse.start_observation(
    name="py-usage-openai",
    as_type="generation",
    model="py-parity-model",
    usage_details={"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
)
openai_object.end()

langfuse.create_dataset(name="py-media")
langfuse.create_dataset_item(
    dataset_name="py-media",
    id="py-media-1",
    input={"caption": "a picture", "gallery": [LangfuseMedia(content_bytes=IMAGE, content_type="image/png")]},
)
raw = langfuse.api.dataset_items.get("py-media-1")
item = langfuse.get_dataset("py-media").items[0]
hydrated = item.input["gallery"][0]
langfuse.flush()

print(
    json.dumps(
        {
            "generations": {
                "as_sent": {"trace_id": as_sent.trace_id, "id": as_sent.id},
                "openai_object": {"trace_id": openai_object.trace_id, "id": openai_object.id},
            },
            "media": {
                "json_paths": [[getattr(ref.field, "value", ref.field), ref.json_path] for ref in raw.media_references or []],
                "hydrated": isinstance(hydrated, LangfuseMediaReference),
                "same_bytes": isinstance(hydrated, LangfuseMediaReference) and hydrated.fetch_bytes() == IMAGE,
                "caption": item.input["caption"],
            },
        }
    )
)
