import { describe, expect, it } from "vitest";

import { errorsFilter, modelFilter, observationsLink, toSeries, toSeriesBy } from "./queries";
import { readRange, resolveRange, writeRange } from "./range";

const hour = 3_600_000;
const t0 = Date.UTC(2024, 0, 1, 10);

describe("home charts", () => {
  it("fills a count series and groups scores by name", () => {
    const rows = [{ time_dimension: "2024-01-01 11:00:00", count_count: "3" }];
    expect(toSeries(rows, "count_count", { from: t0, to: t0 + 3 * hour, granularity: "hour" }).map((p) => p.v)).toEqual([0, 3, 0]);
    const scores = [
      { name: "a", time_dimension: "2024-01-01 11:00:00", avg_value: 0.5 },
      { name: "b", time_dimension: "2024-01-01 10:00:00", avg_value: 1 },
      { name: "a", time_dimension: "2024-01-01 10:00:00", avg_value: 0.25 },
    ];
    const series = toSeriesBy(scores, "name", "avg_value");
    expect(series.map((s) => s.name)).toEqual(["a", "b"]);
    expect(series[0]?.points.map((p) => p.v)).toEqual([0.25, 0.5]);
  });

  it("opens the Observations view with the same range and the chart's filter", () => {
    const link = observationsLink("p 1", { preset: "1h" }, [errorsFilter]);
    const url = new URL(link, "http://x");
    expect(url.pathname).toBe("/project/p%201/observations");
    expect(url.searchParams.get("range")).toBe("1h");
    expect(JSON.parse(url.searchParams.get("filter") ?? "")).toEqual([{ column: "level", operator: "any of", value: ["ERROR"] }]);
    const custom = new URL(observationsLink("p", { from: "2024-01-01T00:00:00.000Z" }, [modelFilter("gpt")]), "http://x");
    expect(custom.searchParams.get("from")).toBe("2024-01-01T00:00:00.000Z");
  });

  it("keeps the range in the URL and resolves it against now", () => {
    const params = writeRange({ from: "2024-01-01T00:00:00.000Z", to: "2024-01-02T00:00:00.000Z" }, new URLSearchParams("x=1"));
    expect(params.get("x")).toBe("1");
    expect(readRange(params)).toEqual({ from: "2024-01-01T00:00:00.000Z", to: "2024-01-02T00:00:00.000Z" });
    expect(readRange(new URLSearchParams("range=bogus"))).toEqual({ preset: "24h" });
    expect(resolveRange({ preset: "1h" }, t0)).toEqual({ from: t0 - hour, to: t0, open: false });
    expect(resolveRange({ preset: "all" }, t0).open).toBe(true);
  });
});
