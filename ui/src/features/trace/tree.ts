// The trace tree from the server's columnar body: typed arrays, no object per observation, so a
// 100 000-observation trace is built in a few milliseconds and kept in a few MB.
//
// Order: the root (a node without a parent) first, then orphans (whose parent is not in the trace),
// each followed by its subtree; siblings by start time, ties in the server's order. Nodes caught
// in a parent cycle (which no root reaches) are shown as orphans, so every node is in the tree.

import type { TraceTreeBody } from "../../api/trace";

export const NO_PARENT = -1;
export const MISSING_PARENT = -2;

export interface TraceModel {
  traceId: string;
  count: number;
  originMicros: number;
  strings: string[];
  ids: string[];
  /** Row → its parent's row, or -1 (root) / -2 (orphan). */
  parents: Int32Array;
  names: Uint32Array;
  types: Uint32Array;
  levels: Uint32Array;
  /** -1 for none. */
  models: Int32Array;
  /** Microseconds from `originMicros`. */
  starts: Float64Array;
  /** NaN for none. */
  ends: Float64Array;
  /** NaN for none. */
  tokens: Float64Array;
  /** NaN for none. */
  costs: Float64Array;
  /** The parent id an orphan names, by row. */
  missingParents: Map<number, string>;
  /** Rows in display order (depth first). */
  order: Int32Array;
  /** Row → its position in `order`. */
  position: Int32Array;
  /** Row → its depth (0 for a top-level node). */
  depth: Uint16Array;
  /** Row → how many nodes its subtree holds, itself included. */
  subtree: Int32Array;
  /** Row → its number of children. */
  childCount: Int32Array;
  /** Row → the latest end (or start) in its subtree: where its timeline bar ends when it has no end. */
  reach: Float64Array;
  /** The latest end (or start) of the trace, in microseconds from the origin. */
  span: number;
  /** Row → whether the node is an orphan at the top level (parent missing, or a cycle). */
  orphan: Uint8Array;
  /** Row of an id. */
  rowOf: Map<string, number>;
}

function floats(values: readonly (number | null)[]): Float64Array {
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i] ?? Number.NaN;
  return out;
}

