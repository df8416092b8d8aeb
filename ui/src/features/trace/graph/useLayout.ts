// The layout of a graph, computed by the layout worker: null until it answers. One worker per
// graph view, ended with it; a request made stale by a newer one is ignored.

import { useEffect, useState } from "react";

import type { GraphLayout } from "./layout";
import type { LayoutReply, LayoutRequest } from "./layout.worker";

export interface TimedLayout extends GraphLayout {
  /** Milliseconds the worker spent laying out. */
  ms: number;
}

export function useLayout(parent: Int32Array | null): TimedLayout | null {
  const [layout, setLayout] = useState<TimedLayout | null>(null);
  useEffect(() => {
    setLayout(null);
    if (!parent) return;
    const worker = new Worker(new URL("./layout.worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (event: MessageEvent<LayoutReply>) => {
      const { id: _id, ...rest } = event.data;
      setLayout(rest);
    };
    // A copy goes over: the graph keeps its own array.
    worker.postMessage({ id: 1, parent: parent.slice() } satisfies LayoutRequest);
    return () => worker.terminate();
  }, [parent]);
  return layout;
}
