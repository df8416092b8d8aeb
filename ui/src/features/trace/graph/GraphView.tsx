// The agent graph beside the trace tree (model.ts builds it, the layout worker places it): SVG,
// panned by dragging, zoomed with the wheel or the buttons. Only what is in view is drawn, and
// labels only when they are legible, so thousands of nodes stay smooth. A click (or Enter on a
// focused node) selects the node's earliest observation, as a click in the tree does.
//
// `data-layout-ms` and `data-render-ms` on the figure say how long the worker's layout took and
// how long from its answer to the first painted frame (the browser test reads them).

import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent } from "react";

import type { TraceModel } from "../tree";
import { typeLabel } from "../TraceTreeView";
import { NODE_HEIGHT, NODE_WIDTH, ROW } from "./layout";
import { buildGraph } from "./model";
import { useLayout } from "./useLayout";
import "./graph.css";

export interface GraphViewProps {
  tree: TraceModel;
  selectedRow: number;
  onSelect(row: number): void;
}

/** Screen = world × k + (x, y). */
interface View {
  x: number;
  y: number;
  k: number;
}

const MIN_ZOOM = 0.0005;
/** Where a graph too wide to read whole opens: labels legible, around the selected node. */
const READING_ZOOM = 0.8;
const MAX_ZOOM = 2;
/** Below this zoom the labels are unreadable: boxes only. */
const LABEL_ZOOM = 0.45;
const PAD = 24;
/** A pointer that moved further than this between down and up dragged; it did not click. */
const CLICK_SLOP = 4;

