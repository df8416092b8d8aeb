"""LLM connections with the real Langfuse Python SDK (`langfuse.api.llm_connections`, whose pydantic
models parse every answer): create an OpenAI-compatible connection with a base URL, custom models,
extra headers and config; update it by provider (upsert); create an Anthropic one; list them a page
at a time; delete one; delete a missing one. Prints what it saw as JSON (never a secret: the test
checks the secrets appear nowhere in the answers).

Usage: python llm_connections.py  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY, LOUPE_STUB_URL)
"""
import json
import os

from langfuse import Langfuse
from langfuse.api import LlmAdapter, NotFoundError

langfuse = Langfuse(
    public_key=os.environ["LOUPE_PUBLIC_KEY"],
    secret_key=os.environ["LOUPE_SECRET_KEY"],
    base_url=os.environ["LOUPE_URL"],
)
connections = langfuse.api.llm_connections
stub = os.environ["LOUPE_STUB_URL"]

created = connections.upsert(
    provider="my-gateway",
    adapter=LlmAdapter.OPEN_AI,
    secret_key="sk-first-secret-0001",
    base_url=stub + "/v1",
    custom_models=["judge-small", "judge-large"],
    with_default_models=False,
    extra_headers={"X-Team": "header-secret-value"},
    config={"useResponsesApi": False},
)
updated = connections.upsert(
    provider="my-gateway",
    adapter=LlmAdapter.OPEN_AI,
    secret_key="sk-second-secret-0002",
    base_url=stub + "/v1",
    custom_models=["judge-small"],
    extra_headers={"X-Team": "header-secret-value", "X-Other": "x"},
)
anthropic = connections.upsert(
    provider="anthropic", adapter=LlmAdapter.ANTHROPIC, secret_key="sk-ant-third-secret-0003"
)
first_page = connections.list(page=1, limit=1)
everything = connections.list()
deleted = connections.delete(anthropic.id)
after_delete = connections.list()
try:
    connections.delete(anthropic.id)
    missing = None
except NotFoundError as error:
    missing = error.status_code


def shown(connection):
    return {
        "id": connection.id,
        "provider": connection.provider,
        "adapter": connection.adapter,
        "displaySecretKey": connection.display_secret_key,
        "baseURL": connection.base_url,
        "customModels": connection.custom_models,
        "withDefaultModels": connection.with_default_models,
        "extraHeaderKeys": connection.extra_header_keys,
        "config": connection.config,
        "created_before_updated": connection.created_at <= connection.updated_at,
    }


print(
    json.dumps(
        {
            "created": shown(created),
            "updated": shown(updated),
            "anthropic": shown(anthropic),
            "first_page": [c.provider for c in first_page.data],
            "first_page_meta": [first_page.meta.total_items, first_page.meta.total_pages],
            "everything": [c.provider for c in everything.data],
            "deleted": deleted.message,
            "after_delete": [c.provider for c in after_delete.data],
            "missing": missing,
            "raw": [c.json() for c in everything.data],
        }
    )
)
