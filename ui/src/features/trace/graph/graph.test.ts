import { describe, expect, it } from "vitest";

import type { TraceTreeBody } from "../../../api/trace";
import { buildTree, NO_PARENT } from "../tree";
import { COLUMN, layoutGraph, NODE_WIDTH } from "./layout";
import { buildGraph } from "./model";

/** A trace of nodes given as [id, parent row, type, name]; starts in row order. */
function trace(nodes: [string, number, string, string][]) {
  const strings: string[] = [];
  const index = (s: string) => {
    const at = strings.indexOf(s);
    if (at >= 0) return at;
    strings.push(s);
    return strings.length - 1;
  };
  const body: TraceTreeBody = {
    traceId: "t",
    model: "v4",
    originMicros: 0,
    count: nodes.length,
    strings,
    ids: nodes.map((n) => n[0]),
    parents: nodes.map((n) => n[1]),
    missingParents: [],
    names: nodes.map((n) => index(n[3])),
    types: nodes.map((n) => index(n[2])),
    levels: nodes.map(() => index("DEFAULT")),
    models: nodes.map(() => -1),
    starts: nodes.map((_, i) => i * 10),
    ends: nodes.map((_, i) => i * 10 + 5),
    tokens: nodes.map(() => null),
    costs: nodes.map(() => null),
  };
  return buildTree(body);
}

describe("buildGraph", () => {
  it("folds spans and events into their nearest shown ancestor", () => {
    const tree = trace([
      ["root", NO_PARENT, "AGENT", "run"],
      ["span", 0, "SPAN", "plumbing"],
      ["llm", 1, "GENERATION", "plan"],
      ["event", 2, "EVENT", "token"],
      ["tool", 0, "TOOL", "search"],
    ]);
    const graph = buildGraph(tree);
    expect(graph.names).toEqual(["run", "plan", "search"]);
    expect(Array.from(graph.parent)).toEqual([-1, 0, 0]);
    // The span shows as part of the agent, the event as part of the generation.
    expect(graph.nodeOfRow[tree.rowOf.get("span") as number]).toBe(0);
    expect(graph.nodeOfRow[tree.rowOf.get("event") as number]).toBe(1);
    expect(Array.from(graph.folded)).toEqual([1, 1, 0]);
  });

  it("always shows a top-level node, whatever its type", () => {
    const graph = buildGraph(trace([["root", NO_PARENT, "SPAN", "request"], ["t", 0, "TOOL", "x"]]));
    expect(graph.names).toEqual(["request", "x"]);
  });

  it("merges repeated calls of one name under one caller, with their callees", () => {
    const tree = trace([
      ["root", NO_PARENT, "AGENT", "loop"],
      ["t1", 0, "TOOL", "search"],
      ["g1", 1, "GENERATION", "summarize"],
      ["other", 0, "TOOL", "fetch"],
      ["t2", 0, "TOOL", "search"],
      ["g2", 4, "GENERATION", "summarize"],
      ["t3", 0, "GENERATION", "search"],
    ]);
    const graph = buildGraph(tree);
    // search (TOOL) ×2 with summarize ×2 under it; the GENERATION named search is another node.
    expect(graph.names).toEqual(["loop", "search", "summarize", "fetch", "search"]);
    expect(Array.from(graph.calls)).toEqual([1, 2, 2, 1, 1]);
    expect(Array.from(graph.parent)).toEqual([-1, 0, 1, 0, 0]);
    // A click selects the earliest call.
    expect(tree.ids[graph.firstRow[1] as number]).toBe("t1");
    expect(graph.nodeOfRow[tree.rowOf.get("g2") as number]).toBe(2);
  });
});

/** A random forest of `n` nodes, parents before children. */
function randomForest(n: number, seed: number): Int32Array {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i === 0 || random() < 0.02 ? -1 : Math.floor(random() ** 3 * i);
  return parent;
}

function checkLayout(parent: Int32Array) {
  const layout = layoutGraph(parent);
  const byLayer = new Map<number, number[]>();
  for (let i = 0; i < parent.length; i++) {
    const p = parent[i] as number;
    // Every edge goes one layer down.
    if (p >= 0) {
      expect(layout.layer[i]).toBe((layout.layer[p] as number) + 1);
      expect(layout.y[i] as number).toBeGreaterThan(layout.y[p] as number);
    }
    const row = byLayer.get(layout.layer[i] as number) ?? [];
    row.push(layout.x[i] as number);
    byLayer.set(layout.layer[i] as number, row);
    expect(layout.x[i] as number).toBeGreaterThanOrEqual(NODE_WIDTH / 2);
    expect(layout.x[i] as number).toBeLessThanOrEqual(layout.width - NODE_WIDTH / 2 + 1e-6);
  }
  // No two boxes of a layer overlap.
  for (const xs of byLayer.values()) {
    xs.sort((a, b) => a - b);
    for (let k = 1; k < xs.length; k++) expect((xs[k] as number) - (xs[k - 1] as number)).toBeGreaterThanOrEqual(COLUMN - 1e-6);
  }
  return layout;
}

describe("layoutGraph", () => {
  it("puts callees below their caller, centred, without overlaps", () => {
    const layout = checkLayout(Int32Array.from([-1, 0, 0, 1, 1, 2]));
    expect(layout.x[0]).toBeCloseTo(((layout.x[1] as number) + (layout.x[2] as number)) / 2);
  });

  it("keeps a leaf high up from widening the layers below it", () => {
    // root → [leaf, a → [b → [c]]]: the leaf and a share layer 1; b and c need no extra column.
    const layout = checkLayout(Int32Array.from([-1, 0, 0, 2, 3]));
    expect(layout.width).toBe(COLUMN + NODE_WIDTH);
  });

  it("holds for random forests, deep chains and wide fans", () => {
    for (let seed = 1; seed <= 20; seed++) checkLayout(randomForest(400, seed));
    checkLayout(Int32Array.from({ length: 3000 }, (_, i) => i - 1)); // a chain 3 000 deep
    checkLayout(Int32Array.from({ length: 2000 }, (_, i) => (i === 0 ? -1 : 0))); // one caller, 1 999 callees
  });

  it("lays out 2 000 nodes in milliseconds", () => {
    const parent = randomForest(2000, 7);
    const started = performance.now();
    layoutGraph(parent);
    const ms = performance.now() - started;
    console.log(`layout of 2 000 nodes: ${ms.toFixed(1)} ms`);
    expect(ms).toBeLessThan(200);
  });
});
