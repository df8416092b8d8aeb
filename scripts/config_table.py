#!/usr/bin/env python3
"""Rewrites the configuration table in README.md from the settings catalogue
(crates/domain/src/config/catalog.rs), between the <!-- config-table --> markers.
A unit test fails when the README lacks a setting, so run this (`just docs`) after adding one."""
import pathlib
import re

root = pathlib.Path(__file__).resolve().parent.parent
catalog = (root / "crates/domain/src/config/catalog.rs").read_text()
consts = dict(re.findall(r'pub const (\w+): &str = "([^"]+)";', catalog))
body = catalog[catalog.index("pub const SETTINGS"):]
body = body[: body.index("];")]
entry = re.compile(r'^\s*(s|described|secret)\((\w+), (\w+|"[^"]*"), (?:"((?:[^"\\]|\\.)*)", )?"((?:[^"\\]|\\.)*)"\),$', re.M)
rows = ["| variable | default | meaning |", "|---|---|---|"]
for kind, _group, name, default, meaning in entry.findall(body):
    name = consts.get(name, name.strip('"'))
    shown = "— (secret)" if kind == "secret" else (default or "—")
    rows.append(f"| `{name}` | {shown} | {meaning.replace(chr(92) + chr(34), chr(34))} |")
readme_path = root / "README.md"
readme = readme_path.read_text()
start, end = "<!-- config-table -->", "<!-- /config-table -->"
if start not in readme:
    raise SystemExit("README.md has no <!-- config-table --> marker")
head, rest = readme.split(start, 1)
_, tail = rest.split(end, 1)
readme_path.write_text(head + start + "\n" + "\n".join(rows) + "\n" + end + tail)
print(f"{len(rows) - 2} settings written to README.md")
