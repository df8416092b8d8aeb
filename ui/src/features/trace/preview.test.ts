import { describe, expect, it } from "vitest";

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
