import { describe, expect, it } from "vitest";

import { DEFAULT_STATE, readViewState, sameState, stateFromSaved, writeViewState, type ViewState } from "./state";

const full: ViewState = {
  filters: [
    { column: "level", operator: "any of", value: ["ERROR", "WARNING"] },
    { column: "metadata", operator: "=", key: "region", value: "eu & co" },
    { column: "latency", operator: ">", value: "10" },
  ],
  columns: ["startTime", "name", "cost"],
  search: "checkout flow",
  searchIn: "io",
  order: "asc",
  range: { preset: "7d" },
};

describe("the view state in the URL", () => {
  it("round-trips every part", () => {
    const params = writeViewState(full);
    expect(readViewState(new URLSearchParams(params.toString()))).toEqual(full);
  });

  it("names the search's scope and the order only when they are not the default", () => {
    const params = writeViewState(full);
    expect(params.get("in")).toBe("io");
    expect(params.get("order")).toBe("asc");
    const plain = writeViewState({ ...full, searchIn: "ids", order: "desc" });
    expect(plain.has("in") || plain.has("order")).toBe(false);
    expect(readViewState(new URLSearchParams("in=everything&order=sideways"))).toMatchObject({ searchIn: "ids", order: "desc" });
    expect(sameState(full, { ...full, order: "desc" })).toBe(false);
  });

  it("leaves defaults out, so the plain page has a plain address", () => {
    expect(writeViewState(DEFAULT_STATE).toString()).toBe("");
    expect(readViewState(new URLSearchParams())).toEqual(DEFAULT_STATE);
  });

  it("keeps keys it does not own (selection, saved view) and replaces its own", () => {
    const base = new URLSearchParams("trace=t1&observation=o1&view=v1&q=old&range=1h");
    const params = writeViewState({ ...DEFAULT_STATE, search: "new" }, base);
    expect(params.get("trace")).toBe("t1");
    expect(params.get("observation")).toBe("o1");
    expect(params.get("view")).toBe("v1");
    expect(params.get("q")).toBe("new");
    expect(params.has("range")).toBe(false);
  });

  it("reads a custom time range and ignores unreadable instants", () => {
    const from = "2026-01-01T00:00:00.000Z";
    expect(readViewState(new URLSearchParams(`from=${from}`)).range).toEqual({ from });
    expect(readViewState(new URLSearchParams("from=yesterday")).range).toEqual(DEFAULT_STATE.range);
    const custom = writeViewState({ ...DEFAULT_STATE, range: { from, to: "2026-01-02T00:00:00.000Z" } });
    expect(custom.get("from")).toBe(from);
    expect(custom.get("to")).toBe("2026-01-02T00:00:00.000Z");
  });

  it("drops what it cannot use instead of failing: bad JSON, unknown columns and filters", () => {
    const params = new URLSearchParams();
    params.set("filter", "[{");
    params.set("cols", "name,bogus,name,cost");
    params.set("range", "3y");
    const state = readViewState(params);
    expect(state.filters).toEqual([]);
    expect(state.columns).toEqual(["name", "cost"]);
    expect(state.range).toEqual(DEFAULT_STATE.range);
    params.set("filter", JSON.stringify([{ column: "nope", operator: "=", value: "x" }, { column: "name", operator: "=", value: 3 }]));
    expect(readViewState(params).filters).toEqual([{ column: "name", operator: "=", value: "3" }]);
  });

  it("an empty column list means every column", () => {
    expect(readViewState(new URLSearchParams("cols=")).columns).toEqual(DEFAULT_STATE.columns);
  });

  it("reads a saved view's state, whatever was stored", () => {
    expect(stateFromSaved(JSON.parse(JSON.stringify(full)))).toEqual(full);
    expect(stateFromSaved(null)).toEqual(DEFAULT_STATE);
    expect(stateFromSaved({ filters: "x", columns: 3, search: 4, range: { preset: "nope" } })).toEqual(DEFAULT_STATE);
    expect(stateFromSaved({ search: "x".repeat(500) }).search).toHaveLength(200);
  });

  it("compares states by what they show", () => {
    expect(sameState(full, stateFromSaved(JSON.parse(JSON.stringify(full))))).toBe(true);
    expect(sameState(full, { ...full, search: "other" })).toBe(false);
  });
});
