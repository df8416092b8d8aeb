import { describe, expect, it } from "vitest";

import type { Widget } from "./api";
import { widgetQuery } from "./query";

const widget = (chartType: string, dimensions: string[]): Widget => ({
  id: "w",
  createdAt: "",
  updatedAt: "",
  name: "w",
  description: "",
  view: "observations",
  dimensions: dimensions.map((field) => ({ field })),
  metrics: [{ measure: "latency", agg: "p95" }],
  filters: [{ column: "type", operator: "any of", type: "stringOptions", value: ["GENERATION"] }],
  chartType,
  chartConfig: { type: chartType },
});

describe("a widget's query, as the server checks it", () => {
  it("buckets time series by time", () => {
    const q = widgetQuery(widget("LINE_TIME_SERIES", ["name"]), "a", "b");
    expect(q.timeDimension).toEqual({ granularity: "auto" });
    expect(q.orderBy).toBeUndefined();
    expect(q.metrics).toEqual([{ measure: "latency", aggregation: "p95" }]);
  });

  it("keeps the largest groups of other charts, and adds the dashboard's filters", () => {
    const dashboardFilter = { column: "environment", operator: "=", type: "string", value: "prod" };
    const q = widgetQuery(widget("HORIZONTAL_BAR", ["name"]), "a", "b", [dashboardFilter]);
    expect(q.orderBy).toEqual([{ field: "p95_latency", direction: "desc" }]);
    expect(q.config).toEqual({ row_limit: 100 });
    expect(q.filters).toHaveLength(2);
    expect(widgetQuery(widget("NUMBER", []), "a", "b").config).toBeUndefined();
  });
});
