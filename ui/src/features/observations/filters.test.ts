import { describe, expect, it } from "vitest";

import { OPERATORS, blankFilter, describeFilter, rangeParams, toApiFilter, toApiFilters } from "./filters";

describe("the filter builder", () => {
  it("turns each kind into the API's condition", () => {
    expect(toApiFilter({ column: "name", operator: "contains", value: "chat" })).toEqual({
      type: "string",
      column: "name",
      operator: "contains",
      value: "chat",
    });
    expect(toApiFilter({ column: "level", operator: "any of", value: ["ERROR"] })).toEqual({
      type: "stringOptions",
      column: "level",
      operator: "any of",
      value: ["ERROR"],
    });
    expect(toApiFilter({ column: "latency", operator: ">", value: " 10.5 " })).toEqual({
      type: "number",
      column: "latency",
      operator: ">",
      value: 10.5,
    });
    expect(toApiFilter({ column: "metadata", operator: "=", key: "region", value: "eu" })).toEqual({
      type: "stringObject",
      column: "metadata",
      operator: "=",
      key: "region",
      value: "eu",
    });
    expect(toApiFilter({ column: "isRootObservation", operator: "=", value: "false" })).toEqual({
      type: "boolean",
      column: "isRootObservation",
      operator: "=",
      value: false,
    });
    expect(toApiFilter({ column: "input", operator: "matches", value: "refund" })).toEqual({
      type: "string",
      column: "input",
      operator: "matches",
      value: "refund",
    });
  });

  it("sends nothing for an incomplete filter", () => {
    expect(toApiFilter({ column: "name", operator: "=", value: "" })).toBeNull();
    expect(toApiFilter({ column: "latency", operator: ">", value: "ten" })).toBeNull();
    expect(toApiFilter({ column: "level", operator: "any of", value: [] })).toBeNull();
    expect(toApiFilter({ column: "metadata", operator: "=", key: " ", value: "eu" })).toBeNull();
    expect(toApiFilters([{ column: "name", operator: "=", value: "" }, { column: "name", operator: "=", value: "a" }])).toHaveLength(1);
  });

  it("refuses operators the column does not take (input only with = or matches)", () => {
    expect(OPERATORS.io).toEqual(["matches", "="]);
    expect(toApiFilter({ column: "input", operator: "contains", value: "x" })).toBeNull();
    expect(toApiFilter({ column: "nope", operator: "=", value: "x" })).toBeNull();
  });

  it("starts a filter with the column's first operator", () => {
    expect(blankFilter("level")).toEqual({ column: "level", operator: "any of", value: [] });
    expect(blankFilter("metadata")).toEqual({ column: "metadata", operator: "=", value: "", key: "" });
    expect(describeFilter({ column: "metadata", operator: "=", key: "region", value: "eu" })).toBe("metadata.region = eu");
    expect(describeFilter({ column: "level", operator: "any of", value: ["ERROR", "WARNING"] })).toBe("Level any of ERROR, WARNING");
  });

  it("resolves time ranges against now", () => {
    const now = Date.parse("2026-01-02T00:00:00.000Z");
    expect(rangeParams({ preset: "24h" }, now)).toEqual({ fromStartTime: "2026-01-01T00:00:00.000Z" });
    expect(rangeParams({ preset: "all" }, now)).toEqual({});
    expect(rangeParams({ to: "2026-01-01T12:00:00.000Z" }, now)).toEqual({ toStartTime: "2026-01-01T12:00:00.000Z" });
  });
});
