#!/usr/bin/env python3
"""Seed corpora for the fuzz targets from the recorded SDK requests (shared/fixtures/sdk-captures).

Writes one file per distinct request body into fuzz/corpus/<target>/, named by its SHA-1 as
libFuzzer names its own finds, so seeding again adds nothing twice:

- otlp_protobuf: the protobuf bodies as sent (decompressed), and gzipped again;
- otlp_json: the OTLP/JSON bodies, and the protobuf captures in their OTLP/JSON form;
- batch: the bodies of the legacy JSON endpoints (/api/public/ingestion, /scores, ...).

The `convert` target generates structured exports and needs no seeds. Usage:
    scripts/fuzz_seeds.py [CAPTURES_DIR] [CORPUS_DIR]
"""

import base64
import gzip
import hashlib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OTLP_PATH = "/api/public/otel/v1/traces"


def write(corpus: pathlib.Path, target: str, body: bytes) -> bool:
    directory = corpus / target
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / hashlib.sha1(body).hexdigest()
    if path.exists():
        return False
    path.write_bytes(body)
    return True


def seeds(captures: pathlib.Path):
    for capture in sorted(captures.glob("*.json")):
        for request in json.loads(capture.read_text())["requests"]:
            if request.get("method") != "POST" or request.get("body") is None:
                continue
            as_json = json.dumps(request["body"], separators=(",", ":")).encode()
            if request["path"] == OTLP_PATH:
                if request.get("body_base64"):
                    protobuf = base64.b64decode(request["body_base64"])
                    yield "otlp_protobuf", protobuf
                    yield "otlp_protobuf", gzip.compress(protobuf, mtime=0)
                yield "otlp_json", as_json
            elif request["path"].startswith("/api/public/") and request.get("body_kind") == "json":
                yield "batch", as_json


def main() -> None:
    captures = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared/fixtures/sdk-captures"
    corpus = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "fuzz/corpus"
    if not captures.is_dir():
        sys.exit(f"no SDK captures at {captures}")
    added: dict[str, int] = {}
    for target, body in seeds(captures):
        added[target] = added.get(target, 0) + write(corpus, target, body)
    print("seeded " + ", ".join(f"{target}: {count} new" for target, count in sorted(added.items())))


if __name__ == "__main__":
    main()
