// The Metrics v2 query a widget runs over a time range: the same object the server checks when the
// widget is saved (resources::dashboards::widgets::query), plus the dashboard's own filters.

import type { MetricsQuery } from "../home/queries";
import type { Widget, WidgetFilter } from "./api";

export const VIEWS = ["observations", "scores-numeric", "scores-boolean", "scores-categorical"] as const;
export const CHART_TYPES = [
  "LINE_TIME_SERIES",
  "AREA_TIME_SERIES",
  "BAR_TIME_SERIES",
  "HORIZONTAL_BAR",
  "VERTICAL_BAR",
  "PIE",
  "NUMBER",
  "HISTOGRAM",
  "PIVOT_TABLE",
] as const;
export const AGGREGATIONS = ["count", "sum", "avg", "min", "max", "p50", "p75", "p90", "p95", "p99", "uniq", "histogram"] as const;

/** Measures and dimensions each view offers (crates/reads/src/metrics/views/v2.rs). */
export const MEASURES: Record<string, readonly string[]> = {
  observations: ["count", "latency", "timeToFirstToken", "inputTokens", "outputTokens", "totalTokens", "inputCost", "outputCost", "totalCost", "countScores"],
  "scores-numeric": ["count", "value"],
  "scores-boolean": ["count"],
  "scores-categorical": ["count"],
};
const SCORE_DIMENSIONS = ["name", "source", "dataType", "environment", "stringValue", "traceName", "observationName", "observationModelName"];
export const DIMENSIONS: Record<string, readonly string[]> = {
  observations: ["name", "type", "level", "environment", "providedModelName", "promptName", "traceName", "version", "release", "userId", "sessionId", "traceId"],
  "scores-numeric": SCORE_DIMENSIONS,
  "scores-boolean": SCORE_DIMENSIONS,
  "scores-categorical": SCORE_DIMENSIONS,
};

export const isTimeSeries = (chartType: string) => chartType.endsWith("_TIME_SERIES");

export const metricKey = (m: { measure: string; agg: string }) => `${m.agg}_${m.measure}`;

export function widgetQuery(widget: Widget, from: string, to: string, dashboardFilters: readonly WidgetFilter[] = []): MetricsQuery {
  const query: MetricsQuery = {
    view: widget.view,
    dimensions: widget.dimensions,
    metrics: widget.metrics.map((m) => ({ measure: m.measure, aggregation: m.agg })),
    filters: [...widget.filters, ...dashboardFilters],
    fromTimestamp: from,
    toTimestamp: to,
  };
  const config: { row_limit?: number; bins?: number } = {};
  if (widget.chartConfig.bins !== undefined) config.bins = widget.chartConfig.bins;
  if (isTimeSeries(widget.chartType)) {
    query.timeDimension = { granularity: "auto" };
  } else if (widget.dimensions.length) {
    config.row_limit = widget.chartConfig.row_limit ?? 100;
    const first = widget.metrics[0];
    if (first) query.orderBy = [{ field: metricKey(first), direction: "desc" }];
  }
  if (Object.keys(config).length) query.config = config;
  return query;
}
