// The agent graph for the trace panels (the signed-in one and the public page's): a Tree/Graph
// switch and the graph view, which loads as a chunk of its own the first time it is shown.

import { lazy, Suspense } from "react";

import { Loading } from "../../../components/States";
import type { GraphViewProps } from "./GraphView";
import "./switch.css";

export type TraceViewMode = "tree" | "graph";

const LazyGraphView = lazy(() => import("./GraphView"));

export function TraceGraph(props: GraphViewProps) {
  return (
    <Suspense fallback={<Loading label="Loading the graph…" />}>
      <LazyGraphView {...props} />
    </Suspense>
  );
}

export function ViewSwitch({ mode, onChange }: { mode: TraceViewMode; onChange(mode: TraceViewMode): void }) {
  return (
    <div className="view-switch" role="group" aria-label="Trace view">
      {(["tree", "graph"] as const).map((m) => (
        <button
          key={m}
          type="button"
          className={`button button--sm ${mode === m ? "button--secondary" : "button--ghost"}`}
          aria-pressed={mode === m}
          onClick={() => onChange(m)}
        >
          {m === "tree" ? "Tree" : "Graph"}
        </button>
      ))}
    </div>
  );
}
