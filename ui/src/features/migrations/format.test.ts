import { describe, expect, it } from "vitest";

import { formatEta, formatPercent, formatRate, formatRows } from "./format";

describe("progress", () => {
  it.each<[number | null, string | null]>([
    [null, null],
    [0, "0 %"],
    [0.01, "0.1 %"],
    [42.46, "42.5 %"],
    [99.97, "99.9 %"],
    [100, "100 %"],
    [140, "100 %"],
  ])("%s is %s", (percent, text) => {
    expect(formatPercent(percent)).toBe(text);
  });

  it("names the rows done, and the total when it is known", () => {
    expect(formatRows(12_400, 50_000, "observations")).toBe("12,400 of 50,000 observations");
    expect(formatRows(7, null, "tables")).toBe("7 tables");
    expect(formatRows(0, 0, "traces")).toBe("no traces to copy");
  });

  it("gives a rate only once there is one", () => {
    expect(formatRate(null, "traces")).toBeNull();
    expect(formatRate(0, "traces")).toBeNull();
    expect(formatRate(2.25, "traces")).toBe("2.3 traces/s");
    expect(formatRate(28_095, "observations")).toBe("28.1K observations/s");
  });
});

describe("formatEta", () => {
  it.each<[number | null, string | null]>([
    [null, null],
    [-5, null],
    [12, "less than a minute left"],
    [89, "about 1 min left"],
    [95, "about 2 min left"],
    [3_700, "about 1 h left"],
    [5_500, "about 1 h 30 min left"],
    [200_000, "about 2 d 8 h left"],
  ])("%s s is %s", (seconds, text) => {
    expect(formatEta(seconds)).toBe(text);
  });
});
