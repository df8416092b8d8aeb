import { describe, expect, it } from "vitest";

import { fillBuckets, formatNumber, formatTime, granularityFor, linear, niceStep, niceTicks, parseBucket, timeTicks } from "./scale";

describe("value axis", () => {
  it("maps linearly and survives an empty domain", () => {
    const y = linear([0, 10], [100, 0]);
    expect(y(0)).toBe(100);
    expect(y(5)).toBe(50);
    expect(linear([3, 3], [7, 9])(3)).toBe(7);
  });

  it("picks steps of 1, 2 or 5 × 10ⁿ", () => {
    expect(niceStep(10, 5)).toBe(2);
    expect(niceStep(7, 4)).toBe(2);
    expect(niceStep(0.9, 4)).toBe(0.5);
    expect(niceStep(1234, 4)).toBe(500);
  });

  it("ticks from zero to a round top at or above the maximum", () => {
    expect(niceTicks(0, 7)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(0, 0)).toEqual([0, 1]);
    expect(niceTicks(0, 0.3)).toEqual([0, 0.1, 0.2, 0.3]);
    expect(niceTicks(-3, 4)).toEqual([-4, -2, 0, 2, 4]);
    const ticks = niceTicks(0, 987654);
    expect(ticks.at(-1)).toBeGreaterThanOrEqual(987654);
  });
});

describe("time axis", () => {
  const hour = 3_600_000;
  const t0 = Date.UTC(2024, 0, 1, 10, 17);

  it("ticks on round UTC instants inside the range", () => {
    const ticks = timeTicks(t0, t0 + 24 * hour, 5);
    expect(ticks.length).toBeLessThanOrEqual(5);
    expect(ticks.every((t) => t % (6 * hour) === 0 && t >= t0 && t <= t0 + 24 * hour)).toBe(true);
    expect(formatTime(Date.UTC(2024, 0, 2, 6), 6 * hour)).toBe("06:00");
    expect(formatTime(Date.UTC(2024, 2, 5), 24 * hour)).toBe("Mar 5");
  });

  it("chooses the granularity the server's auto does", () => {
    expect(granularityFor(0, 2 * hour)).toBe("minute");
    expect(granularityFor(0, 24 * hour)).toBe("hour");
    expect(granularityFor(0, 7 * 24 * hour)).toBe("day");
    expect(granularityFor(0, 200 * 24 * hour)).toBe("week");
    expect(granularityFor(0, 800 * 24 * hour)).toBe("month");
  });

  it("reads ClickHouse instants as UTC and fills empty buckets with 0", () => {
    expect(parseBucket("2024-01-01 10:00:00")).toBe(Date.UTC(2024, 0, 1, 10));
    expect(parseBucket("2024-01-01T10:00:00.000Z")).toBe(Date.UTC(2024, 0, 1, 10));
    const from = Date.UTC(2024, 0, 1, 9, 30);
    const filled = fillBuckets([{ t: Date.UTC(2024, 0, 1, 11), v: 4 }], from, from + 3 * hour, "hour");
    expect(filled.map((p) => p.v)).toEqual([0, 0, 4, 0]);
    expect(filled[0]?.t).toBe(Date.UTC(2024, 0, 1, 9));
    const weeks = [{ t: 5, v: 1 }, { t: 2, v: 3 }];
    expect(fillBuckets(weeks, 0, 10, "week")).toEqual([{ t: 2, v: 3 }, { t: 5, v: 1 }]);
  });
});

describe("numbers", () => {
  it("formats compactly", () => {
    expect(formatNumber(1234)).toBe("1.23k");
    expect(formatNumber(2_500_000)).toBe("2.5M");
    expect(formatNumber(12.5)).toBe("12.5");
    expect(formatNumber(0.000123)).toBe("0.000123");
    expect(formatNumber(0)).toBe("0");
    expect(formatNumber(Number.NaN)).toBe("–");
  });
});
