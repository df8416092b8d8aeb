import { describe, expect, it } from "vitest";

import { formatAgo, formatCompact, formatCost, formatCount, formatDuration } from "./format";

describe("formatDuration", () => {
  it.each([
    [0, "0 ms"],
    [0.0425, "43 ms"],
    [0.9994, "999 ms"],
    [1, "1.0 s"],
    [9.94, "9.9 s"],
    [13, "13 s"],
    [59.4, "59 s"],
    [59.6, "1 min"],
    [90, "1 min 30 s"],
    [3_600, "1 h"],
    [3_723, "1 h 2 min"],
    [86_400 + 4 * 3_600 + 59, "1 d 4 h"],
    [86_400 + 60, "1 d"],
  ])("%s s is %s", (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });

  it("says nothing for what is not a duration", () => {
    expect(formatDuration(-1)).toBe("–");
    expect(formatDuration(Number.NaN)).toBe("–");
  });
});

describe("money and counts", () => {
  it.each([
    [0, "$0"],
    [1, "$1.00"],
    [1234.5, "$1,234.50"],
    [0.15616, "$0.156"],
    [0.0042, "$0.0042"],
    [0.0000123456, "$0.0000123"],
  ])("%s USD is %s", (usd, text) => {
    expect(formatCost(usd)).toBe(text);
  });

  it("separates thousands and compacts large counts", () => {
    expect(formatCount(38617)).toBe("38,617");
    expect(formatCompact(950)).toBe("950");
    expect(formatCompact(38_617)).toBe("38.6K");
    expect(formatCompact(1_200_000)).toBe("1.2M");
  });
});

describe("formatAgo", () => {
  const now = Date.parse("2026-11-26T12:00:00Z");
  it.each([
    ["2026-11-26T11:59:30Z", "just now"],
    ["2026-11-26T11:55:00Z", "5 min ago"],
    ["2026-11-26T09:00:00Z", "3 h ago"],
    ["2026-11-24T12:00:00Z", "2 d ago"],
  ])("%s is %s", (iso, text) => {
    expect(formatAgo(iso, now)).toBe(text);
  });
});
