// A layered layout of the agent graph (a forest: each node has at most one caller), run in the
// layout worker (layout.worker.ts) so a large trace never blocks the page.
//
// Layers are depths: a callee sits one layer below its caller, so every edge goes downward. Within
// a layer nodes keep the callers' order (depth first by start time), so edges never cross. Columns
// are assigned bottom-up, tidy-tree style: a leaf takes the next free column of its layer, a
// caller is centred over its first and last callee, and when that centre is left of its layer's
// next free column the caller's whole subtree moves right (a pending shift applied on the way
// down), so nodes of a layer never overlap and a leaf high up does not widen the layers below it.
// O(nodes × depth) at worst, a few milliseconds for thousands of nodes.

export const NODE_WIDTH = 184;
export const NODE_HEIGHT = 44;
/** Horizontal distance between the centres of neighbouring columns. */
export const COLUMN = NODE_WIDTH + 24;
/** Vertical distance between layers. */
export const ROW = NODE_HEIGHT + 56;

export interface GraphLayout {
  /** Node → the centre of its box, in pixels. */
  x: Float64Array;
  y: Float64Array;
  layer: Int32Array;
  /** The extent of the drawing. */
  width: number;
  height: number;
}

/** Lays out the forest given by `parent` (node → its parent, -1 for a root; parents first). */
export function layoutGraph(parent: Int32Array): GraphLayout {
  const n = parent.length;
  // Children as one flat list (CSR), in node order.
  const childCount = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = parent[i] as number;
    if (p >= 0) childCount[p] = (childCount[p] as number) + 1;
  }
  const first = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) first[i + 1] = (first[i] as number) + (childCount[i] as number);
  const fill = first.slice(0, n);
  const kids = new Int32Array(first[n] as number);
  for (let i = 0; i < n; i++) {
    const p = parent[i] as number;
    if (p >= 0) {
      kids[fill[p] as number] = i;
      fill[p] = (fill[p] as number) + 1;
    }
  }

  const layer = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = parent[i] as number;
    layer[i] = p >= 0 ? (layer[p] as number) + 1 : 0;
  }
  let layers = 0;
  for (let i = 0; i < n; i++) layers = Math.max(layers, (layer[i] as number) + 1);

  // Depth-first post-order over every root, iteratively (a deep chain would overflow recursion).
  const post = new Int32Array(n);
  let count = 0;
  const stack: number[] = [];
  const next = new Int32Array(n); // how many of a node's children were pushed
  for (let root = 0; root < n; root++) {
    if ((parent[root] as number) >= 0) continue;
    stack.push(root);
    while (stack.length > 0) {
      const node = stack[stack.length - 1] as number;
      const k = next[node] as number;
      if (k < (childCount[node] as number)) {
        next[node] = k + 1;
        stack.push(kids[(first[node] as number) + k] as number);
      } else {
        stack.pop();
        post[count++] = node;
      }
    }
  }

  const column = new Float64Array(n);
  const shift = new Float64Array(n); // pending move of a node's subtree below it
  const deepest = new Int32Array(n); // the deepest layer of a node's subtree
  const free = new Float64Array(layers); // the next free column of each layer
  for (let i = 0; i < count; i++) {
    const node = post[i] as number;
    const l = layer[node] as number;
    let deep = l;
    let at: number;
    if ((childCount[node] as number) === 0) {
      at = free[l] as number;
    } else {
      const a = kids[first[node] as number] as number;
      const b = kids[(first[node + 1] as number) - 1] as number;
      for (let k = first[node] as number; k < (first[node + 1] as number); k++) deep = Math.max(deep, deepest[kids[k] as number] as number);
      at = ((column[a] as number) + (column[b] as number)) / 2;
      const lack = (free[l] as number) - at;
      if (lack > 0) {
        // The subtree moves right as one: its layers' next free columns move with it (its nodes
        // are the rightmost of every layer it reaches, having been placed last).
        at += lack;
        shift[node] = lack;
        for (let d = l + 1; d <= deep; d++) free[d] = (free[d] as number) + lack;
      }
    }
    column[node] = at;
    deepest[node] = deep;
    free[l] = at + 1;
  }

  // Pending shifts, applied top-down (parents come before their children).
  const moved = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const p = parent[i] as number;
    moved[i] = p >= 0 ? (moved[p] as number) + (shift[p] as number) : 0;
  }

  const x = new Float64Array(n);
  const y = new Float64Array(n);
  let columns = 0;
  for (let i = 0; i < n; i++) {
    const c = (column[i] as number) + (moved[i] as number);
    columns = Math.max(columns, c + 1);
    x[i] = c * COLUMN + NODE_WIDTH / 2;
    y[i] = (layer[i] as number) * ROW + NODE_HEIGHT / 2;
  }
  return { x, y, layer, width: columns > 0 ? (columns - 1) * COLUMN + NODE_WIDTH : 0, height: layers > 0 ? (layers - 1) * ROW + NODE_HEIGHT : 0 };
}
