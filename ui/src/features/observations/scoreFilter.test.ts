import { describe, expect, it } from "vitest";

import { blankFilter, describeFilter, toApiFilter } from "./filters";
import { readViewState, writeViewState, DEFAULT_STATE } from "./state";

describe("the Score filter", () => {
  it("sends a number as numberObject and a text value as stringObject on `scores`", () => {
    expect(toApiFilter({ column: "scores", operator: ">=", key: " quality ", value: "0.7" })).toEqual({
      type: "numberObject",
      column: "scores",
      operator: ">=",
      key: "quality",
      value: 0.7,
    });
    expect(toApiFilter({ column: "scores", operator: "<>", key: "quality", value: "1" })).toMatchObject({
      type: "numberObject",
      operator: "<>",
      value: 1,
    });
    expect(toApiFilter({ column: "scores", operator: "=", key: "label", value: "good" })).toEqual({
      type: "stringObject",
      column: "scores",
      operator: "=",
      key: "label",
      value: "good",
    });
  });

  it("sends nothing without a name, without a value, or for a text value compared with anything but =", () => {
    expect(toApiFilter({ column: "scores", operator: "=", key: "", value: "1" })).toBeNull();
    expect(toApiFilter({ column: "scores", operator: "=", key: "quality", value: " " })).toBeNull();
    expect(toApiFilter({ column: "scores", operator: ">", key: "label", value: "good" })).toBeNull();
    expect(toApiFilter({ column: "scores", operator: "contains", key: "label", value: "good" })).toBeNull();
  });

  it("starts blank, reads as a chip and survives the URL", () => {
    expect(blankFilter("scores")).toEqual({ column: "scores", operator: ">=", value: "", key: "" });
    expect(describeFilter({ column: "scores", operator: ">=", key: "quality", value: "0.7" })).toBe("score quality >= 0.7");
    const state = { ...DEFAULT_STATE, filters: [{ column: "scores", operator: "=", key: "label", value: "good" }] };
    const params = new URLSearchParams(writeViewState(state).toString());
    expect(JSON.parse(params.get("filter") ?? "")).toEqual([{ column: "scores", operator: "=", key: "label", value: "good" }]);
    expect(readViewState(params).filters).toEqual(state.filters);
  });
});
