import { describe, expect, it } from "vitest";

import type { Comparison, DatasetItem, RunCell } from "./api";
import { compareRows, formatNumber, pickedRuns, scoreText, togglePick } from "./compare";

const item = (id: string): DatasetItem => ({
  id,
  status: "ACTIVE",
  input: { q: id },
  expectedOutput: null,
  metadata: null,
  sourceTraceId: null,
  sourceObservationId: null,
  datasetName: "qa",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
});

const cell = (runId: string, itemId: string): RunCell => ({
  runId,
  itemId,
  traceId: `${runId}-${itemId}`,
  observationId: null,
  output: "out",
  outputTruncated: false,
  latency: 1,
  totalCost: 0.1,
  scores: [],
});

describe("rows of the comparison", () => {
  it("gives every item of the page a row, with the cells of the runs that ran it", () => {
    const comparison: Comparison = {
      items: { data: [item("a"), item("b")], meta: { page: 1, limit: 50, totalItems: 2, totalPages: 1 } },
      runs: [],
      cells: [cell("r1", "a"), cell("r2", "a"), cell("r2", "b"), cell("r1", "gone")],
    };
    const rows = compareRows(comparison);
    expect(rows.map((r) => [r.item.id, Object.keys(r.cells).sort()])).toEqual([
      ["a", ["r1", "r2"]],
      ["b", ["r2"]],
    ]);
    expect(rows[0]?.cells.r2?.traceId).toBe("r2-a");
  });
});

describe("picked runs", () => {
  it("keeps known runs once, at most five", () => {
    expect(pickedRuns(null, ["a"])).toEqual([]);
    expect(pickedRuns("a,x,a,b", ["a", "b"])).toEqual(["a", "b"]);
    expect(pickedRuns("1,2,3,4,5,6", ["1", "2", "3", "4", "5", "6"])).toEqual(["1", "2", "3", "4", "5"]);
  });

  it("toggles, refusing a sixth", () => {
    expect(togglePick(["a"], "b")).toEqual(["a", "b"]);
    expect(togglePick(["a", "b"], "a")).toEqual(["b"]);
    expect(togglePick(["1", "2", "3", "4", "5"], "6")).toEqual(["1", "2", "3", "4", "5"]);
  });
});

describe("scores and numbers", () => {
  it("shows each kind of score", () => {
    expect(scoreText({ name: "accuracy", dataType: "NUMERIC", value: 0.83333, stringValue: null })).toBe("accuracy 0.833");
    expect(scoreText({ name: "tone", dataType: "CATEGORICAL", value: 0, stringValue: "terse" })).toBe("tone terse");
    expect(scoreText({ name: "passed", dataType: "BOOLEAN", value: 1, stringValue: null })).toBe("passed true");
    expect(formatNumber(2)).toBe("2");
  });
});