const clampZoom = (k: number) => Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, k));

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export default function GraphView({ tree, selectedRow, onSelect }: GraphViewProps) {
  const graph = useMemo(() => buildGraph(tree), [tree]);
  const layout = useLayout(graph.parent);
  const box = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  const [view, setView] = useState<View | null>(null);
  const [renderMs, setRenderMs] = useState<number | null>(null);
  const laidOutAt = useRef(0);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setSize({ width: entry.contentRect.width, height: entry.contentRect.height });
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const fit = useCallback(() => {
    if (!layout || size.width === 0) return;
    const k = clampZoom(Math.min(1, (size.width - 2 * PAD) / Math.max(layout.width, 1), (size.height - 2 * PAD) / Math.max(layout.height, 1)));
    setView({ k, x: (size.width - layout.width * k) / 2, y: PAD });
  }, [layout, size]);

  const selectedNode = selectedRow >= 0 ? (graph.nodeOfRow[selectedRow] ?? -1) : -1;

  // The first view of a layout shows all of it when that is legible, else the selected node (or
  // the root) at a legible zoom, the top layer at the top; the time to its first frame is noted.
  useEffect(() => {
    if (!layout) return;
    laidOutAt.current = performance.now();
    setView(null);
    setRenderMs(null);
  }, [layout]);
  const focus = useRef(selectedNode);
  focus.current = selectedNode;
  useEffect(() => {
    if (!layout || view !== null || size.width === 0) return;
    const whole = Math.min(1, (size.width - 2 * PAD) / Math.max(layout.width, 1), (size.height - 2 * PAD) / Math.max(layout.height, 1));
    if (whole >= LABEL_ZOOM) {
      fit();
      return;
    }
    const node = Math.max(focus.current, 0);
    setView({ k: READING_ZOOM, x: size.width / 2 - (layout.x[node] as number) * READING_ZOOM, y: PAD });
  }, [layout, view, size, fit]);
  useEffect(() => {
    if (view === null || renderMs !== null) return;
    requestAnimationFrame(() => setRenderMs(performance.now() - laidOutAt.current));
  }, [view, renderMs]);

  // The wheel zooms around the pointer (a non-passive listener, so the page does not scroll).
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      const rect = element.getBoundingClientRect();
      const px = event.clientX - rect.left;
      const py = event.clientY - rect.top;
      setView((v) => {
        if (!v) return v;
        const k = clampZoom(v.k * Math.exp(-event.deltaY * 0.0015));
        return { k, x: px - ((px - v.x) * k) / v.k, y: py - ((py - v.y) * k) / v.k };
      });
    };
    element.addEventListener("wheel", onWheel, { passive: false });
    return () => element.removeEventListener("wheel", onWheel);
  }, []);

  const zoomBy = (factor: number) =>
    setView((v) => {
      if (!v) return v;
      const k = clampZoom(v.k * factor);
      const cx = size.width / 2;
      const cy = size.height / 2;
      return { k, x: cx - ((cx - v.x) * k) / v.k, y: cy - ((cy - v.y) * k) / v.k };
    });

  const drag = useRef<{ x: number; y: number; startX: number; startY: number; moved: boolean } | null>(null);
  const onPointerDown = (event: PointerEvent<SVGSVGElement>) => {
    if (event.button !== 0 || !view) return;
    drag.current = { x: event.clientX - view.x, y: event.clientY - view.y, startX: event.clientX, startY: event.clientY, moved: false };
  };
  const onPointerMove = (event: PointerEvent<SVGSVGElement>) => {
    const d = drag.current;
    if (!d) return;
    if (!d.moved && Math.hypot(event.clientX - d.startX, event.clientY - d.startY) > CLICK_SLOP) {
      d.moved = true;
      event.currentTarget.setPointerCapture(event.pointerId);
    }
    if (d.moved) setView((v) => (v ? { ...v, x: event.clientX - d.x, y: event.clientY - d.y } : v));
  };
  const onPointerUp = () => {
    // Cleared after the click that follows, which checks it.
    setTimeout(() => (drag.current = null), 0);
  };

  // A node selected elsewhere (the tree, j/k) and out of view is brought into view.
  useEffect(() => {
    if (!layout || selectedNode < 0 || size.width === 0) return;
    setView((v) => {
      if (!v) return v;
      const sx = (layout.x[selectedNode] as number) * v.k + v.x;
      const sy = (layout.y[selectedNode] as number) * v.k + v.y;
      if (sx > 0 && sx < size.width && sy > 0 && sy < size.height) return v;
      return { ...v, x: size.width / 2 - (layout.x[selectedNode] as number) * v.k, y: size.height / 2 - (layout.y[selectedNode] as number) * v.k };
    });
  }, [layout, selectedNode, size]);

  const choose = (node: number) => {
    if (drag.current?.moved) return;
    const row = graph.firstRow[node];
    if (row !== undefined) onSelect(row);
  };
  const onNodeKey = (event: KeyboardEvent, node: number) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      choose(node);
    }
  };

  // What is in view (with a margin of one node), in world coordinates.
  const visible = useMemo(() => {
    if (!layout || !view) return null;
    const left = -view.x / view.k - NODE_WIDTH;
    const top = -view.y / view.k - NODE_HEIGHT;
    const right = (size.width - view.x) / view.k + NODE_WIDTH;
    const bottom = (size.height - view.y) / view.k + NODE_HEIGHT;
    const nodes: number[] = [];
    let edges = "";
    const half = NODE_HEIGHT / 2;
    for (let i = 0; i < graph.count; i++) {
      const x = layout.x[i] as number;
      const y = layout.y[i] as number;
      if (x >= left && x <= right && y >= top && y <= bottom) nodes.push(i);
      const p = graph.parent[i] as number;
      if (p < 0) continue;
      const px = layout.x[p] as number;
      const py = layout.y[p] as number;
      if (Math.max(x, px) < left || Math.min(x, px) > right || y < top || py > bottom) continue;
      const mid = py + half + (ROW - NODE_HEIGHT) / 2;
      edges += `M${px} ${py + half}V${mid}H${x}V${y - half}`;
    }
    return { nodes, edges };
  }, [graph, layout, view, size]);

  const labels = view !== null && view.k >= LABEL_ZOOM;
  return (
    <figure
      className="trace-graph"
      aria-label="Agent graph"
      data-layout-ms={layout ? layout.ms.toFixed(1) : undefined}
      data-render-ms={renderMs !== null ? renderMs.toFixed(1) : undefined}
    >
      <div className="trace-graph__toolbar">
        <span className="muted">
          {graph.count.toLocaleString()} {graph.count === 1 ? "node" : "nodes"}
        </span>
        <span className="trace-graph__buttons">
          <button type="button" className="button button--ghost button--sm" onClick={() => zoomBy(1.25)} aria-label="Zoom in">
            +
          </button>
          <button type="button" className="button button--ghost button--sm" onClick={() => zoomBy(0.8)} aria-label="Zoom out">
            −
          </button>
          <button type="button" className="button button--ghost button--sm" onClick={fit}>
            Fit
          </button>
        </span>
      </div>
      <div className="trace-graph__canvas" ref={box}>
        {!layout && <p className="muted trace-graph__waiting">Laying out {graph.count.toLocaleString()} nodes…</p>}
        {visible && view && (
          <svg
            className="trace-graph__svg"
            width={size.width}
            height={size.height}
            onPointerDown={onPointerDown}
            onPointerMove={onPointerMove}
            onPointerUp={onPointerUp}
          >
            <g transform={`translate(${view.x} ${view.y}) scale(${view.k})`}>
              <path className="trace-graph__edges" d={visible.edges} />
              {visible.nodes.map((node) => {
                const type = graph.types[node] ?? "";
                const name = graph.names[node] || "(unnamed)";
                const calls = graph.calls[node] as number;
                const selected = node === selectedNode;
                return (
                  <g
                    key={node}
                    className={`graph-node graph-node--${type.toLowerCase()}${selected ? " graph-node--selected" : ""}`}
                    transform={`translate(${(layout?.x[node] as number) - NODE_WIDTH / 2} ${(layout?.y[node] as number) - NODE_HEIGHT / 2})`}
                    role="button"
                    tabIndex={0}
                    aria-label={`${typeLabel(type)} ${name}${calls > 1 ? `, ${calls} calls` : ""}`}
                    aria-pressed={selected}
                    onClick={() => choose(node)}
                    onKeyDown={(event) => onNodeKey(event, node)}
                  >
                    <title>{`${type} ${name}${calls > 1 ? ` ×${calls}` : ""}`}</title>
                    <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx={6} />
                    {labels && (
                      <>
                        <text className="graph-node__type" x={10} y={16}>
                          {typeLabel(type)}
                        </text>
                        <text className="graph-node__name" x={10} y={34}>
                          {shorten(name, 24)}
                        </text>
                        {calls > 1 && (
                          <text className="graph-node__calls" x={NODE_WIDTH - 10} y={16} textAnchor="end">
                            ×{calls.toLocaleString()}
                          </text>
                        )}
                      </>
                    )}
                  </g>
                );
              })}
            </g>
          </svg>
        )}
      </div>
    </figure>
  );
}
