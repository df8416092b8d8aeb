#!/usr/bin/env python3
"""Fails when the modules of a crate import each other in a loop.

A module is a file under a crate's `src/` (`mod.rs` and `lib.rs`/`main.rs` name their folder's
module). An edge A -> B is any `crate::…`, `super::…` or `self::…` path in A that names B or one
of B's items. A parent using its own child is not an edge (a folder's `mod.rs` declares and
re-exports its children), nor is a child using its ancestors' items' namespaces only to reach a
sibling: the path is resolved to the deepest module it names. Tests (`tests/` folders,
`*_tests.rs`, `#[cfg(test)]` blocks) are left out: a test may use anything.

Usage: scripts/module_loops.py [crate dir ...]   (default: every crate of the workspace)
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATH_RE = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_GROUP_RE = re.compile(r"\buse\s+(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\};", re.S)


def crate_dirs():
    for manifest in sorted(ROOT.glob("*/*/Cargo.toml")) + sorted(ROOT.glob("*/Cargo.toml")):
        src = manifest.parent / "src"
        if src.is_dir():
            yield manifest.parent


def module_of(src: Path, file: Path):
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def strip_tests(text: str) -> str:
    """Drops `#[cfg(test)] mod … { … }` blocks and comments."""
    text = re.sub(r"//[^\n]*", "", text)
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub\s+)?mod\s+\w+\s*\{", text):
        if m.start() < i:
            continue
        out.append(text[i:m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def paths_in(text: str):
    """Every `crate|super|self::a::b` path, with `use x::{a, b::c}` groups expanded one level."""
    for m in USE_GROUP_RE.finditer(text):
        head, prefix, group = m.group(1), m.group(2), m.group(3)
        for item in re.split(r",", re.sub(r"\{[^}]*\}", "", group)):
            item = item.strip().split(" as ")[0].strip()
            if item and item != "self":
                yield head, (prefix + "::" + item).strip(":").split("::")
        for nested in re.finditer(r"([A-Za-z_][A-Za-z0-9_:]*)::\{", group):
            yield head, (prefix + "::" + nested.group(1)).strip(":").split("::")
    for m in PATH_RE.finditer(USE_GROUP_RE.sub("", text)):
        yield m.group(1), [p for p in m.group(2).split("::") if p]


def crate_loops(crate: Path):
    src = crate / "src"
    files = [f for f in src.rglob("*.rs") if "tests" not in f.relative_to(src).parts[:-1]
             and not f.name.endswith("_tests.rs") and f.name != "tests.rs"]
    modules = {module_of(src, f): f for f in files}
    edges = {m: set() for m in modules}
    for module, file in modules.items():
        is_dir_module = file.name in ("mod.rs", "lib.rs", "main.rs")
        text = strip_tests(file.read_text())
        for head, parts in paths_in(text):
            if head == "crate":
                base = ()
            elif head == "self":
                base = module if is_dir_module else module[:-1]
            else:
                here = module if is_dir_module else module[:-1]
                base = here[:-1] if is_dir_module else here
                while parts and parts[0] == "super":
                    base, parts = base[:-1], parts[1:]
            target = base
            for part in parts:
                if target + (part,) in modules:
                    target = target + (part,)
                else:
                    break
            if target == module or target not in modules:
                continue
            # A module reaching into its own descendants is how folders are built, not a loop.
            if target[: len(module)] == module:
                continue
            # Naming only an ancestor (for one of its items) counts as depending on that ancestor.
            edges[module].add(target)
    return find_cycles(edges)


def find_cycles(edges):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in list(edges):
        if v not in index:
            visit(v)
    return [(c, {m: sorted(edges[m] & set(c)) for m in c}) for c in out]


def name(module):
    return "::".join(module) or "(root)"


def main():
    crates = [Path(a).resolve() for a in sys.argv[1:]] or list(crate_dirs())
    failed = False
    for crate in crates:
        for component, inner in crate_loops(crate):
            failed = True
            print(f"{crate.relative_to(ROOT)}: modules import each other in a loop:")
            for module in component:
                print(f"  {name(module)} -> {', '.join(name(t) for t in inner[module])}")
    if failed:
        sys.exit(1)
    print(f"no module loops in {len(crates)} crates")


if __name__ == "__main__":
    main()
