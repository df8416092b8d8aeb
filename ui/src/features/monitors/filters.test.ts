import { describe, expect, it } from "vitest";

import { fromApiFilter, toApiFilter, type ViewFilter } from "../observations/filters";
import type { MonitorFilter } from "./api";
import { storedMonitor } from "./fixture";
import { builderRows, filterColumnsOf, rowFilters, rowsForView } from "../dashboards/filters";
import { EMPTY_FORM, formOf, monitorRequest } from "./form";

const monitor = (view: string, filters: MonitorFilter[]) => storedMonitor({ query: { view, measure: "count", aggregation: "count", filters } });

describe("a monitor's filters in the builder", () => {
  it("sends each kind of row as the Metrics filter JSON", () => {
    const rows: ViewFilter[] = [
      { column: "level", operator: "any of", value: ["ERROR", "WARNING"] },
      { column: "name", operator: "starts with", value: "chat" },
      { column: "promptVersion", operator: ">=", value: " 3 " },
      { column: "tags", operator: "all of", value: "prod, eu ," },
    ];
    expect(rowFilters(rows, "observations")).toEqual([
      { type: "stringOptions", column: "level", operator: "any of", value: ["ERROR", "WARNING"] },
      { type: "string", column: "name", operator: "starts with", value: "chat" },
      { type: "number", column: "promptVersion", operator: ">=", value: 3 },
      { type: "arrayOptions", column: "tags", operator: "all of", value: ["prod", "eu"] },
    ]);
  });

  it("reads back every row it sends, for every view's columns", () => {
    for (const view of ["observations", "scores-numeric"]) {
      for (const column of filterColumnsOf(view)) {
        const value = column.kind === "options" ? [column.options?.[0] ?? ""] : column.kind === "number" ? "2.5" : column.kind === "tags" ? "a, b" : "x";
        const row: ViewFilter = { column: column.id, operator: column.kind === "options" ? "none of" : "=", value };
        if (column.kind === "tags") row.operator = "any of";
        const sent = toApiFilter(row, filterColumnsOf(view));
        expect(sent, `${view} ${column.id}`).not.toBeNull();
        expect(fromApiFilter(sent!, filterColumnsOf(view)), `${view} ${column.id}`).toEqual(row);
      }
    }
  });

  it("names the first incomplete row instead of dropping it", () => {
    const checked = monitorRequest({ ...EMPTY_FORM, name: "n", threshold: "1", filters: [{ column: "name", operator: "=", value: "a" }, { column: "name", operator: "=", value: "" }] });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problems.filters).toBe("Filter 2 is not complete: give it a value");
  });

  it("opens a stored monitor in the builder when every filter fits it, a single = on an option as any of", () => {
    const form = formOf(monitor("observations", [{ column: "level", operator: "=", value: "ERROR", type: "string" }, { column: "name", operator: "contains", value: "chat", type: "string" }]));
    expect(form.filtersJson).toBeNull();
    expect(form.filters).toEqual([
      { column: "level", operator: "any of", value: ["ERROR"] },
      { column: "name", operator: "contains", value: "chat" },
    ]);
  });

  it("keeps filters the builder cannot show as JSON, and sends them unchanged", () => {
    const stored: MonitorFilter[] = [
      { column: "name", operator: "=", value: "a", type: "string" },
      { column: "sessionId", operator: "is not null", value: null, type: "null" },
    ];
    expect(builderRows(stored, "observations")).toBeNull();
    expect(builderRows([{ column: "nope", operator: "=", value: "a", type: "string" }], "observations")).toBeNull();
    expect(builderRows([{ column: "level", operator: "=", value: "LOUD", type: "string" }], "observations")).toBeNull();
    const form = formOf(monitor("observations", stored));
    expect(form.filters).toEqual([]);
    expect(JSON.parse(form.filtersJson ?? "")).toEqual(stored);
    const checked = monitorRequest(form);
    expect(checked.ok && checked.value.query.filters).toEqual(stored);
  });

  it("keeps the rows a new view has the same column for", () => {
    const rows: ViewFilter[] = [
      { column: "level", operator: "any of", value: ["ERROR"] },
      { column: "name", operator: "=", value: "quality" },
      { column: "tags", operator: "any of", value: "prod" },
    ];
    expect(rowsForView(rows, "observations", "scores-numeric")).toEqual(rows.slice(1));
    expect(rowsForView(rows, "observations", "observations")).toEqual(rows);
  });
});
