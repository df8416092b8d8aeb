// The agent graph of a trace, built from the tree's columns (tree.ts): one node per kind of call
// that matters to an agent (agents, tools, generations, chains, retrievers, embeddings,
// evaluators, guardrails), an edge from each caller to what it called.
//
// - Spans, events and other plumbing are not nodes: each is folded into its nearest shown
//   ancestor (its own calls then hang off that ancestor).
// - A top-level node (the root, an orphan, the v3 trace node) is always shown, so every call has
//   somewhere to hang.
// - Repeated calls of the same type and name under the same node are one node with a count, and
//   so are their callees: a loop of 50 tool calls is one node "×50", not 50.
//
// Nodes come out in creation order, which is depth-first by start time, so a parent always comes
// before its children.

import { typeOf, nameOf, type TraceModel } from "../tree";

export const SHOWN_TYPES: ReadonlySet<string> = new Set([
  "AGENT",
  "TOOL",
  "GENERATION",
  "CHAIN",
  "RETRIEVER",
  "EMBEDDING",
  "EVALUATOR",
  "GUARDRAIL",
]);

export interface GraphModel {
  count: number;
  /** Node → its parent node, or -1 for a top-level node. Parents come before their children. */
  parent: Int32Array;
  names: string[];
  types: string[];
  /** Node → how many observations it stands for (merged calls). */
  calls: Int32Array;
  /** Node → how many spans and events were folded into it. */
  folded: Int32Array;
  /** Node → the tree row a click selects: its earliest call. */
  firstRow: Int32Array;
  /** Tree row → the node showing it (its own, or the one it was folded into). */
  nodeOfRow: Int32Array;
}

export function buildGraph(tree: TraceModel): GraphModel {
  const n = tree.count;
  const nodeOfRow = new Int32Array(n).fill(-1);
  const parent: number[] = [];
  const names: string[] = [];
  const types: string[] = [];
  const calls: number[] = [];
  const folded: number[] = [];
  const firstRow: number[] = [];
  const byKey = new Map<string, number>();

  // Display order is depth first, a parent before its children, so a row's parent is placed first.
  for (let i = 0; i < n; i++) {
    const row = tree.order[i] as number;
    const topLevel = (tree.depth[row] as number) === 0;
    const above = topLevel ? -1 : (nodeOfRow[tree.parents[row] as number] as number);
    const type = typeOf(tree, row);
    if (!topLevel && !SHOWN_TYPES.has(type) && above >= 0) {
      nodeOfRow[row] = above;
      folded[above] = (folded[above] as number) + 1;
      continue;
    }
    const name = nameOf(tree, row);
    const key = `${above}\u0000${type}\u0000${name}`;
    const existing = byKey.get(key);
    if (existing !== undefined) {
      nodeOfRow[row] = existing;
      calls[existing] = (calls[existing] as number) + 1;
      continue;
    }
    const node = parent.length;
    byKey.set(key, node);
    parent.push(above);
    names.push(name);
    types.push(type);
    calls.push(1);
    folded.push(0);
    firstRow.push(row);
    nodeOfRow[row] = node;
  }

  return {
    count: parent.length,
    parent: Int32Array.from(parent),
    names,
    types,
    calls: Int32Array.from(calls),
    folded: Int32Array.from(folded),
    firstRow: Int32Array.from(firstRow),
    nodeOfRow,
  };
}