/** Builds the display structures of a tree body. */
export function buildTree(body: TraceTreeBody): TraceModel {
  const n = body.count;
  const parents = Int32Array.from(body.parents);
  const starts = Float64Array.from(body.starts);
  const ends = floats(body.ends);

  // Rows by start time (ties by row), so children lists come out sorted.
  let byStart: Int32Array = new Int32Array(n);
  let sorted = true;
  for (let i = 0; i < n; i++) {
    byStart[i] = i;
    if (i > 0 && (starts[i] as number) < (starts[i - 1] as number)) sorted = false;
  }
  if (!sorted) {
    byStart = Int32Array.from(Array.from(byStart).sort((a, b) => (starts[a] as number) - (starts[b] as number) || a - b));
  }

  // Children as one flat list (CSR): row r's children are kids[first[r] .. first[r + 1]).
  const childCount = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = parents[i] as number;
    if (p >= 0 && p < n && p !== i) childCount[p] = (childCount[p] as number) + 1;
  }
  const first = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) first[i + 1] = (first[i] as number) + (childCount[i] as number);
  const fill = first.slice(0, n);
  const kids = new Int32Array(first[n] as number);
  for (const row of byStart) {
    const p = parents[row] as number;
    if (p >= 0 && p < n && p !== row) {
      kids[fill[p] as number] = row;
      fill[p] = (fill[p] as number) + 1;
    }
  }

  const order = new Int32Array(n);
  const depth = new Uint16Array(n);
  const subtree = new Int32Array(n);
  const orphan = new Uint8Array(n);
  const visited = new Uint8Array(n);
  let next = 0;
  const stack: number[] = [];
  const walk = (top: number) => {
    stack.push(top);
    depth[top] = 0;
    while (stack.length > 0) {
      const row = stack.pop() as number;
      if (visited[row]) continue;
      visited[row] = 1;
      order[next++] = row;
      // Pushed in reverse so the earliest child is visited first.
      for (let k = (first[row + 1] as number) - 1; k >= (first[row] as number); k--) {
        const child = kids[k] as number;
        if (!visited[child]) {
          depth[child] = Math.min((depth[row] as number) + 1, 65_535);
          stack.push(child);
        }
      }
    }
  };
  for (const row of byStart) if (parents[row] === NO_PARENT) walk(row);
  for (const row of byStart) {
    if (parents[row] === MISSING_PARENT || (parents[row] as number) >= n) {
      orphan[row] = 1;
      walk(row);
    }
  }
  // Whatever no root or orphan reached is in a cycle: its earliest node becomes an orphan.
  for (const row of byStart) {
    if (!visited[row]) {
      orphan[row] = 1;
      walk(row);
    }
  }

  const position = new Int32Array(n);
  for (let i = 0; i < n; i++) position[order[i] as number] = i;
  // Subtree sizes and reaches, children before parents (reverse display order).
  const reach = new Float64Array(n);
  let span = 0;
  for (let i = n - 1; i >= 0; i--) {
    const row = order[i] as number;
    let size = 1;
    const own = ends[row] as number;
    let latest = Number.isNaN(own) ? (starts[row] as number) : own;
    for (let k = first[row] as number; k < (first[row + 1] as number); k++) {
      const child = kids[k] as number;
      // A child reached through another path (a cycle) is not part of this subtree.
      if ((position[child] as number) > i && (depth[child] as number) === (depth[row] as number) + 1) {
        size += subtree[child] as number;
        latest = Math.max(latest, reach[child] as number);
      }
    }
    subtree[row] = size;
    reach[row] = latest;
    span = Math.max(span, latest);
  }

  const rowOf = new Map<string, number>();
  body.ids.forEach((id, row) => rowOf.set(id, row));
  return {
    traceId: body.traceId,
    count: n,
    originMicros: body.originMicros,
    strings: body.strings,
    ids: body.ids,
    parents,
    names: Uint32Array.from(body.names),
    types: Uint32Array.from(body.types),
    levels: Uint32Array.from(body.levels),
    models: Int32Array.from(body.models),
    starts,
    ends,
    tokens: floats(body.tokens),
    costs: floats(body.costs),
    missingParents: new Map(body.missingParents.map((m) => [m.index, m.parentId])),
    order,
    position,
    depth,
    subtree,
    childCount,
    reach,
    span,
    orphan,
    rowOf,
  };
}

/** The rows shown, in order, when the nodes in `collapsed` hide their subtrees. */
export function visibleRows(model: TraceModel, collapsed: ReadonlySet<number>): Int32Array {
  if (collapsed.size === 0) return model.order;
  const out = new Int32Array(model.count);
  let count = 0;
  for (let i = 0; i < model.count; ) {
    const row = model.order[i] as number;
    out[count++] = row;
    i += collapsed.has(row) ? (model.subtree[row] as number) : 1;
  }
  return out.subarray(0, count);
}

/** The ancestors of `row`, nearest first (none for a top-level node). */
export function ancestors(model: TraceModel, row: number): number[] {
  const out: number[] = [];
  let current = row;
  while ((model.depth[current] as number) > 0) {
    const parent = model.parents[current] as number;
    if (parent < 0) break;
    out.push(parent);
    current = parent;
  }
  return out;
}

/** The row the panel selects when the URL names none (or one not in the trace): the first one. */
export function defaultRow(model: TraceModel): number {
  return model.count > 0 ? (model.order[0] as number) : -1;
}

export function nameOf(model: TraceModel, row: number): string {
  return model.strings[model.names[row] as number] ?? "";
}

export function typeOf(model: TraceModel, row: number): string {
  return model.strings[model.types[row] as number] ?? "";
}

export function levelOf(model: TraceModel, row: number): string {
  return model.strings[model.levels[row] as number] ?? "";
}

export function modelOf(model: TraceModel, row: number): string | null {
  const index = model.models[row] as number;
  return index < 0 ? null : (model.strings[index] ?? null);
}

/** Duration in microseconds, or null without an end. */
export function durationOf(model: TraceModel, row: number): number | null {
  const end = model.ends[row] as number;
  return Number.isNaN(end) ? null : end - (model.starts[row] as number);
}
