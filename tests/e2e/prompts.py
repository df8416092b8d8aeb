"""Prompts with the real Langfuse Python SDK: create a text and a chat prompt (with a placeholder),
fetch and compile them, move a label with update_prompt and fetch by label again. Prints what it
saw as JSON.

Usage: python prompts.py  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY)
"""
import json
import os

from langfuse import Langfuse

langfuse = Langfuse(
    public_key=os.environ["LOUPE_PUBLIC_KEY"],
    secret_key=os.environ["LOUPE_SECRET_KEY"],
    base_url=os.environ["LOUPE_URL"],
)
langfuse.create_prompt(
    name="sdk/summarise",
    prompt="Summarise in {{count}} words: {{text}}",
    labels=["production"],
    config={"model": "gpt-4o-mini"},
    type="text",
)
langfuse.create_prompt(
    name="sdk/pirate",
    type="chat",
    labels=["production"],
    prompt=[
        {"role": "system", "content": "You are a helpful {{persona}}."},
        {"type": "placeholder", "name": "history"},
        {"role": "user", "content": "Ahoy {{who}}"},
    ],
)
langfuse.create_prompt(name="sdk/summarise", prompt="Second: {{text}}", labels=[], type="text")

text = langfuse.get_prompt("sdk/summarise", cache_ttl_seconds=0)
chat = langfuse.get_prompt("sdk/pirate", type="chat", cache_ttl_seconds=0)
production_version = text.version
langfuse.update_prompt(name="sdk/summarise", version=2, new_labels=["production"])
relabelled = langfuse.get_prompt("sdk/summarise", label="production", cache_ttl_seconds=0)

print(
    json.dumps(
        {
            "text": text.compile(count=3, text="Rust is fast"),
            "text_config": text.config,
            "chat": chat.compile(persona="pirate", who="Ada", history=[{"role": "user", "content": "hi"}]),
            "production_version": production_version,
            "relabelled_version": relabelled.version,
        }
    )
)
