import { describe, expect, it } from "vitest";

import { pageQuery } from "./api";
import { DEFAULT_STATE } from "./state";

const now = Date.parse("2026-11-26T12:00:00Z");

describe("a page's query", () => {
  it("asks for the search's scope only with a search, and for the order only when oldest first", () => {
    expect(pageQuery({ ...DEFAULT_STATE, searchIn: "io" }, now)).not.toHaveProperty("searchIn");
    const io = pageQuery({ ...DEFAULT_STATE, search: "  refund policy ", searchIn: "io" }, now);
    expect(io).toMatchObject({ search: "refund policy", searchIn: "io" });
    expect(pageQuery({ ...DEFAULT_STATE, search: "x" }, now)).not.toHaveProperty("searchIn");
    expect(pageQuery(DEFAULT_STATE, now)).not.toHaveProperty("order");
    expect(pageQuery({ ...DEFAULT_STATE, order: "asc" }, now, { cursor: "c" })).toMatchObject({ order: "asc", cursor: "c" });
  });
});
