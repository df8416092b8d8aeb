import { describe, expect, it } from "vitest";

import type { TraceTreeBody } from "../../api/trace";
import { ancestors, buildTree, durationOf, MISSING_PARENT, NO_PARENT, visibleRows } from "./tree";

/** A body of nodes given as [id, parent row, start µs, end µs | null]. */
function body(nodes: [string, number, number, number | null][], missing: Record<number, string> = {}): TraceTreeBody {
  return {
    traceId: "t",
    model: "v4",
    originMicros: 0,
    count: nodes.length,
    strings: ["step", "SPAN", "DEFAULT"],
    ids: nodes.map((n) => n[0]),
    parents: nodes.map((n) => n[1]),
    missingParents: Object.entries(missing).map(([index, parentId]) => ({ index: Number(index), parentId })),
    names: nodes.map(() => 0),
    types: nodes.map(() => 1),
    levels: nodes.map(() => 2),
    models: nodes.map(() => -1),
    starts: nodes.map((n) => n[2]),
    ends: nodes.map((n) => n[3]),
    tokens: nodes.map(() => null),
    costs: nodes.map(() => null),
  };
}

const idsOf = (model: ReturnType<typeof buildTree>, rows: Int32Array) => Array.from(rows, (r) => model.ids[r]);

describe("buildTree", () => {
  it("puts children under their parents, the root first, depth first", () => {
    const model = buildTree(
      body([
        ["root", NO_PARENT, 0, 100],
        ["a", 0, 10, 50],
        ["a1", 1, 20, 30],
        ["b", 0, 60, null],
        ["b1", 3, 70, 120],
      ]),
    );
    expect(idsOf(model, model.order)).toEqual(["root", "a", "a1", "b", "b1"]);
    expect(Array.from(model.depth)).toEqual([0, 1, 2, 1, 2]);
    expect(Array.from(model.subtree)).toEqual([5, 2, 1, 2, 1]);
    expect(model.reach[3]).toBe(120); // b has no end: its bar reaches its last descendant's
    expect(model.span).toBe(120);
    expect(durationOf(model, 1)).toBe(40);
    expect(durationOf(model, 3)).toBeNull();
    expect(ancestors(model, 4)).toEqual([3, 0]);
  });

  it("orders siblings by start time whatever order the rows come in", () => {
    const model = buildTree(
      body([
        ["late", 2, 50, 60],
        ["early", 2, 10, 20],
        ["root", NO_PARENT, 0, 100],
        ["middle", 2, 30, 40],
      ]),
    );
    expect(idsOf(model, model.order)).toEqual(["root", "early", "middle", "late"]);
  });

  it("shows orphans after the root, with their subtrees", () => {
    const model = buildTree(
      body(
        [
          ["root", NO_PARENT, 0, 10],
          ["lost", MISSING_PARENT, 5, 8],
          ["lost-child", 1, 6, 7],
          ["child", 0, 1, 2],
        ],
        { 1: "never-sent" },
      ),
    );
    expect(idsOf(model, model.order)).toEqual(["root", "child", "lost", "lost-child"]);
    expect(model.orphan[1]).toBe(1);
    expect(model.missingParents.get(1)).toBe("never-sent");
    expect(model.depth[2]).toBe(1);
  });

  it("keeps nodes in a parent cycle instead of losing them", () => {
    const model = buildTree(
      body([
        ["root", NO_PARENT, 0, 10],
        ["x", 2, 1, 2],
        ["y", 1, 3, 4],
      ]),
    );
    expect(idsOf(model, model.order)).toEqual(["root", "x", "y"]);
    expect(model.orphan[1]).toBe(1);
    expect(Array.from(model.subtree)).toEqual([1, 2, 1]);
    expect(ancestors(model, 2)).toEqual([1]);
  });

  it("hides a collapsed node's subtree", () => {
    const model = buildTree(
      body([
        ["root", NO_PARENT, 0, 100],
        ["a", 0, 10, 50],
        ["a1", 1, 20, 30],
        ["a2", 1, 21, 30],
        ["b", 0, 60, 70],
      ]),
    );
    expect(idsOf(model, visibleRows(model, new Set([1])))).toEqual(["root", "a", "b"]);
    expect(idsOf(model, visibleRows(model, new Set([0])))).toEqual(["root"]);
    expect(visibleRows(model, new Set())).toBe(model.order);
  });

  it("builds 100 000 nodes quickly", () => {
    const count = 100_000;
    const nodes: [string, number, number, number | null][] = [];
    for (let i = 0; i < count; i++) nodes.push([`s-${i}`, i === 0 ? NO_PARENT : Math.floor((i - 1) / 10), i, i + 5]);
    const input = body(nodes);
    const started = performance.now();
    const model = buildTree(input);
    const elapsed = performance.now() - started;
    expect(model.order.length).toBe(count);
    expect(model.subtree[0]).toBe(count);
    expect(elapsed).toBeLessThan(1000);
  });
});
