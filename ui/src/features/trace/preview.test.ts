import { describe, expect, it } from "vitest";

import { childrenAt, entryOf, STRING_PREVIEW, stringAt } from "./jsonModel";
import { formatBytes, formatCost, formatDuration, readPreview } from "./preview";

describe("readPreview", () => {
  it("shows nothing for an absent value", () => {
    expect(readPreview({ preview: null, bytes: 0, truncated: false })).toEqual({ kind: "empty" });
  });

  it("parses a whole value: JSON, or the text itself", () => {
    expect(readPreview({ preview: '{"a":[1,2]}', bytes: 11, truncated: false })).toEqual({ kind: "value", value: { a: [1, 2] } });
    expect(readPreview({ preview: '"quoted"', bytes: 8, truncated: false })).toEqual({ kind: "value", value: "quoted" });
    expect(readPreview({ preview: "plain words", bytes: 11, truncated: false })).toEqual({ kind: "value", value: "plain words" });
  });

  it("never parses a cut value: its beginning is text, its size the whole", () => {
    expect(readPreview({ preview: '{"a":"xxxx', bytes: 20_000_000, truncated: true })).toEqual({
      kind: "truncated",
      text: '{"a":"xxxx',
      bytes: 20_000_000,
    });
  });
});

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

describe("formats", () => {
  it("reads as people read", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(65_536)).toBe("64.0 KiB");
    expect(formatBytes(20 * 1024 * 1024)).toBe("20.0 MiB");
    expect(formatDuration(850)).toBe("850 µs");
    expect(formatDuration(12_345)).toBe("12 ms");
    expect(formatDuration(1_520_000)).toBe("1.52 s");
    expect(formatDuration(185_000_000)).toBe("3m 05s");
    expect(formatCost(0.25)).toBe("$0.2500");
    expect(formatCost(0.0012)).toBe("$0.0012");
  });
});
