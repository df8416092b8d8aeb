// The graph layout, off the main thread: a request is a forest's parent array, the reply its
// coordinates (transferred, not copied) and how long the layout took.

import { layoutGraph } from "./layout";

export interface LayoutRequest {
  id: number;
  parent: Int32Array;
}

export interface LayoutReply {
  id: number;
  x: Float64Array;
  y: Float64Array;
  layer: Int32Array;
  width: number;
  height: number;
  ms: number;
}

self.onmessage = (event: MessageEvent<LayoutRequest>) => {
  const { id, parent } = event.data;
  const started = performance.now();
  const layout = layoutGraph(parent);
  const reply: LayoutReply = { id, ...layout, ms: performance.now() - started };
  (self as unknown as Worker).postMessage(reply, [layout.x.buffer, layout.y.buffer, layout.layer.buffer]);
};
