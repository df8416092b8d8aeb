import { describe, expect, it } from "vitest";

import { childrenAt, entryOf, STRING_PREVIEW, stringAt } from "./jsonModel";

describe("the JSON model", () => {
  const value = { list: Array.from({ length: 250 }, (_, i) => i), long: "x".repeat(STRING_PREVIEW + 10), flag: true, none: null };

  it("pages the children of a node", () => {
    const page = childrenAt(value, ["list"], 100, 100);
    expect(page.total).toBe(250);
    expect(page.entries[0]).toEqual({ key: 100, kind: "number", text: "100" });
    expect(childrenAt(value, ["list"], 200, 100).entries).toHaveLength(50);
    expect(childrenAt(value, [], 0, 10).entries.map((e) => e.kind)).toEqual(["array", "string", "boolean", "null"]);
  });

  it("cuts long strings and reads them on by piece", () => {
    const long = entryOf("long", value.long);
    expect(long.text).toHaveLength(STRING_PREVIEW);
    expect(long.length).toBe(STRING_PREVIEW + 10);
    expect(stringAt(value, ["long"], STRING_PREVIEW, 100)).toBe("x".repeat(10));
  });
});
