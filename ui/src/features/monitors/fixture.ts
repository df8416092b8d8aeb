// A stored monitor for the tests: an OK, unmuted count of observations; `patch` sets the rest.

import type { Monitor } from "./api";

export function storedMonitor(patch: Partial<Monitor> = {}): Monitor {
  return {
    id: "m1",
    projectId: "p1",
    name: "LLM errors",
    description: "",
    query: { view: "observations", measure: "count", aggregation: "count", filters: [] },
    windowSeconds: 300,
    comparison: ">=",
    threshold: 2,
    intervalSeconds: 60,
    channels: [],
    state: "OK",
    muted: false,
    lastValue: null,
    lastEvaluatedAt: null,
    nextEvaluationAt: "2026-01-01T00:00:00Z",
    createdAt: "2026-01-01T00:00:00Z",
    updatedAt: "2026-01-01T00:00:00Z",
    ...patch,
  };
}
